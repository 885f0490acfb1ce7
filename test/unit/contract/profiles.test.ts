// Listing under client profiles (src/contract/profiles.ts) and the argument repair that
// goes with it (checks.ts): what a profile lists must never make a valid call fail.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CLIENT_PROFILES, createLister, firstParagraph, listsOutputSchema, type ClientProfile } from '../../../src/contract/profiles.js';
import { repairArguments } from '../../../src/runtime/call/request/checks.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../src/contract/table.js';

const petstore = JSON.parse(readFileSync(new URL('../../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;
const full = { input: (t: ToolSpec) => t.inputSchema, output: (t: ToolSpec) => t.output?.schema };
const lister = (table: ToolTable, profile: ClientProfile) => createLister(table, profile, full);

describe('firstParagraph', () => {
  it.each([
    ['keeps a short text', 'Find a pet.', 'Find a pet.'],
    ['keeps the first paragraph only, on one line', 'Find a pet\nby id.\n\nDetails nobody needs.', 'Find a pet by id.'],
    ['cuts at a word, with an ellipsis', `${'word '.repeat(100)}`, `${'word '.repeat(59).trim()}…`],
    ['cuts a single long word where it must', 'x'.repeat(400), `${'x'.repeat(299)}…`],
  ])('%s', (_name, given, want) => {
    const got = firstParagraph(given);
    expect(got).toBe(want);
    expect(got.length).toBeLessThanOrEqual(300);
  });
});

/** A one-tool table whose input schema is `schema` with `defs`. */
function tableOf(schema: JsonSchema, defs: Record<string, JsonSchema> = {}): ToolTable {
  const tool = {
    name: 't',
    description: 'd',
    inputSchema: schema,
    defs: Object.keys(defs),
    annotations: {},
    http: { method: 'GET', path: '/', params: [] },
  } as ToolSpec;
  return { format: 1, name: 'x', version: '1', servers: [], defs, auth: {}, tools: [tool] };
}
const listedInput = (table: ToolTable, profile: ClientProfile) => lister(table, profile).tool(table.tools[0] as ToolSpec).inputSchema;

describe('inlining shared schemas', () => {
  it('a recursive schema is inlined a few levels, then stubbed by its type', () => {
    const node = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#/$defs/Node' } } };
    const listed = listedInput(tableOf({ type: 'object', properties: { root: { $ref: '#/$defs/Node' } } }, { Node: node }), 'portable');
    const text = JSON.stringify(listed);
    expect(text).not.toContain('$ref');
    expect(text).not.toContain('$defs');
    expect(text).toContain('(schema not listed in full)');
    const root = (listed.properties as Record<string, JsonSchema>).root as JsonSchema;
    expect((root.properties as Record<string, JsonSchema>).name).toEqual({ type: 'string' });
  });

  it('annotations beside a $ref win; a type beside it narrows the type', () => {
    const table = tableOf(
      { type: 'object', properties: { a: { $ref: '#/$defs/A', description: 'this use', type: 'object' } } },
      { A: { type: ['object', 'null'], description: 'the schema', properties: {} } },
    );
    expect((listedInput(table, 'portable').properties as Record<string, JsonSchema>).a).toEqual({
      type: 'object',
      description: 'this use',
      properties: {},
    });
  });

  it('a large closure falls back to fewer levels, down to stubs of the direct refs', () => {
    const big = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(250) }]));
    const defs = { Big: { type: 'object', properties: { inner: { $ref: '#/$defs/Inner' } } }, Inner: { type: 'object', properties: big } };
    const listed = JSON.stringify(listedInput(tableOf({ type: 'object', properties: { b: { $ref: '#/$defs/Big' } } }, defs), 'portable'));
    expect(listed.length).toBeLessThan(2_000);
    expect(listed).toContain('(schema not listed in full)');
  });
});

