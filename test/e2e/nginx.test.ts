// Scale-out (#17): three replicas of a generated server behind a real nginx, configured with
// exactly the blocks docs/deploy.md shows, loaded with the official clients; and, without a
// proxy, the runtime pieces those recipes rely on (replica-prefixed session ids, the legacy SSE
// stream's headers and keep-alive, the refusal of a session never initialised, readiness
// going false while draining).
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1Sse } from '@modelcontextprotocol/sdk/client/sse.js';
import { buildProject, connect, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { Children, exitOf } from '../harness/children.js';
import { documentedConfigs, nginxMissing, startNginx as startDocumented } from '../harness/nginx.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 't', SWAGGER_PETSTORE_API_KEY: 'k' };
const REPLICAS = ['a', 'b', 'c'] as const;
type Replica = (typeof REPLICAS)[number];
/** The replicas' keep-alive interval, and the read timeout the test gives nginx (its default: 60 s). */
const KEEPALIVE_MS = 500;
const READ_TIMEOUT = '2s';

if (nginxMissing) console.log(`nginx.test.ts: ${nginxMissing}: the tests behind nginx are skipped`);

let dir: string;
let upstream: Upstream;
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-nginx-'));

beforeAll(async () => {
  // GET <base>/r-<replica>/v2/pet/<id>: the path tells which replica made the call.
  upstream = await startUpstream((req) => {
    const id = Number(/\/pet\/(\d+)$/.exec(req.path)?.[1] ?? 0);
    return { delayMs: 20, body: JSON.stringify({ id, name: `pet-${id}`, photoUrls: [] }) };
  });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-nginx');
  await buildProject(dir);
}, 180_000);

afterAll(async () => {
  await children.stopAll();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function replica(id: Replica, transport: 'http' | 'sse' | 'http+sse', args: string[], env: Record<string, string> = {}) {
  const server = await startServer(dir, transport, [...args, '--base-url', `${upstream.url}/r-${id}/v2`], {
    ...SECRETS,
    MCP_SSE_KEEPALIVE_MS: String(KEEPALIVE_MS),
    LOG_LEVEL: 'debug',
    ...env,
  });
  children.track(server.process);
  return server;
}

/** Which replica made each upstream call, by pet id. */
function replicasByPet(): Map<number, Set<string>> {
  const seen = new Map<number, Set<string>>();
  for (const r of upstream.requests) {
    const m = /^\/r-(\w+)\/v2\/pet\/(\d+)$/.exec(r.path);
    if (!m) continue;
    const id = Number(m[2]);
    if (!seen.has(id)) seen.set(id, new Set());
    seen.get(id)?.add(m[1] as string);
  }
  return seen;
}

/** A documented block in front of the three replicas, with a read timeout short enough to outlive. */
const startNginx = (scenario: string, replicas: Record<Replica, RunningServer>, edit?: (conf: string) => string) =>
  startDocumented(scenario, Object.fromEntries(REPLICAS.map((id) => [id, new URL(replicas[id].url).host])), {
    scratch,
    children,
    // Short, so that the test sees a stream outlive it (the docs' blocks keep the default, 60 s).
    http: [`proxy_read_timeout ${READ_TIMEOUT};`],
    ...(edit !== undefined ? { edit } : {}),
  });

const call = (client: Client | V1Client, petId: number) =>
  client instanceof V1Client
    ? client.callTool({ name: 'getPetById', arguments: { petId } }, undefined, { timeout: 15_000 })
    : client.callTool({ name: 'getPetById', arguments: { petId } }, { timeout: 15_000 });

/** Each client makes `calls` calls in a row (clients in parallel); failures as "petId: message". */
async function load(clients: (Client | V1Client)[], calls: number, firstPet: number): Promise<string[]> {
  const failures: string[] = [];
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = 0; i < calls; i++) {
        const petId = firstPet + c * 1000 + i;
        try {
          const result = (await call(client, petId)) as { structuredContent?: { id?: number } };
          if (result.structuredContent?.id !== petId) failures.push(`${petId}: answered ${JSON.stringify(result)}`);
        } catch (error) {
          failures.push(`${petId}: ${(error as Error).message}`);
        }
      }
    }),
  );
  return failures;
}

