import { describe, expect, it } from 'vitest';
import { thousands } from '../../../src/emit/project.js';

describe('thousands', () => {
  it.each([0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 1_234_567_890])('writes %i as toLocaleString("en-US") does', (n) => {
    expect(thousands(n)).toBe(n.toLocaleString('en-US'));
  });
});
