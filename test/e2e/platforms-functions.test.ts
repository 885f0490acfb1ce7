// The function targets (issue #40). Lambda: the project's own `npm run build:lambda` bundle, run
// by AWS's runtime interface client (aws-lambda-ric on Node 22) against a local Runtime API that
// turns HTTP requests into Function URL events (payload format 2.0) and passes the answers on:
// streamed as they are written, as deployed (invoke mode RESPONSE_STREAM), and buffered where the
// runtime offers no streaming (test/harness/function-url.ts). Vercel: its function (api/mcp.ts)
// called by method with web Requests (test/harness/vercel-adapter.mts), as Vercel Functions call
// a web handler. Each driven by the official SDK client over Streamable HTTP in both eras.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';
import { startTogether, startVercel, type PlatformServer } from '../harness/platforms.js';
import { buildLambda, startLambda, type FunctionUrlServer } from '../harness/function-url.js';
import { installPinned } from '../harness/pinned-tools.js';
import { JOBS_SPEC } from '../harness/specs.js';

const TOKEN = 'lambda-token-1';
const API_KEY = 'key-lambda';
const AUTH = { authorization: `Bearer ${TOKEN}` };

type Host = 'lambda' | 'lambda-buffered' | 'vercel';

let dir: string | undefined;
let jobsDir: string | undefined;
let upstream: Upstream;
const servers: Partial<Record<Host | 'jobs', PlatformServer>> = {};

/** The job's second status check waits for this: the client has seen the first check's progress. */
let progressSeen = signal();

beforeAll(async () => {
  upstream = await startUpstream(answer);
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, join(tmpdir(), 'mcp-gen-e2e-functions'), ['--target', 'lambda,vercel']);
  jobsDir = generateJobs();
  await buildProject(dir);
  await buildProject(jobsDir);
  for (const project of [dir, jobsDir]) buildLambda(project);
  const ric = await installPinned('lambda-ric', (d) => existsSync(join(d, 'node_modules/aws-lambda-ric/rapid-client.node')));
  const env = { API_BASE_URL: `${upstream.url}/v2`, SWAGGER_PETSTORE_API_KEY: API_KEY, MCP_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'warn' };
  // a credential a client may send in a cookie: proves the event's `cookies` go back into the Cookie header
  const lambda = { ric, taskRoot: join(dir, 'dist/lambda'), env: { ...env, MCP_AUTH_FROM_HEADERS: 'Cookie=api_key' } };
  [servers.lambda, servers['lambda-buffered'], servers.vercel, servers.jobs] = await startTogether([
    startLambda(lambda),
    startLambda({ ...lambda, env: { ...lambda.env, AWS_LAMBDA_NODEJS_NO_GLOBAL_AWSLAMBDA: 'true' }, base64Bodies: true }),
    startVercel(dir, await freePort(), env),
    startLambda({
      ric,
      taskRoot: join(jobsDir, 'dist/lambda'),
      env: { API_BASE_URL: upstream.url, MCP_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
    }),
  ]);
}, 600_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  await upstream?.close();
  for (const folder of [dir, jobsDir]) if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

/** The Petstore's pets, and a job whose second status check waits until the client has seen progress (or 10 s). */
async function answer(req: Recorded): Promise<Answer> {
  const id = /^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1];
  if (req.method === 'GET' && id) return { body: JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }) };
  if (req.method === 'POST' && req.path === '/jobs') {
    return { status: 202, headers: { 'operation-location': `${upstream.url}/status/j1`, 'retry-after': '0' } };
  }
  if (req.method === 'GET' && req.path === '/status/j1') {
    const checks = upstream.requests.filter((r) => r.path === '/status/j1').length;
    if (checks === 1) return { headers: { 'retry-after': '0' }, body: JSON.stringify({ status: 'Running' }) };
    const released = await Promise.race([
      progressSeen.promise.then(() => 'by the progress'),
      new Promise<string>((resolve) => setTimeout(() => resolve('after 10 s'), 10_000)),
    ]);
    return { body: JSON.stringify({ status: 'Succeeded', result: { released } }) };
  }
  return { status: 404, body: JSON.stringify({ code: 404, message: `unexpected ${req.method} ${req.path}` }) };
}

/** A promise and what resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A project of JOBS_SPEC (one operation answering 202 and a status to follow) for Lambda. */
function generateJobs(): string {
  const spec = join(tmpdir(), 'mcp-gen-e2e-functions-jobs.json');
  writeFileSync(spec, JSON.stringify(JOBS_SPEC));
  const out = generateProject(spec, join(tmpdir(), 'mcp-gen-e2e-functions-jobs'), ['--target', 'lambda']);
  rmSync(spec, { force: true });
  return out;
}

