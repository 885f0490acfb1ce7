// Serving that holds: many concurrent sessions, fuzzed arguments, upstream faults and the
// HTTP guards, all against a generated Petstore server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 't', SWAGGER_PETSTORE_API_KEY: 'k' };
let dir: string;
let upstream: Server;
let base: string;
let http: RunningServer;
let faulty: RunningServer; // --timeout 1000, for the fault cases
const BIG = Buffer.alloc(50 * 1024 * 1024, 'a');

beforeAll(async () => {
  // The upstream echoes the pet id, or misbehaves as the id asks.
  upstream = createServer((req, res) => {
    // /user/<fault> misbehaves; /pet/<id> echoes the id
    const id = /\/(?:pet|user)\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '';
    if (id === 'hang') return; // never answers
    if (id === 'reset') return req.socket.destroy();
    if (id === '503') return res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
    if (id === 'badjson') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": 1,');
    if (id === 'huge') return res.writeHead(200, { 'content-type': 'application/json' }).end(BIG);
    if (id === 'drip') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`;
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-serving');
  await buildProject(dir);
  [http, faulty] = await Promise.all([
    startServer(dir, 'http', ['--base-url', base, '--max-request-bytes', '10000'], SECRETS),
    startServer(dir, 'http', ['--base-url', base, '--timeout', '1000'], SECRETS),
  ]);
});

afterAll(async () => {
  await Promise.all([http?.stop(), faulty?.stop()]);
  upstream?.closeAllConnections();
  upstream?.close();
});

const text = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';

describe('concurrency', () => {
  it('200 sessions × 5 calls: no errors, every answer goes to the session that asked', async () => {
    const sessions = await Promise.all(Array.from({ length: 200 }, () => connect('http', http.url)));
    try {
      const outcomes = await Promise.all(
        sessions.map(async (client, i) => {
          const got: number[] = [];
          for (let k = 0; k < 5; k++) {
            const r = await client.callTool({ name: 'getPetById', arguments: { petId: 10_000 + 1000 * i + k } });
            if (r.isError) throw new Error(text(r));
            got.push((r.structuredContent as { id: number }).id);
          }
          return got.every((id, k) => id === 10_000 + 1000 * i + k);
        }),
      );
      expect(outcomes.every(Boolean)).toBe(true);
    } finally {
      await Promise.all(sessions.map((c) => c.close()));
    }
  });

  it('50 stateless 2026-07-28 clients × 5 calls', async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => connect('http', http.url, { negotiate: true })));
    try {
      const ids = await Promise.all(
        clients.map(async (client, i) => {
          const results = await Promise.all(
            [0, 1, 2, 3, 4].map((k) => client.callTool({ name: 'getPetById', arguments: { petId: 10_000 + 100 * i + k } })),
          );
          return results.map((r) => (r.structuredContent as { id: number } | undefined)?.id ?? text(r));
        }),
      );
      ids.forEach((got, i) => expect(got).toEqual([0, 1, 2, 3, 4].map((k) => 10_000 + 100 * i + k)));
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe('fuzzing', () => {
  it('10,000 seeded random argument sets: invalid ones are named tool errors, the server stays up', async () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const junk = (depth = 0): unknown =>
      pick<() => unknown>([
        () => Math.floor(rand() * 2e9) - 1e9,
        () => rand(),
        () => 'x'.repeat(Math.floor(rand() * 2000)),
        () => '\u0000\u2028"\'`${}../%2e',
        () => null,
        () => true,
        () => 'NaN',
        () => (depth < 3 ? [junk(depth + 1), junk(depth + 1)] : []),
        () => (depth < 3 ? { a: junk(depth + 1), petId: junk(depth + 1) } : {}),
      ])();
    const client = await connect('stdio', dir, { env: SECRETS, args: ['--base-url', base, '--timeout', '1000', '--log-level', 'silent'] });
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      const argNames = ['petId', 'status', 'tags', 'body', 'username', 'orderId', 'api_key', 'password', 'name', 'zzz'];
      let invalid = 0;
      for (let batch = 0; batch < 500; batch++) {
        const results = await Promise.all(
          Array.from({ length: 20 }, () => {
            const args: Record<string, unknown> = {};
            for (let n = Math.floor(rand() * 4); n > 0; n--) args[pick(argNames)] = junk();
            return client.callTool({ name: pick(names), arguments: args }).then(
              (r) => ({ ok: true as const, r }),
              (e: { code?: number }) => ({ ok: false as const, code: e.code }),
            );
          }),
        );
        for (const outcome of results) {
          if (!outcome.ok) {
            expect(outcome.code).toBe(-32602);
            continue;
          }
          if (outcome.r.isError && text(outcome.r).startsWith('Invalid arguments')) {
            invalid++;
            expect(text(outcome.r)).toMatch(/argument/);
          }
        }
      }
      expect(invalid).toBeGreaterThan(5_000);
      const still = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
      expect(still.structuredContent).toEqual({ id: 1, name: 'pet-1', photoUrls: [] });
    } finally {
      await client.close();
    }
  }, 180_000);
});

