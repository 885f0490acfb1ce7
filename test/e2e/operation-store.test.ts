// Long-running operation handles behind two replicas: two --stateless servers share their
// operation store in one real Redis (--operation-store), as docs/deploy.md says. A call started
// on replica A answers a handle past --operation-wait; get_operation_status on replica B follows
// it to the result, with no affinity. Each client brings its own API key (--auth-from-headers):
// another key cannot take the handle, and an answered handle is spent on both replicas.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, generateProject, TMP } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { everythingStored, redisMissing } from '../harness/redis.js';
import { StoreReplicas } from '../harness/replicas.js';
import { startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';

if (redisMissing !== undefined) console.log(`operation-store.test.ts: ${redisMissing}: skipped`);

const SPEC = `openapi: 3.0.3
info: { title: Jobs, version: '1.0' }
servers: [{ url: 'https://jobs.example.com' }]
security: [{ key: [] }]
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Api-Key }
paths:
  /jobs:
    post:
      operationId: startJob
      summary: Start a job
      responses:
        '202': { description: accepted, headers: { Operation-Location: { schema: { type: string } } } }
`;
const OWNER_KEY = 'k-owner-of-the-job';
const OTHER_KEY = 'k-someone-else';

let upstream: Upstream;
let dir: string;
const args = ['--stateless', '--operation-wait', '1500', '--auth-from-headers', 'X-Api-Key=key'];
let replicas: StoreReplicas;
/** Whether the job is done at its next status check. */
let finished = false;

function respond(req: Recorded): Answer {
  if (req.method === 'POST' && req.path === '/jobs') {
    return { status: 202, headers: { 'operation-location': `${upstream.url}/status/job1`, 'retry-after': '0' } };
  }
  if (req.path === '/status/job1') {
    if (finished) return { body: JSON.stringify({ status: 'Succeeded', result: { rows: 42 } }) };
    return { headers: { 'retry-after': '1' }, body: JSON.stringify({ status: 'Running' }) };
  }
  return { status: 404, body: '{}' };
}

beforeAll(async () => {
  if (redisMissing !== undefined) return;
  upstream = await startUpstream(respond);
  mkdirSync(TMP, { recursive: true });
  const spec = join(TMP, 'operation-store.yaml');
  writeFileSync(spec, SPEC);
  dir = generateProject(spec, 'e2e-operation-store');
  await buildProject(dir);
  replicas = await StoreReplicas.start(dir, [...args, '--base-url', upstream.url]);
}, 300_000);

afterAll(async () => {
  await replicas?.stop();
  await upstream?.close();
});

const client = (replica: number, key: string) => replicas.client(replica, key, true);

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const handleOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result._meta?.['io.github.mcp-gen/operation'] as { handle?: string } | undefined)?.handle ?? '';

describe.skipIf(redisMissing !== undefined)('operation handles in a store the replicas share (Redis)', () => {
  it('a handle made on replica A is followed on replica B to the result, bound to its owner, and spent once answered', async () => {
    const [onA, onB, otherOnB] = [await client(0, OWNER_KEY), await client(1, OWNER_KEY), await client(1, OTHER_KEY)];
    const first = await onA.callTool({ name: 'startJob', arguments: {} }, { timeout: 30_000 });
    const handle = handleOf(first);
    expect(handle).toMatch(/^op_[\w-]{24}$/);

    // Another caller's key does not take it, and leaves it for its owner.
    const refused = await otherOnB.callTool({ name: 'get_operation_status', arguments: { handle } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/no operation with this handle/);

    // Still running on B: the handle comes back, and B knows it too.
    const again = await onB.callTool({ name: 'get_operation_status', arguments: { handle } }, { timeout: 30_000 });
    expect(text(again)).toMatch(/still running \(Running after \d+ status checks\)/);
    const next = handleOf(again);
    expect(next).toMatch(/^op_[\w-]{24}$/);

    finished = true;
    const done = await onA.callTool({ name: 'get_operation_status', arguments: { handle: next } }, { timeout: 30_000 });
    expect(done.isError ?? false).toBe(false);
    expect(JSON.parse(text(done))).toEqual({ status: 'Succeeded', result: { rows: 42 } });
    // Every status check went with the owner's key, whichever replica made it.
    const keys = upstream.requests.filter((r) => r.path === '/status/job1').map((r) => r.headers['x-api-key']);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([OWNER_KEY]));

    // Answered, the handles are spent on both replicas.
    for (const [c, stale] of [
      [onB, next],
      [onA, handle],
    ] as const) {
      const spent = await c.callTool({ name: 'get_operation_status', arguments: { handle: stale } });
      expect(spent.isError).toBe(true);
      expect(text(spent)).toMatch(/no operation with this handle/);
    }
  }, 120_000);

  it('the store holds no credential and no status URL in the clear', async () => {
    const c = await client(0, OWNER_KEY);
    finished = false;
    const pending = await c.callTool({ name: 'startJob', arguments: {} }, { timeout: 30_000 });
    expect(handleOf(pending)).not.toBe('');
    const stored = await everythingStored(replicas.redis.url);
    expect(stored).toMatch(/^mcp-gen:op:/m);
    for (const secret of [OWNER_KEY, upstream.url, handleOf(pending)]) expect(stored).not.toContain(secret);
  }, 60_000);

  it("another platform's store, or a short key, stops the start with exit 2 and the reason", async () => {
    for (const [env, reason] of [
      [{ MCP_OPERATION_STORE: 'deno-kv' }, 'that store is served on deno, and this server runs on node'],
      [{ MCP_TOKEN_STORE_KEY: 'c2hvcnQ=' }, 'MCP_TOKEN_STORE_KEY is not 32 bytes'],
    ] as const) {
      const refused = await replicas.serve(dir, [...args, '--base-url', upstream.url], env).then(
        () => 'started',
        (error: Error) => error.message,
      );
      expect(refused).toContain('server exited with 2');
      expect(refused).toContain(reason);
    }
  }, 60_000);

  it('a store that cannot be reached: the call says the operation still runs and that no handle was kept, naming no password; the server goes on', async () => {
    const nowhere = `redis://:s3cret-password@127.0.0.1:${await freePort()}`;
    const lone = await replicas.serve(dir, [...args, '--base-url', upstream.url], { MCP_OPERATION_STORE: nowhere });
    const c = await replicas.client(lone, OWNER_KEY, true);
    finished = false;
    const result = await c.callTool({ name: 'startJob', arguments: {} }, { timeout: 30_000 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^startJob: the operation is still running \(Running after \d+ status checks\), but this server could not keep its handle: cannot reach the operation store's Redis at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. /,
    );
    expect(text(result) + lone.stderr()).not.toContain('s3cret-password');
    // Still serving: the next request is answered.
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('get_operation_status');
    await lone.stop();
  }, 60_000);
});
