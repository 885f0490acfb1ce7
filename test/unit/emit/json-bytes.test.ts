// tools.json is written from jsonBytes (src/emit/project.ts), built one member at a time to
// keep a large table's text out of one two-byte string: it must be, byte for byte, what
// JSON.stringify(value) + '\n' encodes to, at any depth it splits at.
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../../src/emit/project.js';

const tricky = {
  format: 1,
  name: 'n',
  skipped: undefined,
  fn: () => 1,
  when: new Date(0),
  tools: [
    { name: 'a', description: 'π ≠ 3 — “quoted” 😀 \u2028 \\ "', inputSchema: { type: 'object', properties: {} } },
    undefined,
    null,
    { name: 'b', extra: undefined, nested: [1, 'two', [3, { four: 4 }], { toJSON: () => 'custom' }] },
  ],
  defs: { A: { enum: [null, true, 1.5e300, -0] }, '"odd" key': {}, é: [] },
  empty: {},
  list: [],
};

describe('jsonBytes', () => {
  it.each([0, 1, 2, 3, 4])('is JSON.stringify + newline as UTF-8, split %i levels deep', (levels) => {
    expect(jsonBytes(tricky, levels).equals(Buffer.from(JSON.stringify(tricky) + '\n'))).toBe(true);
  });

  it('joins parts past its 1 MiB chunks', () => {
    const big = { tools: Array.from({ length: 3_000 }, (_, i) => ({ name: `t${i}`, text: 'x€'.repeat(300) })) };
    expect(jsonBytes(big, 2).equals(Buffer.from(JSON.stringify(big) + '\n'))).toBe(true);
  });
});