it('generates the bundling script and a SAM template: a streaming Function URL, secrets as NoEcho parameters', () => {
  const template = readFileSync(join(dir as string, 'template.yaml'), 'utf8');
  expect(template).toContain('InvokeMode: RESPONSE_STREAM');
  expect(template).toContain('CodeUri: dist/lambda/');
  expect(template).toMatch(/ {2}SwaggerPetstoreApiKey:\n {4}Type: String\n {4}NoEcho: true/);
  expect(template).toContain('SWAGGER_PETSTORE_API_KEY: !Ref SwaggerPetstoreApiKey');
  expect(template).not.toContain(API_KEY);
  const pkg = JSON.parse(readFileSync(join(dir as string, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts['build:lambda']).toContain('--outfile=dist/lambda/index.mjs');
});

it('generates the Vercel function and its routes', () => {
  const config = JSON.parse(readFileSync(join(dir as string, 'vercel.json'), 'utf8')) as {
    rewrites: { source: string; destination: string }[];
  };
  expect(config.rewrites).toContainEqual({ source: '/mcp', destination: '/api/mcp' });
  expect(readFileSync(join(dir as string, 'api/mcp.ts'), 'utf8')).toContain('serve as POST');
});

describe.each(['lambda', 'lambda-buffered', 'vercel'] as const)('on %s', (host) => {
  const server = () => servers[host] as PlatformServer;

  it.each([
    ['2025-11-25', false],
    ['2026-07-28', true],
  ])('the SDK client (%s) lists the tools and a call reaches the API with its credential', async (_era, negotiate) => {
    const client = await connect('http', server().url, { negotiate, headers: AUTH });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('getPetById');
      upstream.clear();
      const id = negotiate ? 12 : 11;
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: id } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toEqual({ id, name: `pet-${id}`, photoUrls: [] });
      expect(upstream.requests.map((r) => [r.method, r.path, r.headers.api_key])).toEqual([['GET', `/v2/pet/${id}`, API_KEY]]);
      const wrong = await client.callTool({ name: 'getPetById', arguments: { petId: 'nine' } });
      expect(wrong.isError).toBe(true);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('refuses a request without the token', async () => {
    const refused = await fetch(`${server().url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Bearer');
  });
});

describe.each(['lambda', 'lambda-buffered'] as const)('on %s, as a Function URL calls it', (host) => {
  const server = () => servers[host] as FunctionUrlServer;

  it('gives the function payload-2.0 events: cookies apart from the headers, the query apart from the path', async () => {
    const answered = await fetch(`${server().url}/healthz?probe=1`, { headers: { cookie: 'a=1; b=2' } });
    expect(answered.status).toBe(200);
    const event = server().events.at(-1) as { rawPath: string; rawQueryString: string; cookies: string[]; headers: object };
    expect([event.rawPath, event.rawQueryString, event.cookies]).toEqual(['/healthz', 'probe=1', ['a=1', 'b=2']]);
    expect(event.headers).not.toHaveProperty('cookie');
  });

  it("puts the event's cookies back into the Cookie header: a credential taken from it reaches the API", async () => {
    const client = await connect('http', server().url, { headers: { ...AUTH, cookie: 'k=1; v=2' } });
    try {
      upstream.clear();
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: 7 } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(upstream.requests.map((r) => r.headers.api_key)).toEqual(['k=1; v=2']);
    } finally {
      await client.close();
    }
    const called = server()
      .events.filter((e) => bodyText(e).includes('"tools/call"'))
      .at(-1);
    expect(called?.cookies).toEqual(['k=1', 'v=2']);
    // the buffered one's stand-in sends every body base64-encoded, as AWS does those it takes for binary
    expect(called?.isBase64Encoded).toBe(host === 'lambda-buffered');
  });

  it('refuses a request naming a host it was not told about, as the Function URL passes the Host header on', async () => {
    const refused = await post(`${server().url}/mcp`, { ...AUTH, host: 'attacker.example' });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('MCP_ALLOWED_HOSTS');
  });
});

describe('on lambda, streamed', () => {
  it.each([
    ['2025-11-25', false],
    ['2026-07-28', true],
  ])("streams a call's SSE answer (%s): its progress reaches the client while the call still runs", async (_era, negotiate) => {
    const client = await connect('http', (servers.jobs as PlatformServer).url, { negotiate, headers: AUTH });
    try {
      upstream.clear();
      progressSeen = signal();
      const progress: number[] = [];
      const onprogress = (p: { progress: number }) => {
        progress.push(p.progress);
        progressSeen.resolve();
      };
      const result = await client.callTool({ name: 'startJob', arguments: {} }, { onprogress, timeout: 30_000 });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      expect(progress).toEqual([1]);
      // the upstream held its last answer until the client had the progress: the answer was not read whole first
      expect(JSON.stringify(result.content)).toContain('by the progress');
    } finally {
      await client.close();
    }
  });
});

/** An event's body as the client sent it. */
const bodyText = (event: Record<string, unknown>): string =>
  Buffer.from(String(event.body ?? ''), event.isBase64Encoded === true ? 'base64' : 'utf8').toString();

/** A POST of ping with any Host header (fetch sends its own). */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headersOut = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
    const req = request(url, { method: 'POST', headers: headersOut }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  });
}
