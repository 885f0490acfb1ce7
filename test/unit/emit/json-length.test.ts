// jsonLengthWithin (src/emit/json-length.ts): the same verdict as measuring JSON.stringify's
// text, on values of every JSON shape, at the exact limit and one below it.
import { describe, expect, it } from 'vitest';
import { jsonLengthWithin } from '../../../src/emit/json-length.js';

const values: [string, unknown][] = [
  ['a string with escapes', 'a "quoted"\nline\\ é 😀 \u0001'],
  ['numbers', [0, -1.5, 1e21, 3.14, Number.NaN, Infinity]],
  ['literals', [true, false, null]],
  ['holes and undefined in an array', [undefined, () => 1, 'x']],
  ['undefined and functions in an object are skipped', { a: undefined, b: () => 1, c: 1, d: Symbol('s') }],
  ['empty containers', { a: {}, b: [], c: [{}] }],
  ['a nested schema', { type: 'object', properties: { 'odd "key"': { type: ['string', 'null'], enum: ['a', 'b'] }, n: { minimum: 0 } } }],
  ['a date (toJSON)', { when: new Date(0) }],
];

describe('jsonLengthWithin', () => {
  it.each(values)('%s', (_name, value) => {
    const length = (JSON.stringify(value) as string).length;
    expect(jsonLengthWithin(value, length)).toBe(true);
    expect(jsonLengthWithin(value, length - 1)).toBe(false);
    expect(jsonLengthWithin(value, length + 1)).toBe(true);
  });

  it('stops early on a value far over the limit', () => {
    const huge = { properties: Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    expect(jsonLengthWithin(huge, 1024)).toBe(false);
  });
});
