// Retries that respect the API, and the pace of requests per API origin, end to end: a
// generated server driven by the official SDK client (stdio, and Streamable HTTP), against a
// local upstream that answers 429 with Retry-After, 503, resets connections, counts the tries
// of each request and the requests in flight. GET is tried again, a POST without an
// Idempotency-Key is not, a POST whose operation declares one is, with the same key every time;
// no wait runs past the call's --timeout, and a client's cancellation ends a wait.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_LEVEL_META_KEY, type Client, type CallToolResult } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildProject, connect, generateProject, startServer, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';
import { textOf } from '../harness/wire.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-retries-'));
const json = { 'application/json': { schema: { type: 'object' } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Flaky', version: '1' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'the item', content: json } },
      },
    },
    '/orders': {
      post: {
        operationId: 'createOrder',
        requestBody: { content: json },
        responses: { '201': { description: 'created', content: json } },
      },
    },
    '/payments': {
      post: {
        operationId: 'createPayment',
        parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } }],
        requestBody: { content: json },
        responses: { '201': { description: 'created', content: json } },
      },
    },
  },
};

/** What the upstream answers to each path, in turn; a path with nothing (left) scripted gets 200. */
const scripts = new Map<string, Answer[]>();
const script = (path: string, ...answers: Answer[]) => void scripts.set(path, answers);
const busy = (headers: Record<string, string> = {}): Answer => ({ status: 503, headers, body: '{"error":"busy"}' });
/** Requests in flight under /slow/, the most seen at once, and when each arrived. */
const slow = { inFlight: 0, most: 0, arrivals: [] as number[] };

let upstream: Upstream;
let dir: string;
let http: RunningServer;
const clients: Client[] = [];
const children = new Children();