describe('upstream faults', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect('http', faulty.url);
  });
  afterAll(async () => client?.close());
  const user = (username: string) => client.callTool({ name: 'getUserByName', arguments: { username } });

  const faults: [string, string, RegExp][] = [
    ['a hang past the timeout', 'hang', /no answer within 1000 ms/],
    ['a connection reset', 'reset', /request failed/],
    ['a 503', '503', /HTTP 503[\s\S]*down for maintenance/],
    ['a slow drip', 'drip', /no answer within 1000 ms/],
  ];
  it.each(faults)('%s → isError within the timeout', async (_name, id, message) => {
    const started = Date.now();
    const r = await user(id);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('invalid JSON where the spec promises JSON: a tool error that shows the body', async () => {
    const r = await user('badjson');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/not the JSON the spec documents:\n\{"id": 1,$/);
  });

  it('a 50 MB body is cut to --max-response-bytes, and memory stays bounded', async () => {
    const r = await user('huge');
    expect(text(r).length).toBeLessThan(263_000);
    expect(text(r).slice(-200)).toMatch(/response truncated: showing the first 262144 bytes of (52428800 bytes|more)/);
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${faulty.process.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    expect(rss).toBeLessThan(400);
  });

  it('answers normally after all of that', async () => {
    const r = await client.callTool({ name: 'getPetById', arguments: { petId: 5 } });
    expect(r.structuredContent).toEqual({ id: 5, name: 'pet-5', photoUrls: [] });
  });
});

describe('HTTP guards', () => {
  const post = (headers: Record<string, string>, body = '{}') =>
    fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('rejects a foreign Host or Origin (DNS rebinding), a too large body, a wrong media type', async () => {
    // fetch will not send a forged Host header; node:http will
    const { request } = await import('node:http');
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${http.url}/mcp`,
        {
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(initialize);
    });
    expect(hostStatus).toBe(403);
    expect((await post({ origin: 'http://evil.example' }, initialize)).status).toBe(403);
    expect((await post({}, JSON.stringify({ pad: 'x'.repeat(20_000) }))).status).toBe(413);
    expect((await post({ 'content-type': 'text/plain' }, initialize)).status).toBe(415);
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
  });

  it('sessions: unknown id → 404, DELETE ends one', async () => {
    expect((await post({ 'mcp-session-id': 'nope' }, initialize)).status).toBe(404);
    const opened = await post({}, initialize);
    const id = opened.headers.get('mcp-session-id') ?? '';
    expect(id).not.toBe('');
    await opened.text();
    const del = await fetch(`${http.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(del.status).toBe(200);
    expect((await post({ 'mcp-session-id': id }, initialize)).status).toBe(404);
  });

  it('no CORS headers unless origins are configured', async () => {
    const r = await post({ origin: 'http://localhost:5173' }, initialize);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    await r.text();
  });
});
