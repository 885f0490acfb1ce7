// AWS Lambda behind a Function URL, as the tests run it: AWS's own runtime interface client
// (aws-lambda-ric, what Lambda's Node.js images run, on Node 22: test/fixtures/lambda-ric) loads
// the project's bundle and polls the Lambda Runtime API served here. The same server stands in
// for the Function URL: each HTTP request becomes an event of payload format 2.0, and the
// function's answer becomes the HTTP response: a streamed one (its JSON prelude, eight NUL
// bytes, then the body) passed on chunk by chunk as the function writes it, as a Function URL in
// invoke mode RESPONSE_STREAM does; a buffered one ({ statusCode, headers, cookies, body,
// isBase64Encoded }) whole. One invocation at a time, as in one execution environment.
// https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html
// https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html
// https://docs.aws.amazon.com/lambda/latest/dg/runtimes-custom.html#runtimes-custom-response-streaming

import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stopChild } from '../../harness/process.js';
import { REPO } from '../../harness/project.js';
import type { PlatformServer } from './platforms.js';

export interface LambdaRun {
  /** The folder aws-lambda-ric and Node 22 are installed in (installPinned('lambda-ric')). */
  ric: string;
  /** The function's code: the folder of index.mjs, whose `handler` export is run. */
  taskRoot: string;
  /** The function's environment variables. */
  env: Record<string, string>;
  /** Every body base64-encoded, as a Function URL sends those it takes for binary; otherwise only those. */
  base64Bodies?: boolean;
  /** The Function URL's port, when the function must know its URL beforehand (MCP_PUBLIC_URL); default: any free one. */
  port?: number;
}

export interface FunctionUrlServer extends PlatformServer {
  /** Every event the function was given, in order. */
  events: Record<string, unknown>[];
}

/** Where an invocation's answer goes: the client's HTTP response. */
interface Invocation {
  id: string;
  event: Record<string, unknown>;
  client: ServerResponse;
}

const RUNTIME = '/2018-06-01/runtime';
const PRELUDE_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = Buffer.alloc(8);

