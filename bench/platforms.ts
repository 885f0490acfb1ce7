// 12. Generated servers on the platforms' runtimes (issue #40): the Petstore and GitHub
// (dynamic) projects generated with --target node,cloudflare,deno, each served by Node
// (`node dist/main.js --transport http --stateless`), workerd (`wrangler dev`) and Deno
// (`deno task start`). Cold start to the first answered `initialize`, CPU per `tools/call`
// of each server's whole process group, and the Worker bundle's size against Cloudflare's limits.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject } from '../harness/project.js';
import { freePort, groupCpuMs } from '../harness/process.js';
import { stopGroup } from '../test/harness/platforms.js';
import { GITHUB } from './lib/fixtures.js';
import { PLATFORM_TARGETS, type PlatformProject, type PlatformTarget, type PlatformsResult, type WorkerBundle } from './lib/results.js';
import { startUpstream, type Upstream } from './lib/upstream.js';
import { REPO, interleave, log, median, sleep, timedRun } from './lib/util.js';

interface ProjectSpec {
  key: string;
  label: string;
  spec: string;
  flags: string[];
  variables: string[];
  tool: string;
  args: Record<string, unknown>;
  /** Arguments the server must refuse before any request (a check that cannot run would let them through). */
  wrongArgs: Record<string, unknown>;
}

const PROJECTS: ProjectSpec[] = [
  {
    key: 'petstore',
    label: 'Petstore (20 tools)',
    spec: join(REPO, 'samples/petstore/openapi.json'),
    flags: [],
    variables: ['SWAGGER_PETSTORE_API_KEY=bench'],
    tool: 'getPetById',
    args: { petId: 1 },
    wrongArgs: { petId: 'not-a-number' },
  },
  {
    key: 'github-dynamic',
    label: 'GitHub, 1,223 operations (`--tools dynamic`)',
    spec: GITHUB,
    flags: ['--tools', 'dynamic'],
    variables: [],
    tool: 'invoke_operation',
    args: { name: 'repos_get', arguments: { owner: 'octo', repo: 'bench' } },
    wrongArgs: { name: 'repos_get', arguments: { owner: 'octo' } },
  },
];

/** A server of one target, spawned in its own process group. */
interface Spawned {
  child: ChildProcess;
  url: string;
}

