// The profile checker used by the tests (test/support/profile-check.ts) must catch what each
// profile forbids: one passing tool per profile, and one minimal breach per rule.
import { describe, expect, it } from 'vitest';
import { profileViolations, type CheckedProfile } from '../support/profile-check.js';

const tool = (inputSchema: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ name: 't', description: 'd', inputSchema, ...more });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('passing tools', () => {
  it.each<[CheckedProfile, Record<string, unknown>]>([
    ['portable', obj({ a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { type: 'object', additionalProperties: true } })],
    ['openai-strict', obj({ a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: obj({ c: { type: 'integer' } }, { required: ['c'], additionalProperties: false }) }, { required: ['a', 'b'], additionalProperties: false })],
    ['gemini', obj({ a: { type: 'string', nullable: true, enum: ['x'] }, b: { type: 'array', items: { type: 'integer', format: 'int64' } } }, { required: ['a'] })],
  ])('%s', (profile, schema) => {
    expect(profileViolations(tool(schema), profile)).toEqual([]);
  });
});

describe('each rule catches its breach', () => {
  it.each<[string, CheckedProfile, Record<string, unknown>, Record<string, unknown>, RegExp]>([
    ['a long name', 'portable', obj({}), { name: 'x'.repeat(65) }, /name: not/],
    ['a top-level anyOf', 'portable', { ...obj({}), anyOf: [{ type: 'object' }] }, {}, /inputSchema: top level has anyOf/],
    ['a $ref', 'portable', obj({ a: { $ref: '#/$defs/A' } }), {}, /inputSchema\.properties\.a: has \$ref/],
    ['a type array', 'portable', obj({ a: { type: ['string', 'null'] } }), {}, /properties\.a: type \["string","null"\] is not one type name/],
    ['an untyped schema', 'portable', obj({ a: { description: 'anything' } }), {}, /properties\.a: constrains nothing/],
    ['a boolean schema', 'portable', obj({ a: true }), {}, /properties\.a: boolean schema true/],
    ['an untyped output schema', 'portable', obj({}), { outputSchema: obj({ r: {} }) }, /outputSchema\.properties\.r: constrains nothing/],
    ['an output schema', 'openai-strict', obj({}, { required: [], additionalProperties: false }), { outputSchema: obj({}) }, /outputSchema: openai-strict lists no outputSchema/],
    ['an optional property', 'openai-strict', obj({ a: { type: 'string' } }, { required: [], additionalProperties: false }), {}, /inputSchema: required does not list every property/],
    ['an open object', 'openai-strict', obj({ a: { type: 'string' } }, { required: ['a'] }), {}, /inputSchema: additionalProperties is not false/],
    ['a oneOf', 'openai-strict', obj({ a: { oneOf: [{ type: 'string' }] } }, { required: ['a'], additionalProperties: false }), {}, /properties\.a: keyword oneOf is not supported/],
    ['an unsupported format', 'openai-strict', obj({ a: { type: 'string', format: 'uri' } }, { required: ['a'], additionalProperties: false }), {}, /format uri is not supported/],
    ['an additionalProperties', 'gemini', obj({}, { additionalProperties: false }), {}, /inputSchema: keyword additionalProperties is not supported/],
    ['an enum of numbers', 'gemini', obj({ a: { type: 'integer', enum: [1, 2] } }), {}, /properties\.a: enum that is not of strings/],
    ['an empty nested object', 'gemini', obj({ a: { type: 'object', properties: {} } }), {}, /properties\.a: object without properties below the top/],
    ['a null type', 'gemini', obj({ a: { type: 'null' } }), {}, /properties\.a: no type \(other than null\) or anyOf/],
    ['a required name that is no property', 'gemini', obj({}, { required: ['x'] }), {}, /required names x/],
  ])('%s (%s)', (_name, profile, schema, more, message) => {
    expect(profileViolations(tool(schema, more), profile)).toContainEqual(expect.stringMatching(message));
  });
});
