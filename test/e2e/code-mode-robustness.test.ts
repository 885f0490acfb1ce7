// Code mode under the attack suite's scenarios, through the official SDK client against a built
// server and a recording upstream on 127.0.0.1: an answer nested 5,000 levels deep (direct mode and
// a program), a program reading a list over --max-answer-bytes (it must see all of it) or over
// --max-response-bytes (it must be told), and a crowded pool of two workers: one client queueing
// many programs, cancelled programs (queued, and computing), and unanswered confirmations, while
// another client's `return 1` must still answer promptly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, startServer, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-code-robust-'));
const json = (schema: object) => ({ description: 'OK', content: { 'application/json': { schema } } });
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Music', version: '1' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/deep': { get: { operationId: 'getDeep', summary: 'A nested answer', responses: { '200': json({ type: 'array', items: {} }) } } },
    '/mark': { get: { operationId: 'mark', summary: 'Leaves a mark', responses: { '200': json({ type: 'object' }) } } },
    '/playlists/{id}/tracks': {
      get: {
        operationId: 'listPlaylistTracks',
        summary: "A playlist's tracks",
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'offset', in: 'query', schema: { type: 'integer' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          '200': json({
            type: 'object',
            properties: {
              items: { type: 'array', items: { type: 'object', properties: { position: { type: 'integer' }, notes: { type: 'string' } } } },
              next: { type: 'string', nullable: true },
            },
          }),
        },
      },
    },
    '/tracks/{id}': {
      delete: {
        operationId: 'deleteTrack',
        summary: 'Deletes a track',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Deleted' } },
      },
    },
  },
};
const DEPTH = 5_000;
const MAX_RESPONSE_BYTES = 1_000_000;

function answer(path: string, query: URLSearchParams): string {
  if (path === '/deep') return '['.repeat(DEPTH) + ']'.repeat(DEPTH);
  const offset = Number(query.get('offset') ?? 0);
  const limit = Number(query.get('limit') ?? 20);
  if (path === '/playlists/p1/tracks') {
    // ~1.6 KB a track: 50 of them are over the default --max-answer-bytes (64 KiB)
    const items = Array.from({ length: limit }, (_, i) => ({ position: offset + i, notes: 'n'.repeat(1_600) }));
    return JSON.stringify({ items, next: `/playlists/p1/tracks?offset=${offset + limit}&limit=${limit}` });
  }
  return JSON.stringify({ ok: true });
}

let upstream: Upstream;
let dir: string;
let http: RunningServer;
const clients: Client[] = [];
const children = new Children();

