// The first step of a call (src/runtime/call/request/checks.ts): arguments checked against the tool's
// whole inputSchema, written as the schema wants them where a client only wrote them
// differently, and refused with a line that names the argument; on the Petstore sample's table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createChecks, describeErrors } from '../../../../../src/runtime/call/request/checks.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';
import { toolSchemas } from '../../../../../src/runtime/mcp/tool-schemas.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../../../src/contract/table.js';
import type { ValidatorName } from '../../../../../src/runtime/call/request/validator.js';

const petstore = JSON.parse(
  readFileSync(new URL('../../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8'),
) as ToolTable;
const tool = (name: string) => petstore.tools.find((t) => t.name === name) as ToolSpec;
const validators: ValidatorName[] = ['interpreted', 'ajv'];

/** A one-tool table: an id, an optional note, an optional filter object. */
const own: ToolTable = {
  format: 1,
  name: 'own',
  version: '1',
  servers: [],
  defs: {},
  auth: {},
  tools: [
    {
      name: 'find',
      description: 'Find things.',
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          note: { type: 'string' },
          filter: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
        },
        required: ['id'],
        additionalProperties: false,
      },
      annotations: {},
      http: { method: 'GET', path: '/things', params: [] },
    },
  ],
};
const find = own.tools[0] as ToolSpec;
const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nested(depth - 1) });

describe.each(validators)('with the %s validator', (validator) => {
  const checks = createChecks(petstore, toolSchemas(petstore), createLogger('test', 'silent'), validator);
  const ownChecks = createChecks(own, toolSchemas(own), createLogger('test', 'silent'), validator);

  describe('checks.arguments', () => {
    it.each([
      ['fitting arguments, as they are', { id: 7 }, { args: { id: 7 } }],
      ['a number written as text, coerced', { id: '7' }, { args: { id: 7 } }],
      ['null for an optional argument: absent', { id: 1, note: null }, { args: { id: 1 } }],
      ['an object written as JSON text, read', { id: 1, filter: '{"name":"Rex"}' }, { args: { id: 1, filter: { name: 'Rex' } } }],
      ['a missing argument, named', {}, { problem: 'missing required argument "id"' }],
      ['an unknown argument, named', { id: 1, color: 'red' }, { problem: 'unknown argument "color"' }],
      [
        'a nested field of the wrong type, by its path',
        { id: 1, filter: { name: 1 } },
        { problem: 'argument "filter.name": must be string' },
      ],
      [
        'arguments nested too deep to check',
        { id: 1, filter: nested(80) },
        { problem: expect.stringMatching(/^nested deeper than \d+ levels$/) },
      ],
    ])('%s', async (_name, given, want) => {
      expect(await ownChecks.arguments(find, given)).toEqual(want);
    });

    it('leaves the given arguments unchanged', async () => {
      const given = { id: 1, note: null };
      await ownChecks.arguments(find, given);
      expect(given).toEqual({ id: 1, note: null });
    });
  });

  describe('checks.schema (meta-tools)', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    };
    it.each([
      ['fitting', { query: 'pets' }, undefined],
      ['missing', {}, 'missing required argument "query"'],
      ['wrong type', { query: 5 }, 'argument "query": must be string'],
    ])('%s', async (_name, given, want) => {
      expect(await checks.schema(schema, given)).toBe(want);
    });
  });

  describe('one line for each kind of mistake, in the same words with either validator', () => {
    const field = (schema: JsonSchema): JsonSchema => ({ type: 'object', properties: { v: schema } });
    it.each([
      ['enum', field({ enum: ['a', 'b'] }), { v: 'c' }, 'argument "v": must be one of ["a","b"]'],
      ['maximum', field({ type: 'integer', maximum: 5 }), { v: 9 }, 'argument "v": must be <= 5'],
      ['maxLength', field({ type: 'string', maxLength: 2 }), { v: 'abc' }, 'argument "v": must NOT have more than 2 characters'],
      ['int32', field({ type: 'integer', format: 'int32' }), { v: 2 ** 40 }, 'argument "v": must match format "int32"'],
      ['int64', field({ type: 'number', format: 'int64' }), { v: 1.5 }, 'argument "v": must match format "int64"'],
      ['email', field({ type: 'string', format: 'email' }), { v: 'nobody' }, 'argument "v": must match format "email"'],
      ['date', field({ type: 'string', format: 'date' }), { v: '2026-02-30' }, 'argument "v": must match format "date"'],
      ['an unknown format, not checked', field({ type: 'string', format: 'color' }), { v: 'x' }, undefined],
      ['pattern', field({ type: 'string', pattern: '^[A-Z]+$' }), { v: 'abc' }, 'argument "v": must match pattern "^[A-Z]+$"'],
      [
        'anyOf: the branches first',
        field({ anyOf: [{ type: 'string' }, { type: 'integer' }] }),
        { v: true },
        'argument "v": must be string; argument "v": must be integer; argument "v": must match a schema in anyOf',
      ],
      [
        'a choice within a choice: the innermost branches first',
        field({ anyOf: [{ oneOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }] }),
        { v: true },
        'argument "v": must be string; argument "v": must be integer; argument "v": must match exactly one schema in oneOf',
      ],
      [
        'an array item, by its index',
        field({ type: 'array', items: { type: 'object', required: ['id'] } }),
        { v: [{ id: 1 }, {}] },
        'argument "v.1": missing property "id"',
      ],
      [
        'uniqueItems',
        field({ type: 'array', uniqueItems: true }),
        { v: [1, 1] },
        'argument "v": must NOT have duplicate items (items ## 0 and 1 are identical)',
      ],
      [
        'a nested unknown property',
        field({ type: 'object', properties: {}, additionalProperties: false }),
        { v: { b: 1 } },
        'argument "v": unknown property "b"',
      ],
      ['an inherited name is not given', { type: 'object', required: ['constructor'] }, {}, 'missing required argument "constructor"'],
      [
        'a name with a slash',
        { type: 'object', properties: { 'a/b': { type: 'string' } } },
        { 'a/b': 1 },
        'argument "a/b": must be string',
      ],
      [
        'if/then',
        field({ if: { type: 'string' }, then: { minLength: 3 } }),
        { v: 'a' },
        'argument "v": must NOT have fewer than 3 characters; argument "v": must match "then" schema',
      ],
      [
        'propertyNames',
        field({ type: 'object', propertyNames: { maxLength: 2 } }),
        { v: { abc: 1 } },
        'argument "v": must NOT have more than 2 characters; argument "v": property name must be valid',
      ],
    ])('%s', async (_name, schema, given, want) => {
      expect(await checks.schema(schema as JsonSchema, given)).toBe(want);
    });

    it('runs a spec pattern in linear time: a catastrophic one answers at once', async () => {
      const schema = field({ type: 'string', pattern: '^(a+)+$' });
      const started = performance.now();
      expect(await checks.schema(schema, { v: 'a'.repeat(31) + '!' })).toBe('argument "v": must match pattern "^(a+)+$"');
      expect(performance.now() - started).toBeLessThan(500);
    });

    it("runs a format's check in linear time (cfworker's own url check would take seconds)", async () => {
      const schema = field({ type: 'string', format: 'url' });
      const started = performance.now();
      expect(await checks.schema(schema, { v: `http://${'a'.repeat(28)}!` })).toBe('argument "v": must match format "url"');
      expect(performance.now() - started).toBeLessThan(500);
    });
  });

  it('patternProperties: ajv checks them; the interpreted validator leaves them, and what depends on them, to the API', async () => {
    const schema: JsonSchema = { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false };
    const want = validator === 'ajv' ? 'unknown argument "b"; argument "x-a": must be string' : undefined;
    expect(await checks.schema(schema, { 'x-a': 1, b: 2 })).toBe(want);
  });

  describe('checks.output', () => {
    it('holds an answer to the listed outputSchema and says where it does not fit', async () => {
      await checks.arguments(tool('getPetById'), { petId: 1 }); // loads ajv, as a call does first
      const fits = checks.output(tool('getPetById'));
      expect(fits({ name: 'Rex', photoUrls: [] })).toBe(true);
      expect(fits({ name: 5, photoUrls: [] })).toBe(false);
      expect(fits.describe()).toBe('field "name": must be string,null');
    });
  });
});

