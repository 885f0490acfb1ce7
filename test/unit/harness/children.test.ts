// The test harness's child-process bookkeeping, on real processes.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Children, exitOf } from '../../harness/children.js';

const sleeper = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });

describe('exitOf', () => {
  it('gives the code of a process that ends by itself, and the time it was seen', async () => {
    const before = Date.now();
    const exit = await exitOf(spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' }));
    expect(exit).toMatchObject({ code: 3, signal: null });
    expect(exit.at).toBeGreaterThanOrEqual(before);
  });

  it('resolves at once for a process that has already exited', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await exitOf(child);
    expect(await exitOf(child)).toMatchObject({ code: 0, signal: null });
  });
});

describe('Children', () => {
  it('stopAll kills every tracked process, and leaves the others alone', async () => {
    const children = new Children();
    const tracked = [children.track(sleeper()), children.track(sleeper())];
    const untracked = sleeper();
    try {
      await children.stopAll();
      expect(await Promise.all(tracked.map(async (child) => (await exitOf(child)).signal))).toEqual(['SIGKILL', 'SIGKILL']);
      expect(untracked.exitCode).toBeNull();
      expect(untracked.signalCode).toBeNull();
    } finally {
      untracked.kill('SIGKILL');
    }
  });

  it('stopAll does not wait on a process that has already exited', async () => {
    const children = new Children();
    const done = children.track(spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }));
    await exitOf(done);
    await children.stopAll();
    expect(done.exitCode).toBe(0);
  });
});