/** Starts the Runtime API and Function URL on 127.0.0.1, then the runtime client; ready once it asks for its first event. */
export async function startLambda(run: LambdaRun): Promise<FunctionUrlServer> {
  const api = new RuntimeApi(run.base64Bodies ?? false);
  const server = createServer((req, res) => void api.serve(req, res));
  server.listen(run.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const child = spawn(join(run.ric, 'node_modules/node/bin/node'), [join(run.ric, 'node_modules/aws-lambda-ric/index.mjs')], {
    cwd: run.taskRoot,
    env: { PATH: process.env.PATH ?? '', ...lambdaEnvironment(address, run.taskRoot), ...run.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (api.output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (api.output += chunk.toString()));
  const stop = async () => {
    await stopChild(child);
    api.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the runtime client exited with ${String(code)} before asking for an event:\n${api.output}`);
  });
  try {
    await Promise.race([api.firstPoll, exited, timeout(60_000, () => `the runtime client asked for no event in 60 s:\n${api.output}`)]);
  } catch (error) {
    await stop();
    throw error;
  }
  exited.catch(() => api.close());
  return { url: `http://${address}`, events: api.events, output: () => api.output, stop };
}

/** The project's own bundling script, with esbuild from this repository's install (the version the project pins). */
export function buildLambda(project: string): void {
  execFileSync('npm', ['run', 'build:lambda', '--silent'], {
    cwd: project,
    env: { ...process.env, PATH: `${join(REPO, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
    stdio: 'pipe',
  });
}

/** What Lambda sets in a function's environment (the reserved variables the runtime client reads). */
function lambdaEnvironment(address: string, taskRoot: string): Record<string, string> {
  return {
    AWS_LAMBDA_RUNTIME_API: address,
    _HANDLER: 'index.handler',
    LAMBDA_TASK_ROOT: taskRoot,
    AWS_LAMBDA_FUNCTION_NAME: 'mcp',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/mcp',
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/01/01/[$LATEST]0123456789abcdef',
    AWS_REGION: 'us-east-1',
  };
}

/** The Runtime API's queue of invocations, and the Function URL that fills it. */
class RuntimeApi {
  output = '';
  readonly events: Record<string, unknown>[] = [];
  readonly firstPoll: Promise<void>;
  private polled: () => void = () => undefined;
  private readonly queue: Invocation[] = [];
  private readonly waiting: ServerResponse[] = [];
  private readonly running = new Map<string, Invocation>();

  constructor(private readonly base64Bodies: boolean) {
    this.firstPoll = new Promise((resolve) => (this.polled = resolve));
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!req.url?.startsWith(RUNTIME)) return this.invoke(req, await collect(req), res);
    if (req.url === `${RUNTIME}/invocation/next`) {
      this.polled();
      this.waiting.push(res);
      return this.dispatch();
    }
    const done = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(req.url ?? '');
    const invocation = done ? this.running.get(decodeURIComponent(done[1] as string)) : undefined;
    if (invocation === undefined) return this.unexpected(req, res);
    this.running.delete(invocation.id);
    if (done?.[2] === 'error') await this.failed(invocation, req);
    else if (req.headers['lambda-runtime-function-response-mode'] === 'streaming') await passStream(req, invocation.client);
    else answerBuffered(JSON.parse((await collect(req)).toString()) as BufferedResult, invocation.client);
    res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
  }

  /** A request to the Function URL: its event, queued for the runtime client. */
  private invoke(req: IncomingMessage, body: Buffer, client: ServerResponse): void {
    const event = eventOf(req, body, this.base64Bodies);
    this.events.push(event);
    this.queue.push({ id: randomUUID(), event, client });
    this.dispatch();
  }

  close(): void {
    for (const res of this.waiting.splice(0)) res.destroy();
    for (const invocation of [...this.running.values(), ...this.queue.splice(0)]) answerFailed(invocation.client);
    this.running.clear();
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.waiting.length > 0) {
      const invocation = this.queue.shift() as Invocation;
      this.running.set(invocation.id, invocation);
      deliver(invocation, this.waiting.shift() as ServerResponse);
    }
  }

  private async unexpected(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.output += `runtime API: ${req.method} ${req.url} ${(await collect(req)).toString()}\n`;
    res.writeHead(404).end();
  }

  private async failed(invocation: Invocation, req: IncomingMessage): Promise<void> {
    this.output += `invocation error: ${(await collect(req)).toString()}\n`;
    answerFailed(invocation.client);
  }
}

/** Hands an event to the runtime client's pending GET /invocation/next. */
function deliver(invocation: Invocation, next: ServerResponse): void {
  next.writeHead(200, {
    'content-type': 'application/json',
    'lambda-runtime-aws-request-id': invocation.id,
    'lambda-runtime-deadline-ms': String(Date.now() + 60_000),
    'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:us-east-1:123456789012:function:mcp',
    'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Sampled=0`,
  });
  next.end(JSON.stringify(invocation.event));
}

/**
 * An HTTP request as a Function URL gives it to the function (payload format 2.0): header names
 * lower-cased, repeated ones joined with commas, the Cookie header's pairs in `cookies`, and the
 * body base64-encoded unless its type is text.
 */
function eventOf(req: IncomingMessage, body: Buffer, base64: boolean): Record<string, unknown> {
  const { headers, cookies } = headersOf(req);
  const url = new URL(req.url ?? '/', 'http://function-url');
  const text = !base64 && /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded))/.test(headers['content-type'] ?? '');
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefgh',
      domainName: headers.host,
      domainPrefix: 'abcdefgh',
      http: {
        method: req.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

function headersOf(req: IncomingMessage): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase();
    const value = req.rawHeaders[i + 1] as string;
    if (name === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean));
    else headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  return { headers, cookies };
}

interface BufferedResult {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** A streamed answer: the prelude as the status and headers, then each chunk of the body as it comes. */
async function passStream(req: IncomingMessage, client: ServerResponse): Promise<void> {
  if (req.headers['content-type'] !== PRELUDE_TYPE) {
    client.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/octet-stream') });
    for await (const chunk of req) client.write(chunk);
    return void client.end();
  }
  let head = Buffer.alloc(0);
  for await (const chunk of req) {
    if (client.headersSent) {
      client.write(chunk);
      continue;
    }
    head = Buffer.concat([head, chunk as Buffer]);
    const end = head.indexOf(DELIMITER);
    if (end < 0) continue;
    writeHead(client, JSON.parse(head.subarray(0, end).toString()) as BufferedResult);
    if (head.length > end + DELIMITER.length) client.write(head.subarray(end + DELIMITER.length));
  }
  if (!client.headersSent) answerFailed(client);
  client.end();
}

function answerBuffered(result: BufferedResult, client: ServerResponse): void {
  writeHead(client, result);
  client.end(Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'));
}

function writeHead(client: ServerResponse, prelude: BufferedResult): void {
  const cookies = prelude.cookies ?? [];
  client.writeHead(prelude.statusCode ?? 200, { ...prelude.headers, ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) });
  client.flushHeaders();
}

/** What a Function URL answers when the function fails. */
function answerFailed(client: ServerResponse): void {
  if (client.headersSent) return void client.end();
  client.writeHead(502, { 'content-type': 'application/json' }).end('{"Message":"Internal Server Error"}');
}

async function collect(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function timeout(ms: number, message: () => string): Promise<never> {
  return new Promise((_resolve, reject) => setTimeout(() => reject(new Error(message())), ms).unref());
}
