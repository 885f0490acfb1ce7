// A beforeAll that starts several servers and fails on one must not leave the others running:
// nothing else would stop them (the platforms' e2e once left deno and wrangler behind).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTogether } from '../../harness/platforms.js';

async function listening(): Promise<{ port: number; stop(): Promise<void>; stopped: () => boolean }> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    stopped: () => !server.listening,
  };
}

describe('startTogether', () => {
  it('stops the servers that started when another fails, then throws its failure', async () => {
    const started = listening();
    const failing = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('port taken')), 20));
    await expect(startTogether([started, failing] as const)).rejects.toThrow('port taken');
    expect((await started).stopped()).toBe(true);
  });

  it('gives every server, in order, when all start', async () => {
    const [first, second] = await startTogether([listening(), listening()] as const);
    expect(first.port).not.toBe(second.port);
    await Promise.all([first.stop(), second.stop()]);
  });
});
