// Long-running operation handles in the platforms' own stores (MCP_OPERATION_STORE): a handle
// one server instance made is followed by another; on Deno, tasks too: one process runs a task
// that the other reads, lists, cancels and fetches the result of. Two `wrangler dev` instances share Workers KV
// (the binding the project's wrangler.jsonc names, simulated locally in one --persist-to folder);
// two `deno task start` processes share Deno KV (Deno.openKv() of the same project, in one
// DENO_DIR); two Lambda execution environments (the bundle under aws-lambda-ric) and two Vercel
// function instances share a real Redis. The official SDK client, a recording upstream that
// answers 202 and then Running until the test lets the job finish.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { ownNodeModules, startDeno, startVercel, startWrangler, type PlatformServer } from '../harness/platforms.js';
import { buildLambda, startLambda } from '../harness/function-url.js';
import { installPinned } from '../harness/pinned-tools.js';
import { redisMissing, startRedis, type RedisServer } from '../harness/redis.js';
import { startJobsUpstream, type Upstream } from '../harness/upstream.js';
import { JOBS_SPEC } from '../harness/specs.js';
import { ask, startJobTask, type WireTask } from '../harness/task-requests.js';

const STORE_KEY = randomBytes(32).toString('base64');

type Platform = 'cloudflare' | 'deno' | 'lambda' | 'vercel';

let upstream: Upstream;
let redis: RedisServer | undefined;
let dir: string;
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-e2e-platforms-state-'));
const instances: Record<Platform, PlatformServer[]> = { cloudflare: [], deno: [], lambda: [], vercel: [] };
// Where /usr/bin/redis-server is missing, the function platforms have no store to share.
const PLATFORMS: Platform[] = ['cloudflare', 'deno', ...(redisMissing ? [] : (['lambda', 'vercel'] as const))];
let finished: Set<string>;
let jobs: () => number;

beforeAll(async () => {
  ({ upstream, jobs, finished } = await startJobsUpstream());
  // Outside this repository, as platforms.test.ts explains (deno task and the repository's node_modules/.bin).
  dir = join(scratch, 'project');
  const spec = join(scratch, 'jobs.json');
  writeFileSync(spec, JSON.stringify(JOBS_SPEC));
  generateProject(spec, dir, ['--target', 'cloudflare,deno,lambda,vercel']);
  await buildProject(dir);
  buildLambda(dir);
  ownNodeModules(dir);
  const wrangler = join(dir, 'wrangler.jsonc');
  // The commented example of the template, taken up: a local namespace is simulated by wrangler dev.
  const config = readFileSync(wrangler, 'utf8').replace(/\/\/ ("kv_namespaces": .*"<namespace id>" }\],)/, '$1');
  writeFileSync(wrangler, config.replace('<namespace id>', 'local-operations'));
  const settings = { API_BASE_URL: upstream.url, API_OPERATION_WAIT_MS: '1500', MCP_TOKEN_STORE_KEY: STORE_KEY, LOG_LEVEL: 'warn' };
  const vars = Object.entries(settings).map(([name, value]) => `${name}=${value}`);
  writeFileSync(join(dir, '.dev.vars'), `${[...vars, 'MCP_OPERATION_STORE=workers-kv:MCP_OPERATIONS'].join('\n')}\n`);
  writeFileSync(join(dir, '.env'), `${[...vars, 'MCP_OPERATION_STORE=deno-kv'].join('\n')}\n`);
  const persist = ['--persist-to', join(scratch, 'wrangler-state')];
  const denoDir = { DENO_DIR: join(scratch, 'deno-dir') };
  for (let i = 0; i < 2; i++) {
    instances.cloudflare.push(await startWrangler(dir, await freePort(), {}, persist));
    instances.deno.push(await startDeno(dir, await freePort(), denoDir));
  }
  if (!redisMissing) await startOnNode(settings);
}, 300_000);

