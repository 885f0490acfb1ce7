// The task stores on the SDK's own Server and Client, linked in memory: this process's
// (src/runtime/long-running/tasks.ts), and the one the replicas share (tasks-shared.ts) over a real
// Redis. In each, a task is its owner's only (another caller's tasks/get, tasks/result and
// tasks/cancel fail, and tasks/list shows only the caller's), a caller with many running tasks
// gets plain calls, a full store makes room with ended tasks only, which wire a request asked
// for decides the shape of the task, and a running task's status message is shown while it works.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport, Server, type CallToolResult } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
import {
  MemoryTaskStore,
  serveTaskMethods,
  taskRequested,
  type TaskReport,
  type TaskStore,
} from '../../../../src/runtime/long-running/tasks.js';
import { openSharedTaskStore } from '../../../../src/runtime/long-running/tasks-shared.js';
import { createLogger } from '../../../../src/runtime/start/log.js';
import { redisMissing, startRedis, type RedisServer } from '../../../harness/redis.js';

const any = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) } };
let who = 'alice';
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  who = 'alice';
});

let redis: RedisServer | undefined;
beforeAll(async () => {
  if (redisMissing === undefined) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** Each store, made anew for a test (the shared one under a namespace of its own). */
const STORES: [string, () => TaskStore][] = [
  ['in memory', () => new MemoryTaskStore()],
  ...(redisMissing === undefined
    ? [
        [
          'shared (Redis)',
          () =>
            openSharedTaskStore(
              { location: redis!.url, keys: randomBytes(32).toString('base64') },
              `api-${randomBytes(6).toString('hex')}`,
              createLogger('tasks', 'silent'),
            ),
        ] as [string, () => TaskStore],
      ]
    : []),
];

function made(make: () => TaskStore): TaskStore {
  const store = make();
  closing.push(() => store.close());
  return store;
}

async function connected(store: TaskStore): Promise<Client> {
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  serveTaskMethods(server, store, () => who);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  closing.unshift(() => client.close());
  return client;
}
const ask = (client: Client, method: string, params: Record<string, unknown> = {}) =>
  client.request({ method, params } as never, any as never) as Promise<Record<string, unknown>>;

/** A run that ends when `finish` is called. */
function pending(): { run: () => Promise<CallToolResult>; finish: (text: string) => void } {
  let finish: (text: string) => void = () => undefined;
  const result = new Promise<CallToolResult>((resolve) => (finish = (text) => resolve({ content: [{ type: 'text', text }] })));
  return { run: () => result, finish };
}

const never = () => new Promise<CallToolResult>(() => undefined);
const done = () => Promise.resolve<CallToolResult>({ content: [{ type: 'text', text: 'done' }] });
const idOf = (created: unknown) => (created as { task: { taskId: string } }).task.taskId;

/** Once the task has ended in `store` (its end is written a moment after its run ends). */
async function ended(store: TaskStore, created: unknown, owner: string): Promise<void> {
  while ((await store.get(idOf(created), owner)).status === 'working') await new Promise((r) => setTimeout(r, 5));
}

describe.each(STORES)('a task store %s', (_, make) => {
  it("a task is its owner's only", async () => {
    const store = made(make);
    const client = await connected(store);
    const job = pending();
    const created = (await store.start('alice', { generation: 'v1' }, job.run)) as unknown as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    const taskId = created.task.taskId;
    expect(await ask(client, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working', pollInterval: 1_000 });

    who = 'bob';
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      await expect(ask(client, method, { taskId })).rejects.toThrow(/No task/);
    }
    expect(await ask(client, 'tasks/list')).toMatchObject({ tasks: [] });

    who = 'alice';
    expect(await ask(client, 'tasks/list')).toMatchObject({ tasks: [{ taskId }] });
    job.finish('done');
    expect(await ask(client, 'tasks/result', { taskId })).toMatchObject({
      content: [{ type: 'text', text: 'done' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    expect(await ask(client, 'tasks/get', { taskId })).toMatchObject({ status: 'completed' });
  });

  it('a cancelled task says so, and cannot be cancelled twice', async () => {
    const store = made(make);
    const client = await connected(store);
    let aborted = false;
    const created = await store.start('alice', { generation: 'v1' }, (signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise(() => undefined);
    });
    const taskId = idOf(created);
    expect(await ask(client, 'tasks/cancel', { taskId })).toMatchObject({ status: 'cancelled' });
    expect(aborted).toBe(true);
    await expect(ask(client, 'tasks/cancel', { taskId })).rejects.toThrow(/already ended/);
  });

  it('a 2026-07-28 task is the CreateTaskResult itself, and tasks/get carries the complete result', async () => {
    const store = made(make);
    const client = await connected(store);
    const job = pending();
    const created = (await store.start('alice', { generation: 'v2' }, job.run)) as Record<string, unknown>;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1_000 });
    job.finish('v2 done');
    await ended(store, { task: created }, 'alice');
    expect(await ask(client, 'tasks/get', { taskId: created.taskId })).toMatchObject({
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'v2 done' }] },
    });
  });

  it.each(['v1', 'v2'] as const)(
    "%s: the run's status message is in tasks/get while it works, a report just before its end does not keep it from ending, and is gone after",
    async (generation) => {
      const store = made(make);
      const client = await connected(store);
      const job = pending();
      let report: TaskReport | undefined;
      const created = await store.start('alice', { generation }, (_signal, _waitMs, told) => {
        report = told;
        return job.run();
      });
      const taskId = generation === 'v1' ? idOf(created) : (created as unknown as { taskId: string }).taskId;
      expect(report?.('read: 3 items so far')).toMatchObject({ taskId, status: 'working', statusMessage: 'read: 3 items so far' });
      // The shared store writes it a moment later.
      const read = () => ask(client, 'tasks/get', { taskId });
      while ((await read()).statusMessage === undefined) await new Promise((r) => setTimeout(r, 5));
      expect(await read()).toMatchObject({ taskId, status: 'working', statusMessage: 'read: 3 items so far' });

      report?.('read: 7 items so far');
      job.finish('done');
      await ended(store, { task: { taskId } }, 'alice');
      const last = await read();
      expect(last).toMatchObject({ status: 'completed' });
      expect(last).not.toHaveProperty('statusMessage');
      expect(report?.('too late')).toMatchObject({ taskId });
      await new Promise((r) => setTimeout(r, 50));
      expect(await read()).toMatchObject({ status: 'completed' });
    },
  );

  it('past 20 running tasks a caller gets plain calls; another caller still gets tasks', async () => {
    const store = made(make);
    for (let i = 0; i < 20; i++) expect(await store.start('alice', { generation: 'v1' }, never)).toBeDefined();
    expect(await store.start('alice', { generation: 'v1' }, never)).toBeUndefined();
    expect(await store.start('bob', { generation: 'v1' }, never)).toBeDefined();
  });
});

describe.each(STORES)('a full task store %s (1,000 tasks)', (_, make) => {
  it("another caller's 1,001 completed tasks never evict a running one; its owner still reads it", async () => {
    const store = made(make);
    const client = await connected(store);
    const victim = idOf(await store.start('bob', { generation: 'v1', ttl: 3_600_000 }, never));
    for (let i = 0; i < 1_001; i++) await ended(store, await store.start('alice', { generation: 'v1' }, done), 'alice');
    who = 'bob';
    expect(await ask(client, 'tasks/get', { taskId: victim })).toMatchObject({ taskId: victim, status: 'working' });
  }, 60_000);

  it("ended tasks make room, the new task's owner's own first", async () => {
    const store = made(make);
    const client = await connected(store);
    const bobs = await store.start('bob', { generation: 'v1' }, done);
    await ended(store, bobs, 'bob');
    const alices = await store.start('alice', { generation: 'v1' }, done);
    await ended(store, alices, 'alice');
    for (let i = 0; i < 998; i++) await store.start(`owner${i % 50}`, { generation: 'v1' }, never);
    expect(idOf(await store.start('alice', { generation: 'v1' }, never))).toMatch(/^task_/);
    await expect(ask(client, 'tasks/get', { taskId: idOf(alices) })).rejects.toThrow(/No task/);
    who = 'bob';
    expect(await ask(client, 'tasks/get', { taskId: idOf(bobs) })).toMatchObject({ status: 'completed' });
  }, 60_000);

  it('when every task kept is running, a new one is refused with a tool error and none is dropped', async () => {
    const store = made(make);
    const client = await connected(store);
    const running: [string, string][] = [];
    for (let i = 0; i < 1_000; i++)
      running.push([`owner${i % 50}`, idOf(await store.start(`owner${i % 50}`, { generation: 'v1' }, never))]);
    const refused = await store.start('zoe', { generation: 'v1' }, never);
    expect(refused).toMatchObject({ isError: true });
    expect((refused?.content[0] as { text: string }).text).toMatch(
      /^No task was started: this server keeps at most 1,000 tasks and all of them are still running/,
    );
    for (const [owner, taskId] of [running[0], running[999]] as [string, string][]) {
      who = owner;
      expect(await ask(client, 'tasks/get', { taskId })).toMatchObject({ status: 'working' });
    }
  }, 60_000);
});

describe('taskRequested', () => {
  it("2025-11-25's task (with its ttl), the 2026-07-28 extension in the request's capabilities, or neither", () => {
    expect(taskRequested({ task: { ttl: 5_000 } }, undefined)).toEqual({ generation: 'v1', ttl: 5_000 });
    expect(taskRequested({ task: {} }, undefined)).toEqual({ generation: 'v1' });
    expect(taskRequested({}, { extensions: { 'io.modelcontextprotocol/tasks': {} } } as never)).toEqual({ generation: 'v2' });
    expect(taskRequested({}, { extensions: {} } as never)).toBeUndefined();
    expect(taskRequested({ task: 'yes' }, undefined)).toBeUndefined();
  });
});
