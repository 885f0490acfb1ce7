// The upstream of the call benchmarks (bench/upstream.mjs) in its own process.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stopChild } from '../../harness/process.js';
import { BENCH } from './util.js';

export interface Upstream {
  url: string;
  child: ChildProcess;
  /** Requests served and TCP connections accepted so far. */
  counts(): Promise<{ served: number; connections: number }>;
  /** Retries of `GET /pet/503` since the last asking, and their summed gap from the 503 to the retry's arrival, ms. */
  retries(): Promise<{ retries: number; gapMs: number }>;
  stop(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const child = spawn(process.execPath, [join(BENCH, 'upstream.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code}`)));
  });
  /** The two numbers the upstream prints in answer to `command`. */
  const ask = (command: string) =>
    new Promise<[number, number]>((resolve) => {
      lines.once('line', (line) => {
        const [a, b] = line.split(' ').map(Number);
        resolve([a ?? NaN, b ?? NaN]);
      });
      child.stdin?.write(`${command}\n`);
    });
  return {
    url,
    child,
    counts: async () => {
      const [served, connections] = await ask('count');
      return { served, connections };
    },
    retries: async () => {
      const [retries, gapMs] = await ask('retries');
      return { retries, gapMs };
    },
    stop: async () => {
      child.stdin?.end();
      await stopChild(child);
    },
  };
}