/** Two Lambda execution environments and two Vercel function instances, over one Redis. */
async function startOnNode(settings: Record<string, string>): Promise<void> {
  redis = await startRedis();
  const env = { ...settings, MCP_OPERATION_STORE: redis.url };
  const ric = await installPinned('lambda-ric', (d) => existsSync(join(d, 'node_modules/aws-lambda-ric/rapid-client.node')));
  for (let i = 0; i < 2; i++) {
    instances.lambda.push(await startLambda({ ric, taskRoot: join(dir, 'dist/lambda'), env }));
    instances.vercel.push(await startVercel(dir, await freePort(), env));
  }
}

afterAll(async () => {
  for (const server of Object.values(instances).flat()) await server.stop();
  await redis?.stop();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const handleOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result._meta?.['io.github.mcp-gen/operation'] as { handle?: string } | undefined)?.handle ?? '';

it('a KV namespace the setting names but wrangler.jsonc does not bind: every request is refused with the reason', async () => {
  const persist = ['--persist-to', join(scratch, 'wrangler-state')];
  const outcome = await startWrangler(dir, await freePort(), { MCP_OPERATION_STORE: 'workers-kv:NOT_BOUND' }, persist).then(
    (served) => (instances.cloudflare.push(served), 'served'),
    (error: Error) => error.message,
  );
  expect(outcome).toMatch(/MCP_OPERATION_STORE=workers-kv:NOT_BOUND: no KV namespace is bound as NOT_BOUND/);
}, 120_000);

describe.each(PLATFORMS)('operation handles in the platform store on %s', (platform) => {
  it('a handle made by one instance is followed by another to the result, and is spent once answered', async () => {
    const [first, second] = instances[platform] as [PlatformServer, PlatformServer];
    const [onFirst, onSecond] = [await connect('http', first.url), await connect('http', second.url)];
    try {
      const started = await onFirst.callTool({ name: 'startJob', arguments: {} }, { timeout: 30_000 });
      const handle = handleOf(started);
      expect(handle, text(started)).toMatch(/^op_[\w-]{24}$/);
      finished.add(`j${jobs()}`);
      const done = await onSecond.callTool({ name: 'get_operation_status', arguments: { handle } }, { timeout: 30_000 });
      expect(done.isError ?? false, text(done)).toBe(false);
      expect(JSON.parse(text(done))).toEqual({ status: 'Succeeded', result: { id: `j${jobs()}` } });
      const spent = await onFirst.callTool({ name: 'get_operation_status', arguments: { handle } });
      expect(spent.isError).toBe(true);
      expect(text(spent)).toMatch(/no operation with this handle/);
    } finally {
      await onFirst.close();
      await onSecond.close();
    }
  }, 60_000);
});

describe('tasks in Deno KV', () => {
  const statusChecks = (job: string) => upstream.requests.filter((r) => r.path === `/status/${job}`).length;

  it('a task one Deno process runs is read, listed and its result fetched on the other; one cancelled there stops its polling', async () => {
    const [first, second] = instances.deno as [PlatformServer, PlatformServer];
    const [onFirst, onSecond] = [await connect('http', first.url), await connect('http', second.url)];
    try {
      const done = await startJobTask(onFirst, jobs);
      const taskId = done.task.taskId;
      expect(await ask(onSecond, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
      expect(((await ask(onSecond, 'tasks/list')) as { tasks: WireTask[] }).tasks.map((t) => t.taskId)).toContain(taskId);
      const result = ask(onSecond, 'tasks/result', { taskId });
      finished.add(done.job);
      expect(await result).toMatchObject({
        content: [{ type: 'text', text: JSON.stringify({ status: 'Succeeded', result: { id: done.job } }) }],
      });

      const { task, job } = await startJobTask(onFirst, jobs);
      while (statusChecks(job) < 1) await new Promise((r) => setTimeout(r, 50));
      expect(await ask(onSecond, 'tasks/cancel', { taskId: task.taskId })).toMatchObject({ status: 'cancelled' });
      await new Promise((r) => setTimeout(r, 1_500));
      const seen = statusChecks(job);
      await new Promise((r) => setTimeout(r, 2_500));
      expect(statusChecks(job)).toBe(seen);
      expect(await ask(onFirst, 'tasks/get', { taskId: task.taskId })).toMatchObject({ status: 'cancelled' });
    } finally {
      await onFirst.close();
      await onSecond.close();
    }
  }, 60_000);
});