beforeAll(async () => {
  upstream = await startUpstream((req) => ({ body: answer(req.path, req.query) }));
  const spec = join(scratch, 'music.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  dir = generateProject(spec, 'e2e-code-robustness', ['--tools', 'code']);
  await buildProject(dir);
  const args = ['--base-url', upstream.url, '--confirm', 'destructive', '--code-time-ms', '10000'];
  http = await startServer(dir, 'http', [...args, '--max-response-bytes', String(MAX_RESPONSE_BYTES)]);
  children.track(http.process);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await children.stopAll();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

type Connect = Parameters<typeof connect>[2];
async function client(options: Connect = {}): Promise<Client> {
  const made = await connect('http', http.url, options);
  clients.push(made);
  return made;
}

type Result = { content: { type: string; text?: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };
const text = (result: Result) => result.content.map((c) => c.text ?? '').join('');
const execute = (c: Client, code: string, options: { signal?: AbortSignal; timeout?: number } = {}) =>
  c.callTool({ name: 'execute', arguments: { code } }, { timeout: 30_000, ...options }) as Promise<Result>;
/** Statements computing for `ms` of wall time (the clock goes on while the engine runs). */
const spin = (ms: number) => `const end = Date.now() + ${ms}; while (Date.now() < end) {}`;
/** A program computing for `ms`, then answering "done". */
const busy = (ms: number) => `${spin(ms)} return "done";`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long `return 1` of another client takes to answer. */
async function timedReturnOne(other: Client): Promise<number> {
  const started = Date.now();
  const result = await execute(other, 'return 1', { timeout: 15_000 });
  expect(result.structuredContent?.result).toBe(1);
  return Date.now() - started;
}

describe('an upstream answer nested 5,000 levels deep', () => {
  it('direct mode: a one-line tool error naming the operation and the limit', async () => {
    const direct = await connect('stdio', dir, { args: ['--base-url', upstream.url, '--tools', 'direct'] });
    clients.push(direct);
    const result = (await direct.callTool({ name: 'getDeep', arguments: {} }, { timeout: 10_000 })) as Result;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^getDeep: .*nests JSON deeper than 100 levels/);
    expect(text(result)).not.toContain('\n');
  });

  it("code mode: the program's api call rejects with that error, and the pool serves the next program", async () => {
    const agent = await client();
    const caught = await execute(agent, 'try { await api.getDeep(); return "no error"; } catch (e) { return e.message; }', {
      timeout: 10_000,
    });
    expect(caught.structuredContent?.result).toMatch(/^getDeep: .*nests JSON deeper than 100 levels/);
    const uncaught = await execute(agent, 'return await api.getDeep();', { timeout: 10_000 });
    expect(uncaught.isError).toBe(true);
    expect(text(uncaught)).toContain('nests JSON deeper than 100 levels');
    expect(await timedReturnOne(await client())).toBeLessThan(3_000);
  });

  it('a program that returns a value nested as deep fails with a clear error', async () => {
    const result = await execute(await client(), 'let v = []; for (let i = 0; i < 5000; i++) v = [v]; return v;', { timeout: 10_000 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('the result nests deeper than 100 levels');
  });
});

describe("a program's api calls are not held to --max-answer-bytes", () => {
  it('a page of 50 tracks (~80 KB) reaches the program whole, its next link where the page ends', async () => {
    const program = `
      const page = await api.listPlaylistTracks({ id: "p1", offset: 50, limit: 50 });
      return { n: page.items.length, last: page.items.at(-1).position, next: page.next };`;
    const result = await execute(await client(), program);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.result).toEqual({ n: 50, last: 99, next: '/playlists/p1/tracks?offset=100&limit=50' });
  });

  it('an answer over --max-response-bytes rejects the api call, saying so', async () => {
    const program = `try { await api.listPlaylistTracks({ id: "p1", limit: 2000 }); return "read"; } catch (e) { return e.message; }`;
    const result = await execute(await client(), program);
    expect(result.structuredContent?.result).toBe(
      `listPlaylistTracks: the API's answer is larger than --max-response-bytes (${MAX_RESPONSE_BYTES} bytes) and was not read whole; ask for less (a smaller page) or raise the limit`,
    );
  });
});

describe('a crowded pool of two workers', () => {
  it("one client queueing 8 programs: another's `return 1` waits for one program at most, and the 7th and 8th are refused", async () => {
    const crowd = await client();
    const queued = Array.from({ length: 8 }, () => execute(crowd, busy(2_000)));
    await sleep(300);
    expect(await timedReturnOne(await client())).toBeLessThan(4_500);
    const results = await Promise.all(queued);
    expect(results.filter((r) => r.structuredContent?.result === 'done')).toHaveLength(6);
    const refused = results.filter((r) => r.isError);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(text(r)).toContain('too many programs queued');
  });

  it('queued programs cancelled by their client never run, nor delay the next', async () => {
    const crowd = await client();
    const running = [execute(crowd, busy(1_500)), execute(crowd, busy(1_500))];
    await sleep(200);
    const cancel = new AbortController();
    const program = `${spin(3_000)} await api.mark(); return "ran";`;
    const cancelled = [0, 1].map(() => execute(crowd, program, { signal: cancel.signal }));
    await sleep(100);
    cancel.abort();
    for (const one of cancelled) await expect(one).rejects.toThrow();
    // the same client's next program: behind the cancelled ones in its queue, had they stayed
    const started = Date.now();
    const next = await execute(crowd, 'return 1');
    expect(next.structuredContent?.result).toBe(1);
    expect(Date.now() - started).toBeLessThan(2_500);
    await Promise.all(running);
    expect(upstream.requests.filter((r) => r.path === '/mark')).toHaveLength(0);
  });

  it('a computing program is ended by its cancel: both workers are free again within a second', async () => {
    const crowd = await client();
    const cancel = new AbortController();
    const spinning = [0, 1].map(() => execute(crowd, 'while (true) {}', { signal: cancel.signal }).catch(() => 'cancelled'));
    await sleep(500);
    cancel.abort();
    expect(await Promise.all(spinning)).toEqual(['cancelled', 'cancelled']);
    const other = await client();
    // two at once: each needs a worker of its own
    const started = Date.now();
    const [a, b] = await Promise.all([execute(other, 'return 1', { timeout: 8_000 }), execute(other, 'return 1', { timeout: 8_000 })]);
    expect([a.structuredContent?.result, b.structuredContent?.result]).toEqual([1, 1]);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('programs waiting for unanswered confirmations hold no worker the others need', async () => {
    let asked = 0;
    const silent = await client({ elicit: () => (asked++, new Promise(() => undefined)) });
    const waiting = [0, 1].map(() => execute(silent, 'await api.deleteTrack({ id: "t1" }); return "deleted";').catch(() => 'closed'));
    for (let i = 0; i < 100 && asked < 2; i++) await sleep(50);
    expect(asked).toBe(2);
    const other = await client();
    expect(await timedReturnOne(other)).toBeLessThan(2_000);
    const started = Date.now();
    const both = await Promise.all([execute(other, busy(300)), execute(other, busy(300))]);
    expect(both.map((r) => r.structuredContent?.result)).toEqual(['done', 'done']);
    expect(Date.now() - started).toBeLessThan(2_000);
    // a third question is more than the server lets wait at once: the program is told, nothing sent
    const third = await execute(silent, 'try { await api.deleteTrack({ id: "t2" }); return "deleted"; } catch (e) { return e.message; }');
    expect(third.structuredContent?.result).toContain("programs are already waiting for a person's answer");
    expect(upstream.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    await silent.close();
    void waiting;
  });
});
