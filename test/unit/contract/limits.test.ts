// The runtime's bounds on a call's arguments (src/contract/limits.ts): spec patterns run
// on a linear-time engine inside ajv, and arguments too deep or too big are refused before
// any validation runs.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import {
  argumentsTooBig,
  jsonDeeperThan,
  linearRegExpEngine,
  MAX_ARGUMENT_DEPTH,
  MAX_ARGUMENT_VALUES,
} from '../../../src/contract/limits.js';

function ajvWithEngine() {
  const unsupported: string[] = [];
  const regExp = linearRegExpEngine(RE2JS, (pattern) => unsupported.push(pattern));
  return { ajv: new Ajv2020({ strict: false, allErrors: true, code: { regExp } }), unsupported };
}

describe('spec patterns on the linear-time engine', () => {
  // With V8's backtracking engine this input takes 2^40 steps: the test would time out.
  it('checks a catastrophic-backtracking pattern against a hostile input at once', { timeout: 10_000 }, () => {
    const { ajv } = ajvWithEngine();
    const validate = ajv.compile({ type: 'string', pattern: '^(a+)+$' });
    expect(validate('a'.repeat(40) + 'b')).toBe(false);
    expect(validate('a'.repeat(40))).toBe(true);
    expect(validate.errors ?? []).toEqual([]);
  });

  it.each([
    // [pattern, input, JSON Schema answer] — `pattern` is an unanchored search (JSON Schema 2020-12 §6.3.3)
    ['b', 'abc', true],
    ['^b', 'abc', false],
    ['^[a-z]{2,3}$', 'abcd', false],
    ['^\\d{3}-\\d{4}$', '555-1234', true],
    ['^\\p{L}+$', 'Ärger', true],
    ['(x+x+)+y', 'x'.repeat(5_000), false],
  ])('pattern %j on %j is %s', (pattern, input, want) => {
    const { ajv } = ajvWithEngine();
    expect(ajv.compile({ type: 'string', pattern })(input)).toBe(want);
  });

  it('leaves a pattern RE2 cannot run unchecked, and says so, instead of backtracking', () => {
    const { ajv, unsupported } = ajvWithEngine();
    const validate = ajv.compile({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(?=x)(a+)+$' }, b: { type: 'integer' } },
    });
    expect(validate({ a: 'a'.repeat(40) + 'b', b: 1 })).toBe(true); // the pattern is skipped…
    expect(validate({ a: 'x', b: 'not a number' })).toBe(false); // …the rest of the schema is not
    expect(unsupported).toEqual(['^(?=x)(a+)+$']);
  });

  it('applies to patternProperties too', { timeout: 10_000 }, () => {
    const { ajv } = ajvWithEngine();
    const validate = ajv.compile({ type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } }, additionalProperties: false });
    expect(validate({ ['a'.repeat(40) + 'b']: 1 })).toBe(false);
    expect(validate({ aaa: 1 })).toBe(true);
  });
});

describe('argumentsTooBig', () => {
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { next: value };
    return value;
  };

  it.each([
    ['ordinary arguments', { id: 1, body: { name: 'x', tags: ['a', 'b'] } }, undefined],
    [`objects and arrays ${MAX_ARGUMENT_DEPTH} levels deep`, nested(MAX_ARGUMENT_DEPTH), undefined],
    [`one level more`, nested(MAX_ARGUMENT_DEPTH + 1), `nested deeper than ${MAX_ARGUMENT_DEPTH} levels`],
    ['a million levels (no stack overflow)', nested(1_000_000), `nested deeper than ${MAX_ARGUMENT_DEPTH} levels`],
    ['a big but allowed array', { items: new Array(MAX_ARGUMENT_VALUES - 2).fill(0) }, undefined],
    ['too many values', { items: new Array(MAX_ARGUMENT_VALUES).fill(0) }, `more than ${MAX_ARGUMENT_VALUES} values in all`],
  ])('%s', (_name, args, want) => {
    expect(argumentsTooBig(args)).toBe(want);
  });
});

describe('jsonDeeperThan', () => {
  it.each([
    ['[[1]]', 2, false],
    ['[[[1]]]', 2, true],
    ['{"a":{"b":{}}}', 2, true],
    ['{"a":"[[[[[[["}', 1, false], // brackets inside a string do not count
    [String.raw`{"a":"\\","b":[[1]]}`, 2, true], // an escaped backslash, then the closing quote: the brackets after it count
    [String.raw`{"a":"\"[[[[["}`, 1, false], // an escaped quote does not close the string
    ['["a"]'.repeat(1000), 1, false], // depth, not count
    ['['.repeat(100_000) + ']'.repeat(100_000), 512, true],
    ['"unterminated [[[[', 1, false],
  ])('%j deeper than %i: %s', (text, max, want) => {
    expect(jsonDeeperThan(text, max)).toBe(want);
  });
});