const BIN = join(REPO, 'node_modules/.bin');
/** Quiet, offline tools: no metrics, no update checks, no colours. */
const TOOL_ENV = { WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' };

/** Each target's command, as a user starts it (wrangler and deno from this repository's devDependencies). */
function command(target: PlatformTarget, port: number): [string, string[], Record<string, string>] {
  // Stateless on every target, so that they compare like with like: without MCP_STATELESS a
  // Worker keeps the SDK client's 2025-era session in a Durable Object.
  if (target === 'cloudflare') {
    const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn', '--show-interactive-dev-session=false'];
    return [join(BIN, 'wrangler'), [...args, '--var', 'MCP_STATELESS:true'], {}];
  }
  // `deno task` finds deno on PATH for the task's own command line.
  if (target === 'deno') return [join(BIN, 'deno'), ['task', 'start'], { PORT: String(port), PATH: `${BIN}:${process.env.PATH ?? ''}` }];
  return ['node', ['dist/main.js', '--transport', 'http', '--stateless', '--port', String(port)], {}];
}

/** Spawns a target's server in its own process group (wrangler runs workerd, `deno task` runs deno). */
function spawnTarget(target: PlatformTarget, dir: string, port: number, env: Record<string, string>): Spawned {
  const [file, args, own] = command(target, port);
  const child = spawn(file, args, {
    cwd: dir,
    detached: true,
    // Node reads its variables from the environment; the platforms from .dev.vars and .env.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...TOOL_ENV, ...(target === 'node' ? env : {}), ...own },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Drained: a full pipe would block a server that logs.
  child.stdout?.resume();
  child.stderr?.resume();
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Connects the SDK client as soon as the server answers `initialize`: the time from `since`. */
async function firstInitialize(server: Spawned, since: number): Promise<{ client: Client; ms: number }> {
  const deadline = since + 120_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`exited with ${server.child.exitCode} before answering`);
    try {
      const client = await connect('http', server.url);
      return { client, ms: performance.now() - since };
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await sleep(10);
    }
  }
}

/** The answer the bench upstream gives is in the result: the call really went through. */
function okText(result: unknown): boolean {
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  return !r.isError && (r.content ?? []).some((c) => c.type === 'text' && (c.text ?? '').includes('doggie'));
}

/** Generates and builds a project outside this repository (`deno task` would take its node_modules/.bin/deno), with its variables for each platform. */
async function prepare(project: ProjectSpec, upstream: string): Promise<{ dir: string; env: Record<string, string> }> {
  log(`platforms: generating and building the ${project.key} project for node, cloudflare, deno`);
  const dir = generateProject(project.spec, join(tmpdir(), `mcp-gen-bench-platforms-${project.key}`), [
    '--target',
    'node,cloudflare,deno',
    ...project.flags,
  ]);
  await buildProject(dir);
  const variables = [`API_BASE_URL=${upstream}`, ...project.variables, 'LOG_LEVEL=warn'];
  for (const file of ['.dev.vars', '.env']) writeFileSync(join(dir, file), `${variables.join('\n')}\n`);
  return { dir, env: Object.fromEntries(variables.map((v) => v.split('=', 2) as [string, string])) };
}

async function coldStarts(dir: string, env: Record<string, string>, reps: number) {
  const errors: Partial<Record<PlatformTarget, string>> = {};
  let tools: number | undefined;
  const runs = await interleave(reps, [...PLATFORM_TARGETS], async (target) => {
    const server = spawnTarget(target, dir, await freePort(), env);
    try {
      const { client, ms } = await firstInitialize(server, performance.now());
      tools ??= (await client.listTools()).tools.length;
      await client.close();
      return ms;
    } catch (error) {
      errors[target] ??= (error as Error).message.split('\n')[0];
      return NaN;
    } finally {
      await stopGroup(server.child);
    }
  });
  const start: PlatformProject['start'] = {};
  for (const target of PLATFORM_TARGETS)
    start[target] = { runs: runs[target], ms: median(runs[target]), ...(errors[target] ? { error: errors[target] } : {}) };
  return { start, tools };
}

interface Open {
  server: Spawned;
  client: Client;
}

/** Whether the server refuses wrong arguments itself: an error result, and no request reached the upstream. */
async function checksArguments(client: Client, project: ProjectSpec, upstream: Upstream): Promise<boolean> {
  const before = (await upstream.counts()).served;
  const result = await client.callTool({ name: project.tool, arguments: project.wrongArgs }).catch(() => ({ isError: false }));
  return result.isError === true && (await upstream.counts()).served === before;
}

/** Rounds of `calls` sequential calls to each target, interleaved; CPU of each server's process group from /proc. */
async function callCosts(
  project: ProjectSpec,
  dir: string,
  env: Record<string, string>,
  upstream: Upstream,
  calls: number,
  rounds: number,
) {
  const open: Partial<Record<PlatformTarget, Open>> = {};
  const out: PlatformProject['calls'] = {};
  const checked: Partial<Record<PlatformTarget, boolean>> = {};
  const call = (client: Client) => async () => okText(await client.callTool({ name: project.tool, arguments: project.args }));
  try {
    for (const target of PLATFORM_TARGETS) {
      const server = spawnTarget(target, dir, await freePort(), env);
      try {
        const { client } = await firstInitialize(server, performance.now());
        open[target] = { server, client };
        // Warm-up (JIT, lazily built validators, the upstream's connections); also checks the answer.
        for (let i = 0; i < 30; i++) if (!(await call(client)())) throw new Error('the call did not return the upstream answer');
        checked[target] = await checksArguments(client, project, upstream);
      } catch (error) {
        await stopGroup(server.child);
        delete open[target];
        out[target] = { runs: [], wallMs: NaN, cpuMs: NaN, byProcess: {}, errors: 0, error: (error as Error).message.split('\n')[0] };
      }
    }
    const ready = PLATFORM_TARGETS.filter((t) => open[t]);
    const byProcess: Partial<Record<PlatformTarget, Record<string, number>>> = {};
    const errors: Partial<Record<PlatformTarget, number>> = {};
    const runs = await interleave(rounds, ready, async (target) => {
      const { server, client } = open[target] as Open;
      const pgid = server.child.pid as number;
      const before = groupCpuMs(pgid);
      const started = performance.now();
      for (let i = 0; i < calls; i++) if (!(await call(client)().catch(() => false))) errors[target] = (errors[target] ?? 0) + 1;
      const wallMs = (performance.now() - started) / calls;
      const after = groupCpuMs(pgid);
      const sums = (byProcess[target] ??= {});
      for (const [name, ms] of Object.entries(after)) sums[name] = (sums[name] ?? 0) + (ms - (before[name] ?? 0)) / calls / rounds;
      const cpu = Object.entries(after).reduce((a, [name, ms]) => a + ms - (before[name] ?? 0), 0);
      return { wallMs, cpuMs: cpu / calls };
    });
    for (const target of ready)
      out[target] = {
        runs: runs[target],
        wallMs: median(runs[target].map((r) => r.wallMs)),
        cpuMs: median(runs[target].map((r) => r.cpuMs)),
        byProcess: byProcess[target] ?? {},
        errors: errors[target] ?? 0,
        checksArguments: checked[target] ?? false,
      };
  } finally {
    for (const { server, client } of Object.values(open)) {
      await client.close().catch(() => undefined);
      await stopGroup(server.child);
    }
  }
  return out;
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

/** `wrangler deploy --dry-run --outdir`: bundles the Worker as a deploy would, without an account or the network. */
async function workerBundle(dir: string): Promise<WorkerBundle> {
  const outdir = join(dir, '.bench-bundle');
  rmSync(outdir, { recursive: true, force: true });
  const run = await timedRun(join(BIN, 'wrangler'), ['deploy', '--dry-run', '--outdir', outdir], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...TOOL_ENV },
    timeoutMs: 300_000,
  });
  try {
    if (run.code !== 0)
      return { ms: run.ms, files: 0, bytes: NaN, gzipBytes: NaN, error: run.output.trim().split('\n').slice(-3).join(' ') };
    const files = filesUnder(outdir).filter((f) => !f.endsWith('.map') && !f.endsWith('README.md'));
    const contents = files.map((f) => readFileSync(f));
    const printed = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(run.output);
    return {
      ms: run.ms,
      files: files.length,
      bytes: contents.reduce((a, c) => a + c.length, 0),
      gzipBytes: contents.reduce((a, c) => a + gzipSync(c).length, 0),
      ...(printed ? { wrangler: { kib: Number(printed[1]), gzipKib: Number(printed[2]) } } : {}),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const version = (file: string) => (JSON.parse(readFileSync(join(REPO, file), 'utf8')) as { version: string }).version;

export async function runPlatforms(options: { quick: boolean }): Promise<PlatformsResult> {
  const reps = options.quick ? 3 : 5;
  const calls = options.quick ? 100 : 300;
  const callReps = options.quick ? 1 : 3;
  const upstream = await startUpstream();
  const projects: PlatformProject[] = [];
  try {
    for (const project of PROJECTS) {
      const { dir, env } = await prepare(project, upstream.url);
      try {
        log(`platforms: ${project.key}: the Worker bundle (wrangler deploy --dry-run)`);
        const bundle = await workerBundle(dir);
        log(`platforms: ${project.key}: cold start, ${reps} × ${PLATFORM_TARGETS.join(', ')}`);
        const { start, tools } = await coldStarts(dir, env, reps);
        log(`platforms: ${project.key}: ${callReps} × ${calls} sequential calls to each`);
        const cells = await callCosts(project, dir, env, upstream, calls, callReps);
        const call = `${project.tool} ${JSON.stringify(project.args)}`;
        const wrongCall = `${project.tool} ${JSON.stringify(project.wrongArgs)}`;
        projects.push({
          key: project.key,
          label: project.label,
          ...(tools !== undefined ? { tools } : {}),
          start,
          calls: cells,
          call,
          wrongCall,
          bundle,
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await upstream.stop();
  }
  const deno = execFileSync(join(BIN, 'deno'), ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  return { reps, calls, callReps, versions: { wrangler: version('node_modules/wrangler/package.json'), deno }, projects };
}