beforeAll(async () => {
  upstream = await startUpstream(async (req) => {
    if (req.path.startsWith('/items/slow-')) return slowly();
    const next = scripts.get(req.path)?.shift();
    return next ?? { status: req.method === 'POST' ? 201 : 200, body: JSON.stringify({ ok: true, path: req.path }) };
  });
  const spec = join(scratch, 'flaky.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  dir = generateProject(spec, 'e2e-retries');
  await buildProject(dir);
  http = await startServer(dir, 'http', ['--base-url', upstream.url, '--timeout', '5000']);
  children.track(http.process);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all([children.stopAll(), upstream?.close()]);
});

async function slowly(): Promise<Answer> {
  slow.arrivals.push(Date.now());
  slow.most = Math.max(slow.most, ++slow.inFlight);
  await new Promise((r) => setTimeout(r, 200));
  slow.inFlight--;
  return { body: '{"ok":true}' };
}

/** A stdio client of the generated server with these settings, and what the server logs. */
async function stdio(...args: string[]): Promise<{ client: Client; log: () => string }> {
  const client = await connect('stdio', dir, { args: ['--base-url', upstream.url, ...args] });
  clients.push(client);
  let log = '';
  (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  return { client, log: () => log };
}

const triesOf = (path: string): Recorded[] => upstream.requests.filter((r) => r.path === path);
const call = (client: Client, name: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}) =>
  client.callTool({ name, arguments: args }, options) as Promise<CallToolResult>;
async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe('over stdio, 2 retries by default', () => {
  let client: Client;
  let log: () => string;
  beforeAll(async () => {
    ({ client, log } = await stdio('--timeout', '5000'));
  });

  it('a GET answered 429 with Retry-After: 1 is tried again after that second, and its answer comes back', async () => {
    script('/items/rate-1', { status: 429, headers: { 'retry-after': '1' }, body: '{"error":"slow down"}' });
    const { value: result, ms } = await timed(call(client, 'getItem', { id: 'rate-1' }));
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true, path: '/items/rate-1' });
    expect(triesOf('/items/rate-1')).toHaveLength(2);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(log()).toContain('getItem (GET /items/{id}): try 1 of 3 got HTTP 429; trying again in 1000 ms (Retry-After)');
    // the route template, never the argument's value
    expect(log()).not.toContain('rate-1');
  });

  it('a GET answered 503 twice is tried a third time, on the same connection', async () => {
    script('/items/busy-2', busy(), busy());
    const result = await call(client, 'getItem', { id: 'busy-2' });
    expect(result.isError, textOf(result)).toBeFalsy();
    // the 503s' bodies are read to their end, so the connection is kept for the next try
    expect(new Set(triesOf('/items/busy-2').map((r) => r.clientPort)).size).toBe(1);
    expect(triesOf('/items/busy-2')).toHaveLength(3);
    expect(log()).toMatch(/getItem \(GET \/items\/\{id\}\): try 2 of 3 got HTTP 503; trying again in \d+ ms\n/);
  });

  it('a GET whose connection is reset is tried again', async () => {
    script('/items/reset-1', { reset: true }, { reset: true });
    const result = await call(client, 'getItem', { id: 'reset-1' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true, path: '/items/reset-1' });
    expect(log()).toMatch(/getItem \(GET \/items\/\{id\}\): try 1 of 3 got ECONNRESET; trying again in \d+ ms/);
  });

  it('a GET answered 503 on every try comes back as the 503, saying so', async () => {
    script('/items/down', busy(), busy(), busy(), busy());
    const result = await call(client, 'getItem', { id: 'down' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^HTTP 503 Service Unavailable from GET http:\/\/127\.0\.0\.1:\d+\/items\/down\n\{"error":"busy"\}\nThe API answered HTTP 503 to all 3 tries\.$/,
    );
    expect(triesOf('/items/down')).toHaveLength(3);
  });

  it('a POST without an Idempotency-Key is sent once: its 503 comes back', async () => {
    script('/orders', busy());
    const before = triesOf('/orders').length;
    const result = await call(client, 'createOrder', { body: { sku: 'a' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^HTTP 503 Service Unavailable from POST http:\/\/127\.0\.0\.1:\d+\/orders\n\{"error":"busy"\}$/);
    expect(triesOf('/orders').length - before).toBe(1);
    scripts.delete('/orders');
  });

  it('a POST whose operation declares Idempotency-Key is tried again with the same key, generated when the agent gave none', async () => {
    upstream.clear();
    script('/payments', busy(), busy());
    const result = await call(client, 'createPayment', { body: { amount: 5 } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const keys = triesOf('/payments').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(triesOf('/payments').map((r) => r.body.toString())).toEqual(Array(3).fill('{"amount":5}'));

    // the agent's own key is the one sent, every time; a new call gets a new generated key
    upstream.clear();
    script('/payments', busy());
    await call(client, 'createPayment', { 'Idempotency-Key': 'order-77', body: { amount: 5 } });
    expect(triesOf('/payments').map((r) => r.headers['idempotency-key'])).toEqual(['order-77', 'order-77']);
    upstream.clear();
    await call(client, 'createPayment', { body: { amount: 5 } });
    expect(triesOf('/payments')[0]?.headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('a Retry-After longer than the time left is not slept: the 429 comes back at once, naming the wait', async () => {
    script('/items/rate-30', { status: 429, headers: { 'retry-after': '30' }, body: '{"error":"slow down"}' });
    const { value: result, ms } = await timed(call(client, 'getItem', { id: 'rate-30' }));
    expect(ms).toBeLessThan(1_000);
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^HTTP 429 Too Many Requests from GET http:\/\/127\.0\.0\.1:\d+\/items\/rate-30\n\{"error":"slow down"\}\n/);
    expect(text).toMatch(
      /Not tried again: the API asked to wait 30 s \(Retry-After\), longer than the (4\.\d|5) s left of this call's time limit \(--timeout\)\.$/,
    );
    expect(triesOf('/items/rate-30')).toHaveLength(1);
  });

  it("a client's cancellation ends a wait: nothing more is sent", async () => {
    script('/items/rate-2', { status: 429, headers: { 'retry-after': '2' } });
    const cancel = new AbortController();
    const pending = call(client, 'getItem', { id: 'rate-2' }, { signal: cancel.signal });
    await new Promise((r) => setTimeout(r, 300));
    cancel.abort();
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 2_300));
    expect(triesOf('/items/rate-2')).toHaveLength(1);
  });
});

describe("the client's log (logging/setLevel, 2025-11-25)", () => {
  /** A client that set `level` (unless undefined) and keeps the notifications/message it gets. */
  async function logging(level: 'info' | 'error' | undefined, negotiate = false) {
    const client = await connect('stdio', dir, { args: ['--base-url', upstream.url, '--timeout', '5000'], negotiate });
    clients.push(client);
    const messages: { level: string; data: unknown }[] = [];
    client.setNotificationHandler('notifications/message', (n) => void messages.push({ level: n.params.level, data: n.params.data }));
    if (level !== undefined) await client.setLoggingLevel(level);
    return { client, messages };
  }
  const settle = () => new Promise((r) => setTimeout(r, 300));

  it('at level info, a retried call tells the API error (warning) and the wait before the next try (info); no argument value', async () => {
    const { client, messages } = await logging('info');
    script('/items/logged-secret-id', busy());
    const result = await call(client, 'getItem', { id: 'logged-secret-id' });
    expect(result.isError, textOf(result)).toBeFalsy();
    await settle();
    expect(messages).toEqual([
      { level: 'warning', data: 'GET /items/{id} answered HTTP 503' },
      { level: 'info', data: expect.stringMatching(/^getItem \(GET \/items\/\{id\}\): try 1 of 3 got HTTP 503; trying again in \d+ ms$/) },
    ]);
    expect(JSON.stringify(messages)).not.toContain('logged-secret-id');
  });

  it('at most five messages per call: an API that fails every try is told in five', async () => {
    const { client, messages } = await logging('info');
    script('/items/always-busy', busy(), busy(), busy());
    expect((await call(client, 'getItem', { id: 'always-busy' })).isError).toBe(true);
    await settle();
    expect(messages).toHaveLength(5);
    expect(String(messages[4]?.data)).toMatch(/no more messages from this call\)$/);
  });

  it('at level error nothing of a retried call is sent, nor to a client that set no level', async () => {
    for (const level of ['error', undefined] as const) {
      const { client, messages } = await logging(level);
      script('/items/quiet', busy());
      expect((await call(client, 'getItem', { id: 'quiet' })).isError).toBeFalsy();
      await settle();
      expect(messages).toEqual([]);
    }
  });

  it('a 2026-07-28 client, where logging is deprecated, gets nothing even when its request names a level', async () => {
    const { client, messages } = await logging(undefined, true);
    script('/items/modern', busy());
    const result = await client.callTool({ name: 'getItem', arguments: { id: 'modern' }, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } });
    expect(result.isError).toBeFalsy();
    await settle();
    expect(messages).toEqual([]);
  });
});

describe('the time limit bounds every call', () => {
  it('an API that keeps asking for a second gets tries until the next wait would pass --timeout, and no longer', async () => {
    const { client } = await stdio('--timeout', '2500', '--retries', '10');
    const always = { status: 503, headers: { 'retry-after': '1' }, body: '{"error":"busy"}' };
    script('/items/always', always, always, always, always, always, always);
    const { value: result, ms } = await timed(call(client, 'getItem', { id: 'always' }));
    // the server's own work and the stdio round trip on a busy machine are the margin
    expect(ms).toBeLessThan(2_500 + 700);
    expect(ms).toBeGreaterThanOrEqual(1_950);
    expect(triesOf('/items/always')).toHaveLength(3);
    expect(textOf(result)).toMatch(/Not tried again: the API asked to wait 1 s \(Retry-After\), longer than the \d+ ms left/);
  });

  it('--retries 0: nothing is tried again', async () => {
    const { client } = await stdio('--retries', '0');
    script('/items/once', busy());
    const result = await call(client, 'getItem', { id: 'once' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).not.toContain('tries');
    expect(triesOf('/items/once')).toHaveLength(1);
    // nor is a key made up for a POST that will not be retried
    upstream.clear();
    await call(client, 'createPayment', { body: { amount: 1 } });
    expect(triesOf('/payments')[0]?.headers['idempotency-key']).toBeUndefined();
  });
});

describe('pacing per API origin', () => {
  it('--max-concurrent-requests 2: six parallel calls, never more than two requests in flight', async () => {
    const { client, log } = await stdio('--max-concurrent-requests', '2');
    Object.assign(slow, { inFlight: 0, most: 0, arrivals: [] });
    const { value: results, ms } = await timed(Promise.all([1, 2, 3, 4, 5, 6].map((n) => call(client, 'getItem', { id: `slow-${n}` }))));
    expect(results.map((r) => r.isError ?? false)).toEqual(Array(6).fill(false));
    expect(slow.most).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(3 * 200 - 20);
    expect(log()).toContain('waiting for a request slot');
  });

  it('--rate-limit 0.5 with --timeout 1500: a call whose turn would come after its time is refused at once, naming the setting', async () => {
    const { client } = await stdio('--rate-limit', '0.5', '--timeout', '1500');
    Object.assign(slow, { inFlight: 0, most: 0, arrivals: [] });
    const [first, second] = await Promise.all([
      timed(call(client, 'getItem', { id: 'slow-a' })),
      timed(call(client, 'getItem', { id: 'slow-b' })),
    ]);
    const refused = [first, second].filter((r) => r.value.isError);
    expect(refused).toHaveLength(1);
    expect(textOf((refused[0] as { value: CallToolResult }).value)).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/items\/slow-[ab]: not sent: the rate limit \(--rate-limit 0\.5 per second to http:\/\/127\.0\.0\.1:\d+\) would hold it 2 s, longer than the 1\.\d s left of the call's time$/,
    );
    expect(slow.arrivals).toHaveLength(1);
    // refused without waiting: neither its turn (2 s) nor its time limit (1.5 s) was waited for
    expect((refused[0] as { ms: number }).ms).toBeLessThan(1_000);
  });

  it('--rate-limit 5: parallel calls reach the API 200 ms apart', async () => {
    const { client } = await stdio('--rate-limit', '5');
    Object.assign(slow, { inFlight: 0, most: 0, arrivals: [] });
    const results = await Promise.all([1, 2, 3, 4].map((n) => call(client, 'getItem', { id: `slow-r${n}` })));
    expect(results.map((r) => r.isError ?? false)).toEqual(Array(4).fill(false));
    const gaps = slow.arrivals.slice(1).map((at, i) => at - (slow.arrivals[i] as number));
    expect(gaps).toHaveLength(3);
    // the API's own timing (a new connection for the first) moves one arrival a little, never the pace
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(120);
    expect((slow.arrivals[3] as number) - (slow.arrivals[0] as number)).toBeGreaterThanOrEqual(3 * 200 - 80);
  });
});

describe('over Streamable HTTP (2026-07-28), and in code mode', () => {
  it('a GET answered 503 twice, and a keyed POST, are tried again; the log shows each try', async () => {
    const client = await connect('http', http.url, { negotiate: true });
    clients.push(client);
    script('/items/http-busy', busy(), busy());
    const result = await call(client, 'getItem', { id: 'http-busy' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(triesOf('/items/http-busy')).toHaveLength(3);
    upstream.clear();
    script('/payments', { reset: true }, busy({ 'retry-after': '0' }));
    const paid = await call(client, 'createPayment', { body: { amount: 9 } });
    expect(paid.isError, textOf(paid)).toBeFalsy();
    const keys = triesOf('/payments').map((r) => r.headers['idempotency-key']);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(new Set(keys).size).toBe(1);
    expect(http.stderr()).toMatch(/createPayment \(POST \/payments\): try \d of 3 got HTTP 503; trying again in 0 ms \(Retry-After\)/);
  });

  it("code mode's api calls go through the same retries", async () => {
    const { client } = await stdio('--tools', 'code');
    script('/items/code-busy', busy());
    const result = await call(client, 'execute', { code: 'return (await api.getItem({ id: "code-busy" })).path;' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ result: '/items/code-busy' });
    expect(triesOf('/items/code-busy')).toHaveLength(2);
  });
});
