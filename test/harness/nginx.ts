// A real nginx for the tests, run with the ```nginx blocks of docs/deploy.md verbatim: the
// replicas' addresses (`replica-<id>:3000`) and the listen port replaced by local ones, the block
// wrapped in an http {} whose paths are all in a scratch folder. Where nginx is missing (.ci/run
// installs it) the tests skip with the reason that nginxMissing gives. nginx runs in its own
// process group and is stopped with its workers; a process of it left running fails the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { exitOf, type Children } from './children.js';

const NGINX = ['/usr/sbin/nginx', ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'nginx'))].find((p) => existsSync(p));

/** Why nginx tests cannot run here, or undefined when they can. */
export const nginxMissing: string | undefined = NGINX ? undefined : 'nginx is not installed (apt-get install nginx; .ci/run does it)';

/** The ```nginx blocks of docs/deploy.md, by the scenario their first line names. */
export function documentedConfigs(): Map<string, string> {
  const markdown = readFileSync(join(REPO, 'docs/deploy.md'), 'utf8');
  const configs = new Map<string, string>();
  for (const [, block] of markdown.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)) {
    const scenario = /^# mcp-gen test: (\S+)\n/.exec(block ?? '')?.[1];
    if (scenario === undefined) throw new Error(`docs/deploy.md: an nginx block without "# mcp-gen test: <scenario>":\n${block}`);
    configs.set(scenario, block as string);
  }
  return configs;
}

export interface Nginx {
  url: string;
  /** With accessLog: one line per request, `<upstream address(es)>|<method>|<uri>|<status>|<Mcp-Session-Id>`. */
  log(): string;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** Holds each run's folder (config, logs, temp files). */
  scratch: string;
  children: Children;
  /** Lines added to http {} before the block, e.g. a short proxy_read_timeout. */
  http?: string[];
  /** Applied to the block once its addresses are replaced. */
  edit?: (conf: string) => string;
  /** Listen on this port (a replica's --public-url may name it already); else a free one, retried if taken meanwhile. */
  port?: number;
  /** Log which replica answered each request (outside the block: the documented block is run unchanged). */
  accessLog?: boolean;
}

/** Runs the documented block of `scenario` with `replicas` (id → host:port) in place of `replica-<id>:3000`. */
export async function startNginx(scenario: string, replicas: Record<string, string>, options: NginxOptions): Promise<Nginx> {
  const block = documentedConfigs().get(scenario);
  if (block === undefined) throw new Error(`docs/deploy.md has no nginx block "# mcp-gen test: ${scenario}"`);
  let conf = block;
  for (const [id, address] of Object.entries(replicas)) {
    if (!conf.includes(`replica-${id}:3000`)) throw new Error(`the ${scenario} block does not name replica-${id}:3000`);
    conf = conf.replaceAll(`replica-${id}:3000`, address);
  }
  if (!/^ {4}listen 8080;$/m.test(conf)) throw new Error(`the ${scenario} block does not listen on 8080`);
  // A port found free can be taken by another process before nginx binds it: then nginx
  // exits, and the port answers without nginx's Server header. Try another one.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const home = mkdtempSync(join(options.scratch, `${scenario}-`));
    chmodSync(home, 0o755); // nginx's workers run as nobody when started by root
    const path = (name: string) => join(home, name);
    mkdirSync(path('logs'));
    const edit = options.edit ?? ((c: string) => c);
    writeFileSync(
      path('nginx.conf'),
      [
        'worker_processes 1;',
        `pid ${path('nginx.pid')};`,
        `error_log ${path('logs/error.log')} warn;`,
        'events { worker_connections 1024; }',
        'http {',
        ...(options.accessLog
          ? [
              "  log_format replicas '$upstream_addr|$request_method|$uri|$status|$http_mcp_session_id';",
              `  access_log ${path('logs/access.log')} replicas;`,
            ]
          : ['  access_log off;']),
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path(t)};`),
        ...(options.http ?? []).map((line) => `  ${line}`),
        edit(conf.replace(/^ {4}listen 8080;$/m, `    listen 127.0.0.1:${port};`)),
        '}',
        '',
      ].join('\n'),
    );
    // Its own process group (pgid = the master's pid), so that its workers can be stopped with it.
    const child = spawn(NGINX as string, ['-p', home, '-c', path('nginx.conf'), '-e', path('logs/error.log'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let workers: number[] = [];
    const stop = () => stopNginx(child, workers);
    options.children.track(child, stop);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    while (child.exitCode === null && Date.now() < deadline) {
      const server = await fetch(`${url}/healthz`).then(
        (r) => r.headers.get('server') ?? '',
        () => '',
      );
      if (server.startsWith('nginx') && child.exitCode === null) {
        workers = childrenOf(child.pid as number);
        return {
          url,
          log: () => (existsSync(path('logs/access.log')) ? readFileSync(path('logs/access.log'), 'utf8') : ''),
          stop,
        };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await stop().catch(() => undefined);
    const log = `${stderr}${existsSync(path('logs/error.log')) ? readFileSync(path('logs/error.log'), 'utf8') : ''}`;
    if (options.port !== undefined || attempt === 3 || !/Address already in use/.test(log))
      throw new Error(`nginx (${scenario}) did not start: ${log}`);
  }
}

/** Longest a fast shutdown may take before the whole group is killed. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * Stops nginx and its workers: SIGTERM to the master (nginx's fast shutdown: it stops its
 * workers and waits for them), the whole process group SIGKILLed if it is not done in time, so
 * that no worker outlives its master. Then checks it: a worker, or any process of the group,
 * still running fails the test (and is killed, so that none stays).
 */
async function stopNginx(master: ChildProcess, workers: readonly number[]): Promise<void> {
  const group = master.pid as number;
  const exited = exitOf(master);
  if (master.exitCode === null && master.signalCode === null) master.kill('SIGTERM');
  const inTime = await Promise.race([exited.then(() => true), delay(STOP_TIMEOUT_MS).then(() => false)]);
  if (!inTime) killGroup(group);
  await exited;
  for (const deadline = Date.now() + 2_000; groupMembers(group).length > 0 && Date.now() < deadline;) await delay(50);
  const left = [...new Set([...workers.filter(alive), ...groupMembers(group)])];
  if (left.length === 0) return;
  killGroup(group);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  throw new Error(`nginx (master ${group}) left process(es) ${left.join(', ')} running`);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGKILL to every process of the group; nothing when it is empty already. */
function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // ESRCH: no process is left in the group
  }
}

/** The running processes of process group `group`, from /proc. */
const groupMembers = (group: number): number[] => processes().filter((pid) => statOf(pid)?.pgrp === group && alive(pid));

const processes = (): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);

/** The processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return processes().filter((candidate) => statOf(candidate)?.ppid === pid);
}

/** Whether `pid` runs (a zombie has ended). */
const alive = (pid: number): boolean => {
  const state = statOf(pid)?.state;
  return state !== undefined && state !== 'Z';
};

/** State, parent and process group of a process, from /proc/<pid>/stat; undefined once it is gone. */
function statOf(pid: number): { state: string; ppid: number; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state as string, ppid: Number(ppid), pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}
