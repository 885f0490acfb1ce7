// The platforms' own runtimes, installed from npm as this repository's devDependencies: workerd
// through `wrangler dev`, and deno. Each is started in its own process group, so that stopping
// it stops what it started too (wrangler runs workerd as a child).

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../harness/project.js';

export interface PlatformServer {
  /** The server's origin (the MCP endpoint is /mcp). */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

const BIN = join(REPO, 'node_modules/.bin');

/**
 * `wrangler dev` on 127.0.0.1:<port>, offline (no metrics, no Cloudflare account), ready when its
 * health check answers; `vars` over those of .dev.vars; `args` more of wrangler's (`--persist-to`).
 */
export function startWrangler(dir: string, port: number, vars: Record<string, string> = {}, args: string[] = []): Promise<PlatformServer> {
  const overrides = [...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]), ...args];
  const child = spawn(
    join(BIN, 'wrangler'),
    ['dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn', '--show-interactive-dev-session=false', ...overrides],
    {
      cwd: dir,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return untilReady(child, `http://127.0.0.1:${port}`, (url) => probe(url));
}

/** `deno task start` (the project's deno.json) on 127.0.0.1:<port>; `vars` over those of .env. */
export function startDeno(dir: string, port: number, vars: Record<string, string> = {}): Promise<PlatformServer> {
  const child = spawn(join(BIN, 'deno'), ['task', 'start'], {
    cwd: dir,
    detached: true,
    env: {
      PATH: `${BIN}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? dir,
      PORT: String(port),
      NO_COLOR: '1',
      DENO_NO_UPDATE_CHECK: '1',
      ...vars,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return untilReady(child, `http://127.0.0.1:${port}`, (url) => probe(url));
}

/** Whether the endpoint answers (its health check) yet; a server that refuses its settings (503) fails at once. */
async function probe(url: string): Promise<boolean> {
  let answer: Response;
  try {
    answer = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(2000) });
  } catch {
    return false;
  }
  if (answer.status === 503) throw new Error(`refused its settings: ${await answer.text()}`);
  return answer.ok;
}

async function untilReady(child: ChildProcess, url: string, ready: (url: string) => Promise<boolean>): Promise<PlatformServer> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const server: PlatformServer = { url, output: () => output, stop: () => stopGroup(child) };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`exited with ${exited} before serving:\n${output}`);
    const answered = await ready(url).catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    if (answered) return server;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  await server.stop();
  throw new Error(`not serving after 120 s:\n${output}`);
}

/** SIGTERM to the whole group, then SIGKILL if it lingers. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
  signal('SIGKILL');
}

/**
 * The project's node_modules (a link to the tests' shared install) as a folder of its own, hard
 * links where the file system allows: Deno's --allow-read=. covers the project's folder, and
 * reads the files a package loads at run time (QuickJS's .wasm) by their real path.
 */
export function ownNodeModules(dir: string): void {
  const link = join(dir, 'node_modules');
  const shared = realpathSync(link);
  rmSync(link, { force: true });
  try {
    execFileSync('cp', ['-al', shared, link]);
  } catch {
    execFileSync('cp', ['-a', shared, link]);
  }
}

/** The Vercel function of `dir` (api/mcp.ts) behind test/harness/vercel-adapter.mts on 127.0.0.1:<port>; `vars`: its environment. */
export function startVercel(dir: string, port: number, vars: Record<string, string>): Promise<PlatformServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/harness/vercel-adapter.mts'), dir, String(port)], {
    cwd: REPO,
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return untilReady(child, `http://127.0.0.1:${port}`, (url) => probe(url));
}

/**
 * Starts servers side by side; when one fails to start, those that did are stopped before the
 * failure is thrown, since nothing else holds them to stop them.
 */
export async function startTogether<T extends readonly Promise<{ stop(): Promise<void> }>[]>(
  starts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.stop() : undefined)));
    throw failed.reason;
  }
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as never;
}
