// The first step of a call (src/runtime/call/request/checks.ts): arguments checked against the tool's
// whole inputSchema, written as the schema wants them where a client only wrote them
// differently, and refused with a line that names the argument; on the Petstore sample's table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createChecks, describeErrors } from '../../../../../src/runtime/call/request/checks.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';
import { toolSchemas } from '../../../../../src/runtime/mcp/tool-schemas.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../../../src/contract/table.js';

const petstore = JSON.parse(
  readFileSync(new URL('../../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8'),
) as ToolTable;
const tool = (name: string) => petstore.tools.find((t) => t.name === name) as ToolSpec;
const checks = createChecks(petstore, toolSchemas(petstore), createLogger('test', 'silent'));

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
const ownChecks = createChecks(own, toolSchemas(own), createLogger('test', 'silent'));
const find = own.tools[0] as ToolSpec;
const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nested(depth - 1) });

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

describe('checks.output', () => {
  it('holds an answer to the listed outputSchema and says where it does not fit', async () => {
    await checks.arguments(tool('getPetById'), { petId: 1 }); // loads ajv, as a call does first
    const fits = checks.output(tool('getPetById'));
    expect(fits({ name: 'Rex', photoUrls: [] })).toBe(true);
    expect(fits({ name: 5, photoUrls: [] })).toBe(false);
    expect(fits.describe()).toBe('field "name": must be string,null');
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
