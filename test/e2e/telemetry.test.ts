// Traces and the call log of a generated server, end to end: a real OTLP/HTTP receiver in the
// test decodes what the server exports (JSON.parse for http/json), the official SDK client calls
// tools over stdio (the parent in `_meta.traceparent`, SEP-414), Streamable HTTP (both protocol
// eras) and legacy SSE (the parent in the HTTP traceparent header), and the recording upstream
// shows the traceparent each request carried. Tracing off loads no OpenTelemetry module (a
// resolve hook in the server process records every module it loads) yet forwards an incoming
// traceparent; --log-calls writes one JSON line per call on stderr.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { buildProject, bundledSources, connect, generateProject, startServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-telemetry-'));
const SECRET_HEADER = 'sekret-header-value-7781';
const SECRET_ARG = 'pet-secret-arg-4242';
const SECRET_QUERY = 'query-secret-9393';
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Traced pets', version: '2.1.0' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        parameters: [
          { name: 'petId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'fields', in: 'query', schema: { type: 'string' } },
          // A header an agent could fill: the server's own trace context must win over it.
          { name: 'traceparent', in: 'header', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'A pet', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
};

/** What the receiver got at /v1/traces. */
interface Export {
  contentType: string;
  body: Buffer;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  status?: { code?: number };
}
const SERVER_KIND = 2;
const CLIENT_KIND = 3;

let upstream: Upstream;
let dir: string;
const exports: Export[] = [];
let collectorUrl: string;
const children = new Children();
const clients: Client[] = [];
let closeCollector: () => Promise<void>;

beforeAll(async () => {
  upstream = await startUpstream((req) =>
    req.path.endsWith('/missing') ? { status: 404, body: '{"message":"no such pet"}' } : { body: '{"name":"Rex"}' },
  );
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') exports.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  closeCollector = () => new Promise((resolve) => collector.close(() => resolve()));
  const spec = join(scratch, 'pets.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  dir = generateProject(spec, 'e2e-telemetry');
  await buildProject(dir);
}, 300_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await children.stopAll();
  await upstream?.close();
  await closeCollector?.();
});

const SERVER_ARGS = () => ['--base-url', upstream.url, '--header', `X-Api-Key: ${SECRET_HEADER}`];
const tracingEnv = (protocol = 'http/json'): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_BSP_SCHEDULE_DELAY: '50',
  OTEL_SERVICE_NAME: 'pets-under-test',
});

/** A fresh W3C parent: what an instrumented client would send. */
function parent(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Every span exported as JSON so far, with its service name. */
function jsonSpans(): (OtlpSpan & { service: string })[] {
  const spans: (OtlpSpan & { service: string })[] = [];
  for (const e of exports.filter((x) => x.contentType.includes('json'))) {
    const request = JSON.parse(e.body.toString('utf8')) as {
      resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
    };
    for (const rs of request.resourceSpans) {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
      for (const ss of rs.scopeSpans) for (const span of ss.spans) spans.push({ ...span, service });
    }
  }
  return spans;
}

/** The spans of one trace, once `count` of them have arrived (the server batches for 50 ms here). */
async function traceSpans(traceId: string, count: number): Promise<(OtlpSpan & { service: string })[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = jsonSpans().filter((s) => s.traceId === traceId);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
};

/** The upstream span's id from the traceparent the upstream received. */
const sentParent = (header: string | string[] | undefined) => /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(header));

async function stdioClient(options: { env?: Record<string, string>; args?: string[]; argv?: string[] } = {}): Promise<Client> {
  const client = await connect('stdio', dir, {
    args: [...SERVER_ARGS(), ...(options.args ?? [])],
    ...(options.env ? { env: options.env } : {}),
    ...(options.argv ? { argv: options.argv } : {}),
  });
  clients.push(client);
  return client;
}

