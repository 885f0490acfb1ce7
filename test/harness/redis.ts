// A real Redis for the tests: redis-server on 127.0.0.1 and a free port, in a temp folder, with
// nothing saved to disk. Where /usr/bin/redis-server is missing (.ci/run installs it best effort)
// the tests skip with the reason that redisMissing gives.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopChild } from '../../harness/process.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const START_TIMEOUT_MS = 10_000;

/** Why Redis tests cannot run here, or undefined when they can. */
export const redisMissing: string | undefined = existsSync(REDIS_SERVER)
  ? undefined
  : `${REDIS_SERVER} is not installed (apt-get install redis-server; .ci/run does it best effort)`;

export interface RedisServer {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The redis-server process (SIGSTOP it to make a Redis that stops answering). */
  pid: number;
  stop(): Promise<void>;
}

/** A new server; `port` starts one again where a stopped one listened (a Redis restart). */
export async function startRedis(port?: number): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-gen-redis-'));
  port ??= await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await readyLine(child.stdout);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid!, stop };
}

/** Resolves when redis-server logs that it accepts connections. */
function readyLine(output: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`redis-server not ready after ${START_TIMEOUT_MS} ms:\n${seen}`)), START_TIMEOUT_MS);
    output.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    // after the ready line, this rejection is a no-op
    output.on('end', () => {
      clearTimeout(timer);
      reject(new Error(`redis-server ended:\n${seen}`));
    });
  });
}

/** Every key of the Redis at `url` and what it holds (strings, hashes, sorted sets' members), as one text to search for what must not be there. */
export async function everythingStored(url: string): Promise<string> {
  const { createClient } = await import('redis');
  const reader = createClient({ url });
  await reader.connect();
  try {
    const keys = await reader.keys('*');
    const values = await Promise.all(
      keys.map(async (key) => {
        const type = await reader.type(key);
        if (type === 'string') return (await reader.get(key)) ?? '';
        if (type === 'hash') return JSON.stringify(await reader.hGetAll(key));
        return type === 'zset' ? (await reader.zRange(key, 0, -1)).join('\n') : '';
      }),
    );
    return [...keys, ...values].join('\n');
  } finally {
    await reader.close();
  }
}
