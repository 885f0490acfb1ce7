// Lenient scalars (src/runtime/call/request/coerce.ts): a top-level scalar argument of the wrong JSON
// type is converted only when exactly one reading fits the schema.
import { describe, expect, it } from 'vitest';
import { coerceArguments } from '../../../../../src/runtime/call/request/coerce.js';
import type { JsonSchema } from '../../../../../src/contract/table.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    ratio: { type: 'number' },
    repo: { type: 'string' },
    draft: { type: 'boolean' },
    cursor: { type: ['integer', 'null'] },
    either: { type: ['integer', 'string'] },
    ref: { $ref: '#/$defs/Count' },
    tags: { type: 'array', items: { type: 'string' } },
    body: { type: 'object' },
    free: {},
  },
};
const defs: Record<string, JsonSchema> = { Count: { type: 'integer' } };

describe('coerceArguments', () => {
  it.each([
    ['digits to an integer', { id: '42' }, { id: 42 }],
    ['a negative integer', { id: '-7' }, { id: -7 }],
    ['a decimal to a number', { ratio: '0.25' }, { ratio: 0.25 }],
    ['a decimal is not an integer: left for the validator to name', { id: '1.5' }, { id: '1.5' }],
    ['a number to a string (the Inspector CLI sends repo=1 as 1)', { repo: 1 }, { repo: '1' }],
    ['a boolean to a string', { repo: true }, { repo: 'true' }],
    ['"true" and "false" to booleans', { draft: 'false' }, { draft: false }],
    ['"yes" is not a boolean', { draft: 'yes' }, { draft: 'yes' }],
    ['text that is not a number stays', { id: '12abc' }, { id: '12abc' }],
    ['" 5 " with spaces', { id: ' 5 ' }, { id: 5 }],
    ['a leading zero is not a number text', { id: '007' }, { id: '007' }],
    ['a nullable integer', { cursor: '3' }, { cursor: 3 }],
    ['a value that fits one of several types is left alone', { either: '3' }, { either: '3' }],
    ['through a $ref', { ref: '9' }, { ref: 9 }],
    ['arrays are never touched', { tags: 'a' }, { tags: 'a' }],
    ['objects are never touched', { body: '{}' }, { body: '{}' }],
    ['no type: left alone', { free: '1' }, { free: '1' }],
    ['unknown arguments: left alone', { other: '1' }, { other: '1' }],
    ['values of the right type: left alone', { id: 1, repo: 'x', draft: true }, { id: 1, repo: 'x', draft: true }],
  ])('%s', (_name, given, want) => {
    const before = JSON.stringify(given);
    expect(coerceArguments(given, schema, defs)).toEqual(want);
    expect(JSON.stringify(given)).toBe(before); // the caller's object is not changed
  });
});
