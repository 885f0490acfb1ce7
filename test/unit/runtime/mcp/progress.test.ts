// throttled() of src/runtime/mcp/progress.ts, which paces a task's status messages: the first
// report told at once, the later ones at most once a window, the latest of a window always told
// at its end, and nothing told after stop.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttled } from '../../../../src/runtime/mcp/progress.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function teller() {
  const told: [number, string][] = [];
  const paced = throttled((progress, message) => void told.push([progress, message]), 1_000);
  return { told, ...paced };
}

describe('throttled', () => {
  it('tells the first report at once, then the latest of each second at its end', () => {
    const { told, progress } = teller();
    progress(1, 'one');
    expect(told).toEqual([[1, 'one']]);
    vi.advanceTimersByTime(300);
    progress(2, 'two');
    vi.advanceTimersByTime(300);
    progress(3, 'three');
    expect(told).toEqual([[1, 'one']]);
    vi.advanceTimersByTime(400);
    expect(told).toEqual([
      [1, 'one'],
      [3, 'three'],
    ]);
    vi.advanceTimersByTime(5_000);
    progress(4, 'four');
    expect(told.at(-1)).toEqual([4, 'four']);
    expect(told).toHaveLength(3);
  });

  it('tells nothing more once stopped, the report still waiting included', () => {
    const { told, progress, stop } = teller();
    progress(1, 'one');
    progress(2, 'two');
    stop();
    vi.advanceTimersByTime(5_000);
    expect(told).toEqual([[1, 'one']]);
  });
});
