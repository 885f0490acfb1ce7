// The task store (src/runtime/long-running/tasks.ts) on the SDK's own Server and Client, linked in memory:
// a task is its owner's only (another caller's tasks/get, tasks/result and tasks/cancel fail,
// and tasks/list shows only the caller's), a caller with many running tasks gets plain calls,
// and which wire a request asked for decides the shape of the task.
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryTransport, Server, type CallToolResult } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
import { MemoryTaskStore, serveTaskMethods, taskRequested } from '../../../../src/runtime/long-running/tasks.js';

const any = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) } };
let who = 'alice';
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  who = 'alice';
});

async function connected(store: MemoryTaskStore): Promise<Client> {
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  serveTaskMethods(server, store, () => who);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  closing.push(() => client.close());
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

describe('MemoryTaskStore', () => {
  it("a task is its owner's only", async () => {
    const store = new MemoryTaskStore();
    const client = await connected(store);
    const job = pending();
    const created = store.start('alice', { generation: 'v1' }, job.run) as unknown as { task: { taskId: string; status: string } };
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
    const store = new MemoryTaskStore();
    const client = await connected(store);
    let aborted = false;
    const created = store.start('alice', { generation: 'v1' }, (signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise(() => undefined);
    }) as unknown as { task: { taskId: string } };
    const taskId = created.task.taskId;
    expect(await ask(client, 'tasks/cancel', { taskId })).toMatchObject({ status: 'cancelled' });
    expect(aborted).toBe(true);
    await expect(ask(client, 'tasks/cancel', { taskId })).rejects.toThrow(/already ended/);
  });

  it('a 2026-07-28 task is the CreateTaskResult itself, and tasks/get carries the complete result', async () => {
    const store = new MemoryTaskStore();
    const client = await connected(store);
    const job = pending();
    const created = store.start('alice', { generation: 'v2' }, job.run) as Record<string, unknown>;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1_000 });
    job.finish('v2 done');
    await new Promise((r) => setTimeout(r, 10));
    expect(await ask(client, 'tasks/get', { taskId: created.taskId })).toMatchObject({
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'v2 done' }] },
    });
  });

  it('past 20 running tasks a caller gets plain calls; another caller still gets tasks', () => {
    const store = new MemoryTaskStore();
    const never = () => new Promise<CallToolResult>(() => undefined);
    for (let i = 0; i < 20; i++) expect(store.start('alice', { generation: 'v1' }, never)).toBeDefined();
    expect(store.start('alice', { generation: 'v1' }, never)).toBeUndefined();
    expect(store.start('bob', { generation: 'v1' }, never)).toBeDefined();
  });
});

describe('a full store (1,000 tasks)', () => {
  const never = () => new Promise<CallToolResult>(() => undefined);
  const done = () => Promise.resolve<CallToolResult>({ content: [{ type: 'text', text: 'done' }] });
  const idOf = (created: unknown) => (created as { task: { taskId: string } }).task.taskId;
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("another caller's 1,001 completed tasks never evict a running one; its owner still reads it", async () => {
    const store = new MemoryTaskStore();
    const client = await connected(store);
    const victim = idOf(store.start('bob', { generation: 'v1', ttl: 3_600_000 }, never));
    for (let i = 0; i < 1_001; i++) {
      store.start('alice', { generation: 'v1' }, done);
      await settle();
    }
    who = 'bob';
    expect(await ask(client, 'tasks/get', { taskId: victim })).toMatchObject({ taskId: victim, status: 'working' });
  });

  it("ended tasks make room, the new task's owner's own first", async () => {
    const store = new MemoryTaskStore();
    const client = await connected(store);
    const bobs = idOf(store.start('bob', { generation: 'v1' }, done));
    await settle();
    const alices = idOf(store.start('alice', { generation: 'v1' }, done));
    await settle();
    for (let i = 0; i < 998; i++) store.start(`owner${i % 50}`, { generation: 'v1' }, never);
    expect(idOf(store.start('alice', { generation: 'v1' }, never))).toMatch(/^task_/);
    await expect(ask(client, 'tasks/get', { taskId: alices })).rejects.toThrow(/No task/);
    who = 'bob';
    expect(await ask(client, 'tasks/get', { taskId: bobs })).toMatchObject({ status: 'completed' });
  });

  it('when every task kept is running, a new one is refused with a tool error and none is dropped', async () => {
    const store = new MemoryTaskStore();
    const client = await connected(store);
    const running = Array.from({ length: 1_000 }, (_, i) => [
      `owner${i % 50}`,
      idOf(store.start(`owner${i % 50}`, { generation: 'v1' }, never)),
    ]);
    const refused = store.start('zoe', { generation: 'v1' }, never);
    expect(refused).toMatchObject({ isError: true });
    expect((refused?.content[0] as { text: string }).text).toMatch(
      /^No task was started: this server keeps at most 1,000 tasks and all of them are still running/,
    );
    for (const [owner, taskId] of [running[0], running[999]] as [string, string][]) {
      who = owner;
      expect(await ask(client, 'tasks/get', { taskId })).toMatchObject({ status: 'working' });
    }
  });
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