/** Every Petstore tool under every profile: the listed schema compiles, and what it lists is valid under the full one. */
describe.each(['portable', 'openai-strict', 'gemini'] as const)('Petstore under %s', (profile) => {
  const l = lister(petstore, profile);
  it('lists every tool, with descriptions of at most 300 characters and no $defs', () => {
    for (const tool of petstore.tools) {
      const listed = l.tool(tool);
      expect(listed.description.length).toBeLessThanOrEqual(300);
      expect(JSON.stringify(listed)).not.toMatch(/"\$(ref|defs)"/);
      new Ajv2020({ strict: false, validateFormats: false }).compile(listed.inputSchema);
    }
  });
  it(profile === 'portable' ? 'lists output schemas that are objects' : 'lists no output schemas', () => {
    const outputs = petstore.tools.map((t) => l.tool(t).outputSchema).filter((o) => o !== undefined);
    if (profile === 'portable') {
      expect(outputs.length).toBe(petstore.tools.filter((t) => t.output).length);
      for (const o of outputs) expect(o?.type).toBe('object');
    } else expect(outputs).toEqual([]);
  });
});

describe('listsOutputSchema: what a call holds its answer to, decided without listing the tool', () => {
  it.each([
    ['portable', true],
    ['full', true],
    ['openai-strict', false],
    ['gemini', false],
  ] as const)('%s: %s', (profile, want) => {
    expect(listsOutputSchema(profile)).toBe(want);
  });
  it.each(CLIENT_PROFILES)('agrees with the listing under %s, tool by tool', (profile) => {
    const l = lister(petstore, profile);
    for (const tool of petstore.tools) {
      expect(l.tool(tool).outputSchema !== undefined).toBe(listsOutputSchema(profile) && tool.output !== undefined);
    }
  });
});

describe('openai-strict: every property required, optional ones nullable, free-form objects as JSON text', () => {
  const schema = {
    type: 'object',
    properties: { id: { type: 'integer' }, note: { type: 'string' }, meta: { type: 'object', additionalProperties: { type: 'string' } } },
    required: ['id'],
    additionalProperties: false,
  };
  const listed = listedInput(tableOf(schema), 'openai-strict');
  it('lists them so', () => {
    expect(listed).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        meta: { anyOf: [{ type: 'string', description: '(a JSON object, written as JSON text)' }, { type: 'null' }] },
      },
      required: ['id', 'note', 'meta'],
      additionalProperties: false,
    });
  });

  it('what a strict client sends is valid once repaired: nulls dropped, JSON text read', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    const sent = { id: 1, note: null, meta: '{"k":"v"}' };
    expect(ajv.validate(listed, sent)).toBe(true);
    expect(validate(sent)).toBe(false);
    const repaired = repairArguments(sent, validate.errors as never);
    expect(repaired).toEqual({ id: 1, meta: { k: 'v' } });
    expect(validate(repaired)).toBe(true);
    expect(sent).toEqual({ id: 1, note: null, meta: '{"k":"v"}' }); // the input is not changed
  });
});

describe('repairArguments', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const check = (schema: object, args: Record<string, unknown>) => {
    const validate = ajv.compile(schema);
    expect(validate(args)).toBe(false);
    return repairArguments(args, validate.errors as never);
  };
  it('drops a null nested in an object, not one in an array', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'string' } } }, list: { type: 'array', items: { type: 'string' } } },
    };
    expect(check(schema, { a: { b: null } })).toEqual({ a: {} });
    expect(check(schema, { list: ['x', null] })).toBeUndefined();
  });
  it('reads JSON text only where an object or array fits, and only when it is one', () => {
    const schema = { type: 'object', properties: { o: { type: 'object' }, n: { type: 'integer' }, l: { type: 'array' } } };
    expect(check(schema, { o: '{"a":1}', l: '[1,2]' })).toEqual({ o: { a: 1 }, l: [1, 2] });
    expect(check(schema, { o: '[1]' })).toBeUndefined();
    expect(check(schema, { o: 'not json' })).toBeUndefined();
    expect(check(schema, { n: '{"a":1}' })).toBeUndefined();
  });
});
