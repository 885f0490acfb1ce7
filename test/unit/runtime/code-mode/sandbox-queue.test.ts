// The code-mode pool's queue (sandbox-queue.ts): whose program gets a freed worker, the caps on
// waiting, and a cancelled program leaving the queue.
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../../../src/runtime/code-mode/sandbox-queue.js';

const never = new AbortController().signal;
const waiting = (entered: ReturnType<FairQueue['enter']>) => {
  if (!(entered instanceof Promise)) throw new Error(`refused: ${entered.refused}`);
  return entered;
};

describe('FairQueue', () => {
  it('gives a freed worker to the caller with the fewest programs running, then takes turns', async () => {
    const queue = new FairQueue({ perCaller: 4, total: 32 });
    const running = new Map([['crowd', 2]]);
    const order: string[] = [];
    const turns = [
      ...[1, 2, 3].map((n) => waiting(queue.enter('crowd', never)).then(() => order.push(`crowd${n}`))),
      waiting(queue.enter('other', never)).then(() => order.push('other')),
    ];
    const next = () => {
      const caller = queue.next((c) => running.get(c) ?? 0);
      if (caller !== undefined) running.set(caller, (running.get(caller) ?? 0) + 1);
      return caller;
    };
    expect(next()).toBe('other');
    expect([next(), next(), next(), next()]).toEqual(['crowd', 'crowd', 'crowd', undefined]);
    await Promise.all(turns);
    expect(order).toEqual(['other', 'crowd1', 'crowd2', 'crowd3']);
    expect(queue.waiting).toBe(0);
  });

  it('refuses past the per-caller and the total cap, with a message saying so', () => {
    const queue = new FairQueue({ perCaller: 2, total: 3 });
    waiting(queue.enter('a', never));
    waiting(queue.enter('a', never));
    expect(queue.enter('a', never)).toEqual({ refused: expect.stringContaining('too many programs queued: this client already has 2') });
    waiting(queue.enter('b', never));
    expect(queue.enter('c', never)).toEqual({ refused: expect.stringContaining('too many programs queued: 3 are waiting') });
  });

  it('a program cancelled while waiting leaves the queue and is never given a turn', async () => {
    const queue = new FairQueue({ perCaller: 4, total: 32 });
    const cancel = new AbortController();
    const cancelled = waiting(queue.enter('a', cancel.signal));
    const kept = waiting(queue.enter('a', never));
    cancel.abort();
    expect(await cancelled).toBe('aborted');
    expect(queue.waiting).toBe(1);
    expect(queue.next(() => 0)).toBe('a');
    expect(await kept).toBe('turn');
    expect(queue.next(() => 0)).toBeUndefined();
    const aborted = new AbortController();
    aborted.abort();
    expect(await queue.enter('a', aborted.signal)).toBe('aborted');
  });
});
