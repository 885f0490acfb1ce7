// Lazy: made once on first need and shared; a failed making is tried again on the next need.
import { describe, expect, it } from 'vitest';
import { Lazy } from '../../../../src/runtime/start/lazy.js';

describe('Lazy', () => {
  it('makes the value once, for every caller, and keeps it', async () => {
    let made = 0;
    const lazy = new Lazy(async () => ++made);
    expect(await Promise.all([lazy.get(), lazy.get()])).toEqual([1, 1]);
    expect(await lazy.get()).toBe(1);
    expect(lazy.value).toBe(1);
  });

  it('tries again after a failure, rather than failing every later caller', async () => {
    let tries = 0;
    const lazy = new Lazy(async () => {
      if (++tries === 1) throw new Error('not answering yet');
      return 'ready';
    });
    await expect(lazy.get()).rejects.toThrow('not answering yet');
    expect(lazy.value).toBeUndefined();
    expect(await lazy.get()).toBe('ready');
    expect(tries).toBe(2);
  });
});