async function legacySse(url: string): Promise<V1Client> {
  const client = new V1Client({ name: 'mcp-gen-nginx-v1', version: '1.0.0' });
  await client.connect(new V1Sse(new URL(`${url}/sse`)));
  return client;
}

/** Three 2025-era Streamable HTTP clients, then three 2026-07-28 ones. */
const bothEras = async (url: string) => [
  ...(await Promise.all([1, 2, 3].map(() => connect('http', url)))),
  ...(await Promise.all([1, 2, 3].map(() => connect('http', url, { negotiate: true })))),
];

const closeAll = (clients: (Client | V1Client)[]) => Promise.allSettled(clients.map((c) => c.close()));

const sessionsOpened = (servers: RunningServer[], kind: 'SSE session' | 'session') =>
  servers.reduce((n, s) => n + [...s.stderr().matchAll(new RegExp(`debug: ${kind} \\S+ opened`, 'g'))].length, 0);

describe.skipIf(nginxMissing !== undefined)('behind nginx, with the configurations of docs/deploy.md', () => {
  it('docs/deploy.md has exactly the configurations this file and oauth-replicas.test.ts run', () => {
    expect([...documentedConfigs().keys()].sort()).toEqual(['address-hash', 'affinity', 'drain', 'oauth-replicas', 'stateless']);
  });

  describe('stateless replicas', () => {
    let replicas: Record<Replica, RunningServer>;
    beforeAll(async () => {
      const [a, b, c] = await Promise.all(REPLICAS.map((id) => replica(id, 'http', ['--stateless'])));
      replicas = { a: a as RunningServer, b: b as RunningServer, c: c as RunningServer };
    });

    it('stateless: round-robin serves 2025-era and 2026-07-28 clients, 0 failed calls, every replica used', async () => {
      const nginx = await startNginx('stateless', replicas);
      const clients = await bothEras(nginx.url);
      try {
        expect(clients.map((c) => c.getNegotiatedProtocolVersion())).toEqual([
          ...Array(3).fill('2025-11-25'),
          ...Array(3).fill('2026-07-28'),
        ]);
        upstream.clear();
        expect(await load(clients, 40, 10_000)).toEqual([]);
        const used = new Set([...replicasByPet().values()].flatMap((s) => [...s]));
        expect([...used].sort()).toEqual(['a', 'b', 'c']);
      } finally {
        await closeAll(clients);
        await nginx.stop();
      }
    });

    it('the Host line matters: without it every request is refused 403 (Invalid Host: mcp_replicas)', async () => {
      const nginx = await startNginx('stateless', replicas, (conf) => conf.replace(/^.*proxy_set_header Host \$host;\n/m, ''));
      try {
        const answer = await fetch(`${nginx.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain('mcp_replicas');
      } finally {
        await nginx.stop();
      }
    });

    it('drain: a replica SIGTERMed in the middle of a load, 0 failed calls', async () => {
      const nginx = await startNginx('drain', replicas);
      const clients = await bothEras(nginx.url);
      try {
        upstream.clear();
        const b = replicas.b.process;
        const exited = exitOf(b);
        const running = load(clients, 60, 20_000);
        // once every replica is answering: some calls are in flight on b when it is signalled
        while (upstream.requests.filter((r) => r.path.startsWith('/r-b/')).length < 10) await new Promise((r) => setTimeout(r, 10));
        b.kill('SIGTERM');
        expect(await running).toEqual([]);
        expect((await exited).code).toBe(0);
        const after = upstream.requests.length;
        expect(await load(clients, 5, 30_000)).toEqual([]);
        expect(upstream.requests.slice(after).filter((r) => r.path.startsWith('/r-b/'))).toEqual([]);
      } finally {
        await closeAll(clients);
        await nginx.stop();
      }
    });
  });

  describe('stateful replicas with MCP_REPLICA_ID (Streamable HTTP and legacy SSE)', () => {
    let replicas: Record<Replica, RunningServer>;
    beforeAll(async () => {
      const [a, b, c] = await Promise.all(REPLICAS.map((id) => replica(id, 'http+sse', [], { MCP_REPLICA_ID: id })));
      replicas = { a: a as RunningServer, b: b as RunningServer, c: c as RunningServer };
    });

    /** 2025-era sessions and legacy SSE sessions: every call of a session on one replica. */
    async function sessionsHold(scenario: string, expectSpread: boolean) {
      const nginx = await startNginx(scenario, replicas);
      const opened = {
        session: sessionsOpened(Object.values(replicas), 'session'),
        sse: sessionsOpened(Object.values(replicas), 'SSE session'),
      };
      const streamable = await Promise.all([1, 2, 3, 4, 5, 6].map(() => connect('http', nginx.url)));
      const sse = await Promise.all([1, 2, 3, 4, 5, 6].map(() => legacySse(nginx.url)));
      try {
        expect(streamable.map((c) => c.transport?.sessionId)).toEqual(Array(6).fill(expect.stringMatching(/^[abc]\.[0-9a-f-]{36}$/)));
        upstream.clear();
        expect(await load([...streamable, ...sse], 20, 40_000)).toEqual([]);
        const byPet = replicasByPet();
        expect(byPet.size).toBe(12 * 20);
        // a session's calls all come from one replica
        for (let c = 0; c < 12; c++) {
          const used = new Set([...byPet].filter(([id]) => Math.floor((id - 40_000) / 1000) === c).flatMap(([, s]) => [...s]));
          expect(used.size, `client ${c}`).toBe(1);
        }
        const used = new Set([...byPet.values()].flatMap((s) => [...s]));
        if (expectSpread) expect(used.size).toBeGreaterThan(1);
        // no client opened a second session behind the proxy's back
        expect(sessionsOpened(Object.values(replicas), 'session') - opened.session).toBe(6);
        expect(sessionsOpened(Object.values(replicas), 'SSE session') - opened.sse).toBe(6);
      } finally {
        await closeAll([...streamable, ...sse]);
        await nginx.stop();
      }
    }

    it('affinity: the replica-id map routes each session to its replica, 0 failed calls', () => sessionsHold('affinity', true));

    it('address-hash: hash $remote_addr consistent keeps sessions on one replica, 0 failed calls', () =>
      // every client here is 127.0.0.1: one replica takes them all, as the docs warn
      sessionsHold('address-hash', false));

    it('legacy SSE with nginx defaults: the stream outlives proxy_read_timeout and keeps answering on its session', async () => {
      const nginx = await startNginx('affinity', replicas);
      const before = sessionsOpened(Object.values(replicas), 'SSE session');
      const client = await legacySse(nginx.url);
      try {
        expect(await load([client], 1, 50_000)).toEqual([]);
        await new Promise((r) => setTimeout(r, 3_000)); // past the 2 s read timeout, silent but for keep-alives
        expect(await load([client], 3, 51_000)).toEqual([]);
        expect(sessionsOpened(Object.values(replicas), 'SSE session') - before).toBe(1);
      } finally {
        await client.close();
        await nginx.stop();
      }
    });
  });
});

/** Raw GET /sse: status, headers, and a reader of the stream's text. */
function openSse(url: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: () => string; close: () => void }>((resolve, reject) => {
    const req = request(`${url}/sse`, { headers: { accept: 'text/event-stream' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => text, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('what the recipes rely on, without a proxy', () => {
  it('MCP_REPLICA_ID: session ids are <replica>.<uuid>, the legacy SSE endpoint names the replica', async () => {
    const server = await replica('b', 'http+sse', [], { MCP_REPLICA_ID: 'eu-2' });
    const client = await connect('http', server.url);
    const stream = await openSse(server.url);
    try {
      expect(client.transport?.sessionId).toMatch(/^eu-2\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(await call(client, 7)).toMatchObject({ structuredContent: { id: 7 } });
      await until(() => stream.text().includes('event: endpoint'));
      expect(stream.text()).toMatch(/^event: endpoint\ndata: \/messages\?replica=eu-2&sessionId=[0-9a-f-]{36}\n\n/);
    } finally {
      stream.close();
      await client.close();
      await server.stop();
    }
  });

  it('GET /sse: X-Accel-Buffering: no, no-cache, and a keep-alive comment every MCP_SSE_KEEPALIVE_MS', async () => {
    const server = await replica('a', 'sse', []);
    const quiet = await replica('a', 'sse', [], { MCP_SSE_KEEPALIVE_MS: '0' });
    const stream = await openSse(server.url);
    const silent = await openSse(quiet.url);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers).toMatchObject({ 'x-accel-buffering': 'no', 'cache-control': expect.stringContaining('no-cache') });
      const opened = Date.now();
      await until(() => stream.text().split(': keep-alive\n\n').length - 1 >= 3);
      expect(Date.now() - opened).toBeGreaterThanOrEqual(2 * KEEPALIVE_MS);
      expect(silent.text()).not.toContain('keep-alive');
    } finally {
      stream.close();
      silent.close();
      await Promise.all([server.stop(), quiet.stop()]);
    }
  });

  it('legacy SSE: a session that has not completed initialize is refused (400, Session not initialized); ping and server/discover are not', async () => {
    const server = await replica('a', 'sse', []);
    const stream = await openSse(server.url);
    try {
      await until(() => /data: (\S+)\n/.test(stream.text()));
      const endpoint = /data: (\S+)\n/.exec(stream.text())?.[1] as string;
      const post = (body: unknown) =>
        fetch(`${server.url}${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const refused = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getPetById', arguments: { petId: 1 } } });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/^Session not initialized/) } });
      expect(
        (
          await post([
            { jsonrpc: '2.0', id: 2, method: 'ping' },
            { jsonrpc: '2.0', id: 3, method: 'tools/list' },
          ])
        ).status,
      ).toBe(400);
      expect((await post({ jsonrpc: '2.0', id: 4, method: 'ping' })).status).toBe(202);
      expect((await post({ jsonrpc: '2.0', id: 5, method: 'server/discover', params: {} })).status).toBe(202);
      expect(upstream.requests.filter((r) => r.path === '/r-a/v2/pet/1')).toEqual([]);
      // the v1 client over the same server, initialised: served
      const client = await legacySse(server.url);
      expect(await call(client, 2)).toMatchObject({ structuredContent: { id: 2 } });
      await client.close();
    } finally {
      stream.close();
      await server.stop();
    }
  });

  it('SIGTERM with MCP_DRAIN_DELAY_MS: /healthz answers 503 at once while calls are still served, then the drain', async () => {
    const server = await replica('c', 'http', [], { MCP_DRAIN_DELAY_MS: '1500' });
    const client = await connect('http', server.url, { negotiate: true });
    const exited = exitOf(server.process);
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const signalled = Date.now();
      server.process.kill('SIGTERM');
      await until(() => /SIGTERM: \/healthz answers 503/.test(server.stderr()));
      const health = await fetch(`${server.url}/healthz`);
      expect([health.status, await health.json()]).toEqual([503, { status: 'draining' }]);
      expect(await call(client, 9)).toMatchObject({ structuredContent: { id: 9 } });
      expect(Date.now() - signalled).toBeLessThan(1_500);
      expect((await exited).at - signalled).toBeGreaterThanOrEqual(1_500);
    } finally {
      await client.close();
    }
  });
});
