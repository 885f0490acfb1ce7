// The operation store shared through a real Redis (src/runtime/long-running/operation-store.ts and
// operation-store-redis.ts), where the e2e test does not go: a Google Operation's last answer
// (bytes) comes back whole, 100 handles per owner with the oldest going first, a handle taken
// once by one of two takers at the same time, the store's keys prefixed and expiring, and a
// store under another key or another API's name that finds nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { openOperationStore, type OperationStore } from '../../../../src/runtime/long-running/operation-store.js';
import type { Tracking } from '../../../../src/runtime/long-running/tracking.js';
import { createLogger } from '../../../../src/runtime/start/log.js';
import { redisMissing, startRedis, type RedisServer } from '../../../harness/redis.js';

const KEY = randomBytes(32).toString('base64');
const silent = createLogger('operation-store', 'silent');
let redis: RedisServer;
const opened: OperationStore[] = [];

beforeAll(async () => {
  if (redisMissing === undefined) redis = await startRedis();
});
afterAll(async () => {
  for (const store of opened) await store.close();
  await redis?.stop();
});

function open(keys = KEY, namespace = 'jobs'): OperationStore {
  const store = openOperationStore({ location: redis.url, keys }, namespace, silent);
  opened.push(store);
  return store;
}

const tracking = (n = 1): Tracking => ({
  tool: 'createBuild',
  args: { project: 'p1', n },
  method: 'POST',
  requestUrl: 'https://api.example.com/v1/projects/p1/builds',
  poll: { kind: 'operation', path: `/v1/projects/p1/operations/op${n}` },
  polls: 2,
  intervalMs: 2_250,
  nextPollAt: 1_700_000_000_000,
  state: 'RUNNING',
  last: {
    status: 200,
    statusText: 'OK',
    contentType: 'application/json',
    bytes: new Uint8Array([123, 34, 100, 111, 110, 101, 34, 58, 102, 97, 108, 115, 101, 125, 0, 255]),
    truncated: false,
    label: 'GET /v1/projects/p1/operations',
    uri: 'https://api.example.com/v1/projects/p1/operations',
    request: { method: 'GET', url: 'https://api.example.com/v1/projects/p1/operations/op1' },
  },
});

describe.skipIf(redisMissing !== undefined)('the operation store in Redis', () => {
  it('gives back what it kept, bytes and all, to its owner only and once', async () => {
    const store = open();
    const handle = (await store.save(tracking(), 'alice')) as string;
    expect(handle).toMatch(/^op_[\w-]{24}$/);
    expect(await store.take(handle, 'bob')).toEqual({ problem: expect.stringMatching(/no operation with this handle/) as string });
    const taken = await store.take(handle, 'alice');
    expect(taken).toEqual({ tracking: tracking() });
    expect((taken as { tracking: Tracking }).tracking.last?.bytes).toBeInstanceOf(Uint8Array);
    expect(await store.take(handle, 'alice')).toHaveProperty('problem');
  });

  it('of two replicas taking one handle at once, one gets it', async () => {
    const [a, b] = [open(), open()];
    const handle = (await a.save(tracking(), 'alice')) as string;
    const both = await Promise.all([a.take(handle, 'alice'), b.take(handle, 'alice')]);
    expect(both.filter((t) => 'tracking' in t)).toHaveLength(1);
  });

  it("keeps 100 handles per owner, the owner's oldest going first, and never another owner's", async () => {
    const store = open();
    const others = (await store.save(tracking(0), 'carol')) as string;
    const handles: string[] = [];
    for (let n = 1; n <= 101; n++) handles.push((await store.save(tracking(n), 'dave')) as string);
    expect(await store.take(handles[0] as string, 'dave')).toHaveProperty('problem');
    expect(await store.take(handles[1] as string, 'dave')).toEqual({ tracking: tracking(2) });
    expect(await store.take(handles[100] as string, 'dave')).toEqual({ tracking: tracking(101) });
    expect(await store.take(others, 'carol')).toEqual({ tracking: tracking(0) });
  });

  it('keys are prefixed and expire within the hour; values name no handle, owner, URL or argument', async () => {
    const store = open();
    const handle = (await store.save(tracking(7), 'owner-erin-digest')) as string;
    const reader = createClient({ url: redis.url });
    await reader.connect();
    try {
      const keys = await reader.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).toMatch(/^mcp-gen:op:\{[0-9a-f]{64}\}(:[0-9a-f]{64})?$/);
        const ttl = await reader.pTTL(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(3_600_000);
        const value = (await reader.type(key)) === 'string' ? ((await reader.get(key)) ?? '') : '';
        for (const secret of [handle, 'owner-erin-digest', 'api.example.com', 'createBuild', 'projects'])
          expect(key + value).not.toContain(secret);
      }
    } finally {
      await reader.close();
    }
  });

  it("a store with another key, or another API's name, finds nothing (and a key no longer in the ring is warned of once)", async () => {
    const [first, second] = [(await open().save(tracking(), 'frank')) as string, (await open().save(tracking(), 'frank')) as string];
    const warnings: string[] = [];
    const rotatedAway = openOperationStore(
      { location: redis.url, keys: randomBytes(32).toString('base64') },
      'jobs',
      createLogger('operation-store', 'warn', (line) => void warnings.push(line)),
    );
    opened.push(rotatedAway);
    expect(await rotatedAway.take(first, 'frank')).toHaveProperty('problem');
    expect(warnings).toEqual([expect.stringMatching(/no key of MCP_TOKEN_STORE_KEY opens/)]);
    expect(await open(KEY, 'other-api').take(second, 'frank')).toHaveProperty('problem');
    expect(await open().take(second, 'frank')).toHaveProperty('tracking');
    // A key ring of the new key and the old one opens what the old one sealed (rotation).
    const third = (await open().save(tracking(), 'frank')) as string;
    expect(await open(`${randomBytes(32).toString('base64')},${KEY}`).take(third, 'frank')).toHaveProperty('tracking');
  });
});
