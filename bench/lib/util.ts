// Small helpers shared by the measurements: paths, statistics, timed child processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BENCH = join(REPO, 'bench');
export const TMP = join(BENCH, '.tmp');

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Progress on stderr, so that a long run shows where it is. */
export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/**
 * Runs `reps` rounds; in each round every variant runs once, and the order rotates from
 * round to round, so that a slow spell of the machine hits every variant alike.
 */
export async function interleave<K extends string, T>(
  reps: number,
  variants: K[],
  run: (variant: K, rep: number) => Promise<T>,
): Promise<Record<K, T[]>> {
  const out = Object.fromEntries(variants.map((v) => [v, [] as T[]])) as Record<K, T[]>;
  for (let rep = 0; rep < reps; rep++) {
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(i + rep) % variants.length] as K;
      out[variant].push(await run(variant, rep));
    }
  }
  return out;
}

export interface TimedRun {
  ms: number;
  /** Peak resident set size of the process (and its largest child), from /usr/bin/time. */
  maxRssMb: number;
  code: number | null;
  /** The last part of stdout and stderr together (tsc reports on stdout), for error messages. */
  output: string;
}

const HAVE_TIME = existsSync('/usr/bin/time');

/** Spawns a command and measures its wall time (our clock) and peak RSS (/usr/bin/time). */
export function timedRun(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<TimedRun> {
  const rssFile = join(ensureDir(TMP), `time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const argv = HAVE_TIME ? ['/usr/bin/time', '-f', '%M', '-o', rssFile, command, ...args] : [command, ...args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: options.cwd ?? REPO,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The start (where the first error is) and the end (where a crash is) of the output.
    let head = '';
    let tail = '';
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      if (head.length < 32_000) head += text.slice(0, 32_000 - head.length);
      tail = (tail + text).slice(-8_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (timer) clearTimeout(timer);
      let maxRssMb = NaN;
      if (HAVE_TIME && existsSync(rssFile)) {
        // time(1) writes "Command exited with non-zero status N" before the format line.
        const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
        maxRssMb = Number(lines[lines.length - 1]) / 1024;
        rmSync(rssFile, { force: true });
      }
      resolve({ ms, maxRssMb, code, output: head.length < 32_000 ? head : `${head}\n…\n${tail}` });
    });
  });
}

/** A free TCP port on 127.0.0.1 (for servers that take their port from the environment). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a live process, from /proc/<pid>/status, in KB. */
export function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) : NaN;
}

/** CPU time (user + system) a live process has used so far, from /proc/<pid>/stat, in ms (10 ms resolution). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Stops a child process we started and waits until it is gone. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** First line of a tool's error output that says what went wrong. */
export function firstErrorLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /error/i.test(l)) ?? lines[0] ?? '(no output)';
}

export const round = (value: number, digits = 0) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : NaN);
