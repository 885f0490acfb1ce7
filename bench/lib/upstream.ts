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
  stop(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const child = spawn(process.execPath, [join(BENCH, 'upstream.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code}`)));
  });
  const counts = () =>
    new Promise<{ served: number; connections: number }>((resolve) => {
      lines.once('line', (line) => {
        const [served, connections] = line.split(' ').map(Number);
        resolve({ served: served ?? NaN, connections: connections ?? NaN });
      });
      child.stdin?.write('count\n');
    });
  return {
    url,
    child,
    counts,
    stop: async () => {
      child.stdin?.end();
      await stopChild(child);
    },
  };
}
