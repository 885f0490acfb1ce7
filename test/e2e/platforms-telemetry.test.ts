// OpenTelemetry export on the platforms' own runtimes (issue #40): the Petstore project generated
// with --target cloudflare,deno,lambda,vercel, served by workerd through `wrangler dev`, by `deno
// task start`, as the Lambda bundle under aws-lambda-ric and as the Vercel function
// (test/harness/function-url.ts, vercel-adapter.mts), each with
// OTEL_EXPORTER_OTLP_ENDPOINT naming a real OTLP/HTTP receiver of this test. The official SDK
// client calls a tool with a trace parent in `_meta` (SEP-414); the receiver must hold the call's
// spans (OTLP/HTTP JSON) by the time the answer arrives, since a platform may stop a request's
// work once it is answered, and the recording upstream the traceparent of its own span.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connect } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startDeno, startTogether, startVercel, startWrangler, writeLocalVariables, type PlatformServer } from '../harness/platforms.js';
import { petstoreForEveryPlatform, startLambda } from '../harness/function-url.js';
import { petAnswer, startUpstream, type Upstream } from '../harness/upstream.js';
import { CLIENT_KIND, SERVER_KIND, spanAttribute, type OtlpSpan } from '../harness/otlp.js';

const TOKEN = 'telemetry-token-1';
const API_KEY = 'key-telemetry-secret';
const SERVICE = 'petstore-traced';
const PLATFORMS = ['cloudflare', 'deno', 'lambda', 'vercel'] as const;
type Platform = (typeof PLATFORMS)[number];

let dir: string;
let upstream: Upstream;
/** What the receiver got at /v1/traces, with its content type. */
const exports: { contentType: string; body: string }[] = [];
let closeReceiver: () => Promise<void>;
const servers: Partial<Record<Platform, PlatformServer>> = {};
const clients: Client[] = [];

/** An OTLP/HTTP receiver on 127.0.0.1 that records each export and accepts it. */
async function startReceiver(): Promise<string> {
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces')
        exports.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  closeReceiver = () => new Promise((resolve) => receiver.close(() => resolve()));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  upstream = await startUpstream(petAnswer);
  const receiver = await startReceiver();
  let ric: string;
  ({ dir, ric } = await petstoreForEveryPlatform(join(tmpdir(), 'mcp-gen-e2e-platforms-telemetry')));
  const variables = {
    API_BASE_URL: `${upstream.url}/v2`,
    SWAGGER_PETSTORE_API_KEY: API_KEY,
    MCP_AUTH_TOKEN: TOKEN,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver,
    OTEL_SERVICE_NAME: SERVICE,
    LOG_LEVEL: 'warn',
  };
  writeLocalVariables(dir, variables);
  [servers.cloudflare, servers.deno, servers.lambda, servers.vercel] = await startTogether([
    startWrangler(dir, await freePort()),
    startDeno(dir, await freePort()),
    startLambda({ ric, taskRoot: join(dir, 'dist/lambda'), env: variables }),
    startVercel(dir, await freePort(), variables),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  await closeReceiver?.();
  await upstream?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Every span exported so far, with its service name. */
function exportedSpans(): (OtlpSpan & { service: string })[] {
  return exports.flatMap(({ body }) =>
    (
      JSON.parse(body) as { resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[] }
    ).resourceSpans.flatMap((resourceSpans) => {
      const service = resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
      return resourceSpans.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, service })));
    }),
  );
}

const attr = spanAttribute;

describe.each(PLATFORMS)('traces exported from %s', (platform) => {
  it("a call's spans reach the receiver before its answer: the tool span under the client's, the upstream span under it", async () => {
    const client = await connect('http', servers[platform]?.url as string, { headers: { authorization: `Bearer ${TOKEN}` } });
    clients.push(client);
    const traceId = randomBytes(16).toString('hex');
    const parentSpanId = randomBytes(8).toString('hex');
    upstream.clear();
    const result = await client.callTool({
      name: 'getPetById',
      arguments: { petId: 7 },
      _meta: { traceparent: `00-${traceId}-${parentSpanId}-01`, tracestate: 'vendor=abc' },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    // No waiting: the export went out before the answer.
    const spans = exportedSpans().filter((span) => span.traceId === traceId);
    expect(exports.every((e) => e.contentType.startsWith('application/json'))).toBe(true);
    const tool = spans.find((span) => span.kind === SERVER_KIND);
    const http = spans.find((span) => span.kind === CLIENT_KIND);
    expect(tool).toMatchObject({ name: 'tools/call getPetById', parentSpanId, service: SERVICE });
    expect(attr(tool!, 'gen_ai.tool.name')).toBe('getPetById');
    expect(http).toMatchObject({ name: 'GET /pet/{petId}', parentSpanId: tool?.spanId });
    expect(attr(http!, 'http.response.status_code')).toBe(200);
    // The upstream is told the upstream span as its parent, and the client's tracestate along.
    const received = upstream.requests.at(-1);
    expect(received?.headers.traceparent).toBe(`00-${traceId}-${http?.spanId}-01`);
    expect(received?.headers.tracestate).toBe('vendor=abc');
    // Spans carry no credential.
    expect(JSON.stringify(spans)).not.toContain(API_KEY);
  }, 60_000);
});
