// Small helpers shared by the measurements: paths, statistics, timed child processes.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from '../../harness/process.js';
import type { LatencyCell } from './results.js';

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

/** Makes `n` calls with `concurrency` of them in flight; a call that throws or returns false is an error. */
export async function drive(n: number, concurrency: number, call: () => Promise<boolean>): Promise<{ ms: number; errors: number }> {
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      try {
        if (!(await call())) errors++;
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return { ms: performance.now() - started, errors };
}

/** One round of `sequentialCalls`. */
export type LatencyRun = LatencyCell['runs'][number] & { errors: number };

/**
 * `n` calls one after the other: the median and the mean of their latencies, ms, and the server
 * process's CPU per call (from /proc, in 10 ms steps: hence many calls). A call that throws or
 * returns false is an error.
 */
export async function sequentialCalls(n: number, call: () => Promise<boolean>, pid: number): Promise<LatencyRun> {
  const latencies: number[] = [];
  let errors = 0;
  const cpu0 = cpuMs(pid);
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    try {
      if (!(await call())) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - t0);
  }
  const ms = performance.now() - started;
  return { median: median(latencies), mean: ms / n, serverCpu: (cpuMs(pid) - cpu0) / n, errors };
}

/** A cell from its rounds of `sequentialCalls`: medians over the rounds, errors summed. */
export function latencyCell(list: LatencyRun[]): LatencyCell {
  return {
    runs: list.map(({ median: m, mean, serverCpu }) => ({ median: m, mean, serverCpu })),
    median: median(list.map((r) => r.median)),
    mean: median(list.map((r) => r.mean)),
    serverCpu: median(list.map((r) => r.serverCpu)),
    errors: list.reduce((a, r) => a + r.errors, 0),
  };
}

export interface LoadRun {
  ms: number;
  errors: number;
  /** CPU per call, ms. */
  cpu: { client: number; server: number; upstream: number };
}

/** One cell of a load table from its repetitions of `n` calls: median wall time and rate, errors summed, median CPU per call. */
export function summarize(list: LoadRun[], n: number) {
  const ms = median(list.map((r) => r.ms));
  return {
    runs: list.map((r) => r.ms),
    ms,
    perSecond: (n / ms) * 1000,
    errors: list.reduce((a, r) => a + r.errors, 0),
    cpu: {
      client: median(list.map((r) => r.cpu.client)),
      server: median(list.map((r) => r.cpu.server)),
      upstream: median(list.map((r) => r.cpu.upstream)),
    },
  };
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

/** First line of a tool's error output that says what went wrong. */
export function firstErrorLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /error/i.test(l)) ?? lines[0] ?? '(no output)';
}