describe('traces over OTLP/HTTP', () => {
  it('stdio: the tool span is the child of _meta.traceparent, the upstream span its child, and the upstream gets that span as parent', async () => {
    const client = await stdioClient({ env: tracingEnv() });
    const given = parent();
    upstream.clear();
    const result = await client.callTool({
      name: 'getPet',
      arguments: { petId: SECRET_ARG, fields: SECRET_QUERY, traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
      _meta: { traceparent: given.traceparent, tracestate: 'vendor=abc' },
    });
    expect(result.isError).toBeFalsy();

    const spans = await traceSpans(given.traceId, 2);
    const tool = spans.find((s) => s.kind === SERVER_KIND);
    const http = spans.find((s) => s.kind === CLIENT_KIND);
    expect(tool).toMatchObject({ name: 'tools/call getPet', parentSpanId: given.spanId, service: 'pets-under-test' });
    expect(attr(tool!, 'gen_ai.tool.name')).toBe('getPet');
    expect(attr(tool!, 'mcp.method.name')).toBe('tools/call');
    expect(attr(tool!, 'mcp.protocol.version')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(attr(tool!, 'error.type')).toBeUndefined();
    expect(http).toMatchObject({ name: 'GET /pets/{petId}', parentSpanId: tool!.spanId });
    expect(attr(http!, 'http.request.method')).toBe('GET');
    expect(attr(http!, 'url.template')).toBe('/pets/{petId}');
    expect(attr(http!, 'server.address')).toBe('127.0.0.1');
    expect(attr(http!, 'http.response.status_code')).toBe(200);
    expect(attr(http!, 'http.request.resend_count')).toBeUndefined();

    // One traceparent upstream, naming the upstream span (the agent's argument did not win), and the tracestate along.
    const received = upstream.requests[0]!;
    expect(sentParent(received.headers.traceparent)?.slice(1)).toEqual([given.traceId, http!.spanId]);
    expect(received.headers.tracestate).toBe('vendor=abc');
    // The span carries no argument value, query value or header.
    const exported = JSON.stringify(spans);
    for (const secret of [SECRET_ARG, SECRET_QUERY, SECRET_HEADER]) expect(exported).not.toContain(secret);
  }, 60_000);

  it('an upstream refusal marks the upstream span and the tool span as errors', async () => {
    const client = await stdioClient({ env: tracingEnv() });
    const given = parent();
    const result = await client.callTool({ name: 'getPet', arguments: { petId: 'missing' }, _meta: { traceparent: given.traceparent } });
    expect(result.isError).toBe(true);
    const spans = await traceSpans(given.traceId, 2);
    const tool = spans.find((s) => s.kind === SERVER_KIND)!;
    const http = spans.find((s) => s.kind === CLIENT_KIND)!;
    expect(attr(http, 'http.response.status_code')).toBe(404);
    expect(attr(http, 'error.type')).toBe('404');
    expect(attr(tool, 'error.type')).toBe('tool_error');
    expect(tool.status?.code).toBe(2); // STATUS_CODE_ERROR
  }, 60_000);

  it('code mode: each api call of an execute is an upstream span under the execute span', async () => {
    const client = await stdioClient({ env: tracingEnv(), args: ['--tools', 'code'] });
    const given = parent();
    upstream.clear();
    const code = 'const a = await api.getPet({ petId: "one" }); const b = await api.getPet({ petId: "two" }); return [a.name, b.name];';
    const result = await client.callTool({ name: 'execute', arguments: { code }, _meta: { traceparent: given.traceparent } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const spans = await traceSpans(given.traceId, 3);
    const execute = spans.find((s) => s.kind === SERVER_KIND)!;
    expect(execute).toMatchObject({ name: 'tools/call execute', parentSpanId: given.spanId });
    const calls = spans.filter((s) => s.kind === CLIENT_KIND);
    expect(calls.map((s) => [s.name, s.parentSpanId])).toEqual([
      ['GET /pets/{petId}', execute.spanId],
      ['GET /pets/{petId}', execute.spanId],
    ]);
    // Each request named its own span as parent.
    expect(upstream.requests.map((r) => sentParent(r.headers.traceparent)?.[2])).toEqual(calls.map((s) => s.spanId));
  }, 60_000);

  it.each([
    ['2025-11-25 sessions', false],
    ['2026-07-28, stateless', true],
  ] as const)(
    'Streamable HTTP (%s): the parent comes from the HTTP traceparent header',
    async (_label, negotiate) => {
      const server = await startServer(dir, 'http', SERVER_ARGS(), tracingEnv());
      children.track(server.process);
      const given = parent();
      const client = await connect('http', server.url, { negotiate, headers: { traceparent: given.traceparent } });
      clients.push(client);
      upstream.clear();
      const result = await client.callTool({ name: 'getPet', arguments: { petId: 'rex' } });
      expect(result.isError).toBeFalsy();
      const spans = await traceSpans(given.traceId, 2);
      const tool = spans.find((s) => s.kind === SERVER_KIND)!;
      const http = spans.find((s) => s.kind === CLIENT_KIND)!;
      expect(tool).toMatchObject({ name: 'tools/call getPet', parentSpanId: given.spanId });
      expect(http.parentSpanId).toBe(tool.spanId);
      expect(attr(tool, 'mcp.protocol.version')).toBe(negotiate ? '2026-07-28' : '2025-11-25');
      expect(sentParent(upstream.requests[0]!.headers.traceparent)?.slice(1)).toEqual([given.traceId, http.spanId]);
      await server.stop();
    },
    60_000,
  );

  it('legacy SSE: the parent comes from the traceparent header of the POST that carried the call', async () => {
    const server = await startServer(dir, 'sse', SERVER_ARGS(), tracingEnv());
    children.track(server.process);
    const given = parent();
    const client = await connect('sse', server.url, { headers: { traceparent: given.traceparent } });
    clients.push(client);
    const result = await client.callTool({ name: 'getPet', arguments: { petId: 'rex' } });
    expect(result.isError).toBeFalsy();
    const spans = await traceSpans(given.traceId, 2);
    expect(spans.find((s) => s.kind === SERVER_KIND)).toMatchObject({ name: 'tools/call getPet', parentSpanId: given.spanId });
    await server.stop();
  }, 60_000);

  it('--log-calls with tracing: the line names the trace of the spans, a new one when the call brought none', async () => {
    const client = await stdioClient({ env: tracingEnv(), args: ['--log-calls'] });
    const stderr = (client.transport as StdioClientTransport).stderr!;
    let text = '';
    stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex' } });
    const deadline = Date.now() + 10_000;
    while (!text.includes('"event":"tools/call"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const line = JSON.parse(text.split('\n').find((l) => l.includes('"event":"tools/call"'))!) as { traceId: string };
    expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await traceSpans(line.traceId, 2);
    expect(spans.map((s) => s.kind).sort()).toEqual([SERVER_KIND, CLIENT_KIND]);
    expect(spans.find((s) => s.kind === SERVER_KIND)!.parentSpanId ?? '').toBe('');
  }, 60_000);

  it('spans still buffered are exported when the client closes the server (stdin ends)', async () => {
    const client = await stdioClient({ env: { ...tracingEnv(), OTEL_BSP_SCHEDULE_DELAY: '600000' } });
    const given = parent();
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex' }, _meta: { traceparent: given.traceparent } });
    await new Promise((r) => setTimeout(r, 300));
    expect(jsonSpans().filter((s) => s.traceId === given.traceId)).toEqual([]); // held by the ten-minute batch
    await client.close();
    expect((await traceSpans(given.traceId, 2)).length).toBe(2);
  }, 60_000);

  it('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alone is enough, taken as the full URL', async () => {
    const { OTEL_EXPORTER_OTLP_ENDPOINT: base, ...rest } = tracingEnv();
    const client = await stdioClient({ env: { ...rest, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/v1/traces` } });
    const given = parent();
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex' }, _meta: { traceparent: given.traceparent } });
    expect((await traceSpans(given.traceId, 2)).length).toBe(2);
  }, 60_000);

  it('gRPC, which this server cannot send, turns tracing off with one line saying so', async () => {
    const client = await stdioClient({ env: { ...tracingEnv(), OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } });
    let text = '';
    (client.transport as StdioClientTransport).stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const given = parent();
    upstream.clear();
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex' }, _meta: { traceparent: given.traceparent } });
    expect(upstream.requests[0]!.headers.traceparent).toBe(given.traceparent); // forwarded as with tracing off
    await client.close();
    expect(text).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc: this server sends http\/protobuf or http\/json only; traces are off/);
    expect(jsonSpans().filter((s) => s.traceId === given.traceId)).toEqual([]);
  }, 60_000);

  it("a client's 1 MB JSON-RPC id is exported cut, as the tool name is", async () => {
    // A raw client on the SDK's stdio transport: the SDK's Client numbers its requests itself.
    const transport = new StdioClientTransport({
      command: 'node',
      args: [join(dir, 'dist/main.js'), ...SERVER_ARGS()],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...tracingEnv() },
      stderr: 'pipe',
    });
    const answered = new Map<string | number, JSONRPCMessage>();
    transport.onmessage = (message) => {
      if ('id' in message && message.id !== undefined) answered.set(message.id, message);
    };
    const answer = async (id: string | number) => {
      const deadline = Date.now() + 15_000;
      while (!answered.has(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return answered.get(id);
    };
    await transport.start();
    try {
      const clientInfo = { name: 'raw', version: '1' };
      await transport.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
      });
      expect(await answer(1)).toHaveProperty('result');
      await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const given = parent();
      const id = `call-${'x'.repeat(1_048_576)}`;
      const params = { name: 'getPet', arguments: { petId: 'rex' }, _meta: { traceparent: given.traceparent } };
      await transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params });
      expect(await answer(id)).toHaveProperty('result');
      const tool = (await traceSpans(given.traceId, 2)).find((s) => s.kind === SERVER_KIND)!;
      expect(attr(tool, 'jsonrpc.request.id')).toBe(id.slice(0, 128));
    } finally {
      await transport.close();
    }
  }, 60_000);

  it('protobuf is the default protocol (the OTel specification default)', async () => {
    const { OTEL_EXPORTER_OTLP_PROTOCOL: _json, ...env } = tracingEnv();
    const client = await stdioClient({ env });
    const given = parent();
    const before = exports.length;
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex' }, _meta: { traceparent: given.traceparent } });
    const deadline = Date.now() + 15_000;
    const traceBytes = Buffer.from(given.traceId, 'hex');
    const carries = () => exports.slice(before).some((e) => e.contentType === 'application/x-protobuf' && e.body.includes(traceBytes));
    while (!carries() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(carries()).toBe(true);
  }, 60_000);
});

describe('tracing off', () => {
  /** A resolve hook that appends every module URL the server process loads to a file. */
  function recordingLoads(): { argv: string[]; env: Record<string, string>; loaded: () => string[] } {
    const log = join(scratch, `loaded-${randomBytes(4).toString('hex')}.txt`);
    const hooks = join(scratch, 'record-hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LOADED_MODULES_FILE, resolved.url + '\\n');
  return resolved;
}`,
    );
    const register = join(scratch, 'record-loads.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    return {
      argv: ['--import', pathToFileURL(register).href, join(dir, 'dist/main.js'), ...SERVER_ARGS()],
      env: { LOADED_MODULES_FILE: log },
      // the server is the project's bundle: each file loaded stands for the modules its build put in it
      loaded: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []).flatMap((url) => bundledSources(url)),
    };
  }

  it('loads no OpenTelemetry module, and forwards the incoming traceparent unchanged', async () => {
    const off = recordingLoads();
    const client = await stdioClient({ argv: off.argv, env: off.env });
    const given = parent();
    upstream.clear();
    const result = await client.callTool({
      name: 'getPet',
      arguments: { petId: 'rex', traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
      _meta: { traceparent: given.traceparent, tracestate: 'vendor=abc' },
    });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests[0]!.headers.traceparent).toBe(given.traceparent);
    expect(upstream.requests[0]!.headers.tracestate).toBe('vendor=abc');
    const loaded = off.loaded();
    expect(loaded.some((url) => url.includes('lib/runtime/mcp/server.js'))).toBe(true); // the hook saw the server's modules
    expect(loaded.filter((url) => url.includes('@opentelemetry') || url.includes('/runtime/observe/telemetry.js'))).toEqual([]);
  }, 60_000);

  it('the same hook sees the OpenTelemetry modules when an endpoint is set', async () => {
    const on = recordingLoads();
    const client = await stdioClient({ argv: on.argv, env: { ...on.env, ...tracingEnv() } });
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex' } });
    const loaded = on.loaded();
    expect(loaded.some((url) => url.includes('/runtime/observe/telemetry.js'))).toBe(true);
    expect(loaded.some((url) => url.includes('@opentelemetry/sdk-trace-base'))).toBe(true);
  }, 60_000);

  it('without any trace context, an agent-given traceparent argument goes as given', async () => {
    const client = await stdioClient();
    upstream.clear();
    const own = '00-11111111111111111111111111111111-2222222222222222-01';
    await client.callTool({ name: 'getPet', arguments: { petId: 'rex', traceparent: own } });
    expect(upstream.requests[0]!.headers.traceparent).toBe(own);
  }, 60_000);
});

describe('--log-calls', () => {
  /** The JSON lines the server wrote on stderr, once `count` have come. */
  async function callLines(client: Client, count: number): Promise<Record<string, unknown>[]> {
    const stderr = (client.transport as StdioClientTransport).stderr!;
    const deadline = Date.now() + 10_000;
    let text = '';
    stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const lines = () =>
      text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    while (lines().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return lines();
  }

  it('writes one JSON line per call on stderr: tool, outcome, duration, upstream status, attempts, trace id; no argument or secret', async () => {
    const client = await stdioClient({ args: ['--log-calls'] });
    const given = parent();
    await client.callTool({
      name: 'getPet',
      arguments: { petId: SECRET_ARG, fields: SECRET_QUERY },
      _meta: { traceparent: given.traceparent },
    });
    await client.callTool({ name: 'getPet', arguments: { petId: 'missing' } });
    await client.callTool({ name: 'getPet', arguments: {} }); // refused before any request
    const [ok, refused, invalid] = await callLines(client, 3);
    expect(ok).toMatchObject({
      event: 'tools/call',
      tool: 'getPet',
      outcome: 'ok',
      upstream: [{ method: 'GET', route: '/pets/{petId}', status: 200 }],
      attempts: 1,
      retries: 0,
      traceId: given.traceId,
    });
    expect(typeof ok!.durationMs).toBe('number');
    expect(Date.parse(String(ok!.time))).toBeGreaterThan(0);
    expect(refused).toMatchObject({ outcome: 'error', upstream: [{ status: 404 }], attempts: 1 });
    expect(refused!.traceId).toBeUndefined();
    expect(invalid).toMatchObject({ outcome: 'error', upstream: [], attempts: 0 });
    for (const secret of [SECRET_ARG, SECRET_QUERY, SECRET_HEADER]) expect(JSON.stringify([ok, refused, invalid])).not.toContain(secret);
  }, 60_000);
});