describe('describeErrors', () => {
  it.each([
    ['no errors', [], 'arguments do not match the input schema'],
    ['a root error', [{ instancePath: '', keyword: 'type', message: 'must be object', params: {} }], 'arguments must be object'],
    [
      'at most three, each once',
      ['a', 'b', 'b', 'c', 'd'].map((p) => ({ instancePath: `/${p}`, keyword: 'type', message: 'must be string', params: {} })),
      'argument "a": must be string; argument "b": must be string; argument "c": must be string',
    ],
    [
      'an enum lists its values',
      [{ instancePath: '/s', keyword: 'enum', params: { allowedValues: ['x', 'y'] } }],
      'argument "s": must be one of ["x","y"]',
    ],
    [
      'a path with ~1 and ~0',
      [{ instancePath: '/a~1b/c~0d', keyword: 'type', message: 'must be string', params: {} }],
      'argument "a/b.c~d": must be string',
    ],
  ])('%s', (_name, errors, want) => {
    expect(describeErrors(errors)).toBe(want);
  });
});

describe('toolSchemas', () => {
  const schemas = toolSchemas(petstore);
  it('attaches the $defs a schema references, and keeps one object per tool', () => {
    const output = schemas.listedOutput(tool('getPetById')) as JsonSchema;
    expect(Object.keys(output.$defs as object).sort()).toEqual(['Category.out', 'Pet.out', 'Tag.out']);
    expect(schemas.listedOutput(tool('getPetById'))).toBe(output);
    expect(schemas.wholeInput(tool('getPetById'))).toBe(schemas.listedInput(tool('getPetById')));
  });
  it('checks a schema listed in part against the whole one', () => {
    const listed = { ...tool('addPet'), name: 'partly', listing: { defs: [], stubs: ['Pet'] } } as ToolSpec;
    expect(Object.keys(schemas.listedInput(listed).$defs as object)).toEqual(['Pet']);
    expect((schemas.listedInput(listed).$defs as Record<string, JsonSchema>).Pet).not.toEqual(petstore.defs.Pet);
    expect((schemas.wholeInput(listed).$defs as Record<string, JsonSchema>).Pet).toEqual(petstore.defs.Pet);
  });
});
