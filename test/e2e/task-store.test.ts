// Tasks behind two replicas: two --stateless servers share their operation store in one real
// Redis (--operation-store), and tasks live there with the handles. A task made on replica A
// (a 2025-11-25 tools/call with `task`, through the official SDK client) is read, listed,
// cancelled and its result fetched on replica B, with no affinity, its status message too; the
// replica that runs the work sees a cancellation made on the other and stops polling; a 2026-07-28 client of the tasks
// extension (the ext-tasks client) whose requests go to each replica in turn sees its task
// settle. Each client brings its own API key (--auth-from-headers): another key finds no task of
// the owner's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, generateProject, TMP } from '../../harness/project.js';
import { everythingStored, redisMissing } from '../harness/redis.js';
import { StoreReplicas } from '../harness/replicas.js';
import { startJobsUpstream, type Upstream } from '../harness/upstream.js';
import { KEYED_JOBS_SPEC } from '../harness/specs.js';
import { ask, rawDispatch, startJobTask, statusMessages, type WireTask } from '../harness/task-requests.js';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';

if (redisMissing !== undefined) console.log(`task-store.test.ts: ${redisMissing}: skipped`);

const OWNER_KEY = 'k-owner-of-the-task';
const OTHER_KEY = 'k-someone-else';

let upstream: Upstream;
let jobs: () => number;
let finished: Set<string>;
let replicas: StoreReplicas;

beforeAll(async () => {
  if (redisMissing !== undefined) return;
  ({ upstream, jobs, finished } = await startJobsUpstream());
  mkdirSync(TMP, { recursive: true });
  const spec = join(TMP, 'task-store.json');
  writeFileSync(spec, JSON.stringify(KEYED_JOBS_SPEC));
  const dir = generateProject(spec, 'e2e-task-store');
  await buildProject(dir);
  replicas = await StoreReplicas.start(dir, ['--stateless', '--auth-from-headers', 'X-Api-Key=key', '--base-url', upstream.url]);
}, 300_000);

afterAll(async () => {
  await replicas?.stop();
  await upstream?.close();
});

const client = (replica: number, key: string) => replicas.client(replica, key);

const startJob = (c: Client) => startJobTask(c, jobs);
const statusChecks = (job: string) => upstream.requests.filter((r) => r.path === `/status/${job}`).length;

describe.skipIf(redisMissing !== undefined)('tasks in a store the replicas share (Redis)', () => {
  it('a task made on replica A is read, listed and its result fetched on replica B; another caller finds nothing', async () => {
    const [onA, onB, otherOnB] = [await client(0, OWNER_KEY), await client(1, OWNER_KEY), await client(1, OTHER_KEY)];
    const { task, job } = await startJob(onA);
    const taskId = task.taskId;

    expect(await ask(onB, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working', ttl: 60_000 });
    expect(((await ask(onB, 'tasks/list')) as { tasks: WireTask[] }).tasks.map((t) => t.taskId)).toContain(taskId);

    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      await expect(ask(otherOnB, method, { taskId }), method).rejects.toThrow(/No task/);
    }
    expect(await ask(otherOnB, 'tasks/list')).toEqual({ tasks: [] });

    // tasks/result on B waits for the work A does, across the store.
    const result = ask(onB, 'tasks/result', { taskId });
    await new Promise((r) => setTimeout(r, 500));
    finished.add(job);
    expect(await result).toMatchObject({
      content: [{ type: 'text', text: JSON.stringify({ status: 'Succeeded', result: { id: job } }) }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    expect(await ask(onB, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'completed' });
    // Every status check went with the owner's key, from the replica that runs the task.
    expect(new Set(upstream.requests.filter((r) => r.path === `/status/${job}`).map((r) => r.headers['x-api-key']))).toEqual(
      new Set([OWNER_KEY]),
    );
  }, 60_000);

  it('the status message replica A writes as it follows the operation is read on replica B, and is gone once the task has ended', async () => {
    const [onA, onB] = [await client(0, OWNER_KEY), await client(1, OWNER_KEY)];
    const { task, job } = await startJob(onA);
    const taskId = task.taskId;
    const told = await statusMessages(onB, taskId, 2);
    expect(told).toEqual([
      expect.stringMatching(/^startJob: Running \(status check 1\)$/),
      expect.stringMatching(/^startJob: Running \(status check 2\)$/),
    ]);
    finished.add(job);
    await ask(onB, 'tasks/result', { taskId });
    const ended = await ask(onB, 'tasks/get', { taskId });
    expect(ended).toMatchObject({ status: 'completed' });
    expect(ended).not.toHaveProperty('statusMessage');
  }, 60_000);

  it('a task cancelled on replica B is cancelled everywhere, and replica A stops following its operation', async () => {
    const [onA, onB] = [await client(0, OWNER_KEY), await client(1, OWNER_KEY)];
    const { task, job } = await startJob(onA);
    const taskId = task.taskId;
    while (statusChecks(job) < 1) await new Promise((r) => setTimeout(r, 50));

    expect(await ask(onB, 'tasks/cancel', { taskId })).toMatchObject({ taskId, status: 'cancelled' });
    // A checks its running tasks' flags every half second, and polls its upstream once a second.
    await new Promise((r) => setTimeout(r, 1_500));
    const seen = statusChecks(job);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(statusChecks(job)).toBe(seen);
    expect(await ask(onA, 'tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
    await expect(ask(onA, 'tasks/cancel', { taskId })).rejects.toThrow(/already ended \(cancelled\)/);
  }, 60_000);

  it('the store holds neither the task id, nor a credential, nor the status URL in the clear', async () => {
    const { task } = await startJob(await client(0, OWNER_KEY));
    const stored = await everythingStored(replicas.redis.url);
    expect(stored).toMatch(/^mcp-gen:task:/m);
    for (const secret of [OWNER_KEY, upstream.url, task.taskId]) expect(stored).not.toContain(secret);
  }, 60_000);

  it('2026-07-28 (the tasks extension, through the ext-tasks client) with each request sent to the other replica: the task settles with its result', async () => {
    const c = await replicas.client(0, OWNER_KEY, true);
    const sentTo: [string, number][] = [];
    const roundRobin = (method: string) => {
      const replica = sentTo.length % 2;
      sentTo.push([method, replica]);
      return replicas.servers[replica]!.url;
    };
    const session = createTaskSessionFromClient(c, {
      endpointId: 'e2e-replicas-2026',
      rawDispatch: rawDispatch(roundRobin, { 'X-Api-Key': OWNER_KEY }),
      v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: { name: 'e2e', version: '1' }, clientCapabilities: {} },
    });
    try {
      const before = jobs();
      const execution = await session.callTool('startJob', {}, { task: { preference: 'require' } });
      expect(execution.kind).toBe('task');
      while (jobs() === before) await new Promise((r) => setTimeout(r, 20));
      finished.add(`j${jobs()}`);
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      const result = resultFromTaskOutcome(outcome) as { content: { text: string }[] };
      expect(JSON.parse(result.content[0]!.text)).toEqual({ status: 'Succeeded', result: { id: `j${jobs()}` } });
      expect(sentTo[0]).toEqual(['tools/call', 0]);
      expect(sentTo.filter(([method, replica]) => method === 'tasks/get' && replica === 1).length).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
  }, 60_000);
});
