// SchemaConverter (src/model/schema.ts): OpenAPI 2.0/3.0/3.1 schema → JSON Schema 2020-12 with
// shared `$defs`, which the MCP SDK's ajv must accept. Every produced schema is compiled twice:
// with the SDK's `Ajv` class (the one src/runtime/call/request/checks.ts uses) and with the SDK's
// default validator (`AjvJsonSchemaValidator`: Ajv2020, what MCP clients check schemas with).
import { describe, expect, it } from 'vitest';
import { Ajv, AjvJsonSchemaValidator, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/server';
import { SchemaConverter, type SchemaExtras, type SchemaMode } from '../../../src/model/schema.js';
import type { Json, JsonObject } from '../../../src/parse/pointer.js';
import type { JsonSchema } from '../../../src/contract/table.js';
import { defGraph } from '../../../src/contract/def-refs.js';

// --- helpers -----------------------------------------------------------------------------

const SCHEMAS: JsonObject = {
  Pet: {
    type: 'object',
    required: ['id', 'name'],
    properties: {
      id: { type: 'integer', format: 'int64', readOnly: true },
      name: { type: 'string' },
      password: { type: 'string', writeOnly: true },
    },
  },
  Node: {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
  },
  Parent: { type: 'object', properties: { child: { $ref: '#/components/schemas/Child' } } },
  Child: { type: 'object', properties: { parent: { $ref: '#/components/schemas/Parent' } } },
  A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
  B: { type: 'object', properties: { c: { $ref: '#/components/schemas/C' } } },
  C: { type: 'string' },
  Status: { type: 'string', enum: ['on', 'off'] },
  'Pet Item': { type: 'string' },
};
const doc = (): JsonObject => ({ openapi: '3.0.3', components: { schemas: structuredClone(SCHEMAS) } });

interface Given {
  schema: Json;
  mode?: SchemaMode;
  dialect?: '3.0' | '3.1';
  extras?: SchemaExtras;
}

/** Converts one schema with a fresh converter; returns it with the defs it needs. */
function run({ schema, mode = 'request', dialect = '3.0', extras }: Given) {
  const converter = new SchemaConverter(doc(), dialect, extras);
  const refs = new Set<string>();
  const out = converter.convert(schema, mode, refs);
  const keys = defGraph(converter.defs).closure(refs);
  const defs = Object.fromEntries(keys.map((k) => [k, converter.defs[k] as JsonSchema]));
  return { converter, out, refs, defs, keys };
}

/** The schema as a tool carries it: with the `$defs` it reaches attached. */
const withDefs = (schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema =>
  Object.keys(defs).length ? { ...schema, $defs: defs } : schema;

const draft07 = new Ajv({ strict: false });
addFormats(draft07);
const sdk = new AjvJsonSchemaValidator();

/** Throws when either engine rejects the schema. */
function compileBoth(schema: JsonSchema): void {
  draft07.compile(schema);
  sdk.getValidator(schema as JsonSchemaType);
}

/** Validation with the SDK's 2020-12 engine. */
const accepts = (schema: JsonSchema, value: unknown) => sdk.getValidator(schema as JsonSchemaType)(value).valid;

// --- conversion table ---------------------------------------------------------------------

const PET_REQUEST = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, password: { type: 'string', writeOnly: true } },
};

const cases: [string, { given: Given; want: JsonSchema; wantDefs?: Record<string, JsonSchema> }][] = [
  // nullable (3.0) and x-nullable (2.0)
  ['nullable with a type', { given: { schema: { type: 'string', nullable: true } }, want: { type: ['string', 'null'] } }],
  [
    'nullable with an enum: null joins the enum',
    { given: { schema: { type: 'string', enum: ['a', 'b'], nullable: true } }, want: { type: ['string', 'null'], enum: ['a', 'b', null] } },
  ],
  [
    'examples and x- keys are left out by default',
    { given: { schema: { type: 'string', example: 'rex', 'x-internal': true } }, want: { type: 'string' } },
  ],
  [
    'examples kept when asked: 3.0 example → 2020-12 examples',
    {
      given: { schema: { type: 'string', example: 'rex', 'x-internal': true }, extras: { examples: true } },
      want: { type: 'string', examples: ['rex'] },
    },
  ],
  [
    '3.1 examples kept as they are, and x- keys when asked',
    {
      given: {
        schema: { type: 'integer', examples: [1, 2], 'x-unit': 'cm' },
        dialect: '3.1',
        extras: { examples: true, extensions: true },
      },
      want: { type: 'integer', examples: [1, 2], 'x-unit': 'cm' },
    },
  ],
  [
    'repeated enum values kept once (draft-07 clients reject repeats)',
    {
      given: { schema: { type: 'string', enum: ['2020-08-27', '2022-11-15', '2020-08-27', { a: 1 }, { a: 1 }] } },
      want: { type: 'string', enum: ['2020-08-27', '2022-11-15', { a: 1 }] },
    },
  ],
  [
    'repeated enum strings kept once, in first-seen order',
    {
      given: { schema: { type: 'string', enum: ['b', 'a', 'b', 'c', 'a'] } },
      want: { type: 'string', enum: ['b', 'a', 'c'] },
    },
  ],
  [
    'nullable enum that already lists null',
    { given: { schema: { type: 'string', enum: ['a', null], nullable: true } }, want: { type: ['string', 'null'], enum: ['a', null] } },
  ],
  [
    'nullable $ref (allOf form, no type) → anyOf with null',
    {
      given: { schema: { nullable: true, allOf: [{ $ref: '#/components/schemas/Status' }] } },
      want: { anyOf: [{ allOf: [{ $ref: '#/$defs/Status' }] }, { type: 'null' }] },
      wantDefs: { Status: { type: 'string', enum: ['on', 'off'] } },
    },
  ],
  [
    'nullable oneOf without a type → anyOf with null',
    {
      given: { schema: { nullable: true, oneOf: [{ type: 'string' }, { type: 'integer' }] } },
      want: { anyOf: [{ oneOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }] },
    },
  ],
  ['x-nullable (Swagger 2.0)', { given: { schema: { type: 'integer', 'x-nullable': true } }, want: { type: ['integer', 'null'] } }],
  [
    '3.0: siblings of $ref are ignored (nullable and description too)',
    {
      given: { schema: { $ref: '#/components/schemas/Status', nullable: true, description: 'ignored' } },
      want: { $ref: '#/$defs/Status' },
      wantDefs: { Status: { type: 'string', enum: ['on', 'off'] } },
    },
  ],
  // draft-04 style exclusive bounds
  [
    'exclusiveMinimum: true → numeric exclusiveMinimum',
    { given: { schema: { type: 'number', minimum: 0, exclusiveMinimum: true } }, want: { type: 'number', exclusiveMinimum: 0 } },
  ],
  [
    'exclusiveMaximum: true → numeric exclusiveMaximum',
    { given: { schema: { type: 'integer', maximum: 10, exclusiveMaximum: true } }, want: { type: 'integer', exclusiveMaximum: 10 } },
  ],
  [
    'exclusiveMinimum: false keeps the inclusive bound',
    { given: { schema: { type: 'number', minimum: 1, exclusiveMinimum: false } }, want: { type: 'number', minimum: 1 } },
  ],
  [
    'exclusiveMaximum: true without a maximum is dropped',
    { given: { schema: { type: 'number', exclusiveMaximum: true } }, want: { type: 'number' } },
  ],
  [
    '3.1 numeric exclusive bounds are kept',
    {
      given: { schema: { type: 'number', exclusiveMinimum: 5, exclusiveMaximum: 9 }, dialect: '3.1' },
      want: { type: 'number', exclusiveMinimum: 5, exclusiveMaximum: 9 },
    },
  ],
  // keywords that are not JSON Schema (or not wanted)
  [
    'x- keys, example(s), discriminator, xml, externalDocs are dropped, at every level',
    {
      given: {
        schema: {
          type: 'object',
          'x-internal': true,
          example: { kind: 'cat' },
          examples: [{ kind: 'dog' }],
          discriminator: { propertyName: 'kind' },
          xml: { name: 'Animal' },
          externalDocs: { url: 'https://example.com' },
          properties: { kind: { type: 'string', 'x-order': 1, example: 'cat', xml: { attribute: true } } },
        },
      },
      want: { type: 'object', properties: { kind: { type: 'string' } } },
    },
  ],
  [
    '$schema and $id are dropped (the SDK rejects draft-04 $schema)',
    {
      given: { schema: { $schema: 'http://json-schema.org/draft-04/schema#', $id: 'urn:x', type: 'string' } },
      want: { type: 'string' },
    },
  ],
  [
    'a Swagger-style boolean "required" on a property is dropped',
    { given: { schema: { type: 'string', required: true } as Json }, want: { type: 'string' } },
  ],
  ['non-numeric bounds are dropped', { given: { schema: { type: 'integer', minimum: '1', maxLength: 'x' } }, want: { type: 'integer' } }],
  // readOnly / writeOnly
  [
    'readOnly property removed in request mode, and from required',
    {
      given: {
        schema: {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
        },
      },
      want: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    },
  ],
  [
    'required emptied by readOnly removal disappears',
    {
      given: { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string', readOnly: true } } } },
      want: { type: 'object', properties: {} },
    },
  ],
  [
    'required names without a property are kept',
    {
      given: { schema: { type: 'object', required: ['name', 'other'], properties: { name: { type: 'string' } } } },
      want: { type: 'object', required: ['name', 'other'], properties: { name: { type: 'string' } } },
    },
  ],
  [
    'writeOnly property kept in request mode',
    {
      given: { schema: { type: 'object', properties: { password: { type: 'string', writeOnly: true } } } },
      want: { type: 'object', properties: { password: { type: 'string', writeOnly: true } } },
    },
  ],
  [
    'writeOnly property removed in response mode (and assertions loosened)',
    {
      given: {
        mode: 'response',
        schema: {
          type: 'object',
          required: ['name', 'password'],
          properties: { password: { type: 'string', writeOnly: true }, name: { type: 'string', minLength: 1 } },
        },
      },
      want: { type: ['object', 'null'], properties: { name: { type: ['string', 'null'] } } },
    },
  ],
  [
    'readOnly property kept in response mode',
    {
      given: { mode: 'response', schema: { type: 'object', properties: { id: { type: 'integer', readOnly: true } } } },
      want: { type: ['object', 'null'], properties: { id: { type: ['number', 'null'] } } },
    },
  ],
  [
    'response mode: closed objects opened, oneOf → anyOf, enum and format dropped',
    {
      given: {
        mode: 'response',
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: ['open'], format: 'uuid' },
            value: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          },
        },
      },
      want: {
        type: ['object', 'null'],
        properties: {
          state: { type: ['string', 'null'] },
          value: { anyOf: [{ type: ['string', 'null'] }, { type: ['number', 'null'] }] },
        },
      },
    },
  ],
  // $ref → $defs
  [
    '$ref → #/$defs/Name, its target converted for requests',
    { given: { schema: { $ref: '#/components/schemas/Pet' } }, want: { $ref: '#/$defs/Pet' }, wantDefs: { Pet: PET_REQUEST } },
  ],
  [
    '$ref in response mode → a separate, loosened def',
    {
      given: { mode: 'response', schema: { $ref: '#/components/schemas/Pet' } },
      want: { $ref: '#/$defs/Pet.out' },
      wantDefs: {
        'Pet.out': { type: ['object', 'null'], properties: { id: { type: ['number', 'null'] }, name: { type: ['string', 'null'] } } },
      },
    },
  ],
  [
    '3.1: $ref keeps a sibling description',
    {
      given: { dialect: '3.1', schema: { $ref: '#/components/schemas/Status', description: 'Current status' } },
      want: { description: 'Current status', $ref: '#/$defs/Status' },
      wantDefs: { Status: { type: 'string', enum: ['on', 'off'] } },
    },
  ],
  [
    'a $ref to a name with a space gets a clean key (percent-encoded pointer)',
    {
      given: { schema: { $ref: '#/components/schemas/Pet%20Item' } },
      want: { $ref: '#/$defs/Pet_Item' },
      wantDefs: { Pet_Item: { type: 'string' } },
    },
  ],
  [
    'a $ref to nothing becomes a described empty def',
    {
      given: { schema: { $ref: '#/components/schemas/Nope' } },
      want: { $ref: '#/$defs/Nope' },
      wantDefs: { Nope: { description: 'unresolved reference #/components/schemas/Nope' } },
    },
  ],
  [
    'circular schema: a finite def that refers to itself',
    {
      given: { schema: { $ref: '#/components/schemas/Node' } },
      want: { $ref: '#/$defs/Node' },
      wantDefs: {
        Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } },
      },
    },
  ],
  [
    'mutually recursive schemas',
    {
      given: { schema: { $ref: '#/components/schemas/Parent' } },
      want: { $ref: '#/$defs/Parent' },
      wantDefs: {
        Parent: { type: 'object', properties: { child: { $ref: '#/$defs/Child' } } },
        Child: { type: 'object', properties: { parent: { $ref: '#/$defs/Parent' } } },
      },
    },
  ],
  // patterns
  ['invalid pattern dropped', { given: { schema: { type: 'string', pattern: '(unclosed' } }, want: { type: 'string' } }],
  [
    'pattern invalid only with the unicode flag (ajv uses it) dropped',
    { given: { schema: { type: 'string', pattern: '^\\_x$' } }, want: { type: 'string' } },
  ],
  [
    'valid pattern kept',
    { given: { schema: { type: 'string', pattern: '^[a-z]+\\d*$' } }, want: { type: 'string', pattern: '^[a-z]+\\d*$' } },
  ],
  // shapes
  [
    'draft-04 tuple items: [..] → prefixItems',
    {
      given: { schema: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } },
      want: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
    },
  ],
  ['unknown type dropped', { given: { schema: { type: 'date', format: 'date' } }, want: { format: 'date' } }],
  [
    'unknown type dropped from a type list',
    { given: { dialect: '3.1', schema: { type: ['string', 'date'] } }, want: { type: ['string'] } },
  ],
  ['3.1 type list with null kept', { given: { dialect: '3.1', schema: { type: ['string', 'null'] } }, want: { type: ['string', 'null'] } }],
  ['type: file → binary string', { given: { schema: { type: 'file' } }, want: { type: 'string', format: 'binary' } }],
  [
    'properties without a type → type object',
    { given: { schema: { properties: { a: { type: 'string' } } } }, want: { type: 'object', properties: { a: { type: 'string' } } } },
  ],
  ['boolean schema true → {}', { given: { schema: true }, want: {} }],
  ['boolean schema false → not {}', { given: { schema: false }, want: { not: {} } }],
  [
    'additionalProperties schema and boolean',
    {
      given: {
        schema: {
          type: 'object',
          additionalProperties: { type: 'integer' },
          properties: { x: { type: 'object', additionalProperties: false } },
        },
      },
      want: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        properties: { x: { type: 'object', additionalProperties: false } },
      },
    },
  ],
];

describe('SchemaConverter.convert', () => {
  it.each(cases)('%s', (_name, { given, want, wantDefs }) => {
    const { out, defs } = run(given);
    expect(out).toEqual(want);
    expect(defs).toEqual(wantDefs ?? {});
    expect(() => compileBoth(withDefs(out, defs))).not.toThrow();
  });
});

// --- behaviour of the produced schemas ----------------------------------------------------

describe('produced schemas validate what the spec means', () => {
  it('nullable string accepts null and strings, rejects numbers', () => {
    const { out } = run({ schema: { type: 'string', nullable: true } });
    expect(accepts(out, null)).toBe(true);
    expect(accepts(out, 'x')).toBe(true);
    expect(accepts(out, 1)).toBe(false);
  });

  it('nullable enum accepts null and its values only', () => {
    const { out } = run({ schema: { type: 'string', enum: ['a'], nullable: true } });
    expect(accepts(out, null)).toBe(true);
    expect(accepts(out, 'a')).toBe(true);
    expect(accepts(out, 'b')).toBe(false);
  });

  it('nullable object composed with allOf accepts null (type + nullable + allOf: [$ref])', () => {
    // A common 3.0 idiom: `type: object, nullable: true, allOf: [{$ref}]`.
    const { out, defs } = run({ schema: { type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/Pet' }] } });
    const schema = withDefs(out, defs);
    expect(accepts(schema, { name: 'Rex' })).toBe(true);
    expect(accepts(schema, null)).toBe(true);
    expect(accepts(schema, 'Rex')).toBe(false);
  });

  it('exclusive bounds exclude the bound', () => {
    const { out } = run({ schema: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true } });
    expect(accepts(out, 0)).toBe(false);
    expect(accepts(out, 0.5)).toBe(true);
    expect(accepts(out, 1)).toBe(false);
  });

  it('prefixItems from a draft-04 tuple are enforced by the 2020-12 engine', () => {
    const { out } = run({ schema: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } });
    expect(accepts(out, ['a', 1])).toBe(true);
    expect(accepts(out, [1, 'a'])).toBe(false);
  });

  it('a circular schema validates a tree and rejects a bad node deep inside', () => {
    const { out, defs } = run({ schema: { $ref: '#/components/schemas/Node' } });
    const schema = withDefs(out, defs);
    expect(JSON.stringify(schema).length).toBeLessThan(1_000);
    const tree = { name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [] }] }] };
    expect(accepts(schema, tree)).toBe(true);
    expect(accepts(schema, { name: 'a', children: [{ name: 'b', children: [{ name: 3 }] }] })).toBe(false);
  });

  it('a request def without the readOnly property accepts a body without it', () => {
    const { out, defs } = run({ schema: { $ref: '#/components/schemas/Pet' } });
    expect(accepts(withDefs(out, defs), { name: 'Rex' })).toBe(true);
    expect(accepts(withDefs(out, defs), {})).toBe(false);
  });
});

// Real specs contain these; the tool must still be listable and callable, so the produced
// schema must compile in both engines.
describe('schemas real specs contain still compile', () => {
  const messy: [string, { given: Given }][] = [
    ['empty enum', { given: { schema: { type: 'string', enum: [] } } }],
    ['duplicate names in required', { given: { schema: { type: 'object', required: ['a', 'a'], properties: { a: { type: 'string' } } } } }],
    [
      'patternProperties key invalid with the unicode flag',
      { given: { schema: { type: 'object', patternProperties: { '^\\_x': { type: 'string' } } } } },
    ],
    [
      'patternProperties key invalid with the unicode flag (response)',
      { given: { mode: 'response', schema: { type: 'object', patternProperties: { '^\\_x': { type: 'string' } } } } },
    ],
    ['empty tuple items: []', { given: { schema: { type: 'array', items: [] } } }],
  ];
  it.each(messy)('%s', (_name, { given }) => {
    const { out, defs } = run(given);
    expect(() => compileBoth(withDefs(out, defs))).not.toThrow();
  });
});

// --- defs and closure ---------------------------------------------------------------------

describe('shared defs', () => {
  it('converts a referenced schema once, however often it is referenced', () => {
    const converter = new SchemaConverter(doc(), '3.0');
    const refs = new Set<string>();
    converter.convert({ $ref: '#/components/schemas/Pet' }, 'request', refs);
    const first = converter.defs.Pet;
    converter.convert({ type: 'array', items: { $ref: '#/components/schemas/Pet' } }, 'request', refs);
    converter.convert({ type: 'object', properties: { p: { $ref: '#/components/schemas/Pet' } } }, 'request', new Set());
    expect(Object.keys(converter.defs)).toEqual(['Pet']);
    expect(converter.defs.Pet).toBe(first);
    expect([...refs]).toEqual(['Pet']);
  });

  it('converts a schema object met again once per mode, and gives each caller the defs it references', () => {
    const converter = new SchemaConverter(doc(), '3.0');
    const shared = { type: 'array', items: { $ref: '#/components/schemas/Pet' } };
    const first = converter.convert(shared, 'request', new Set());
    const refs = new Set<string>(['Other']);
    expect(converter.convert(shared, 'request', refs)).toBe(first);
    expect([...refs]).toEqual(['Other', 'Pet']);
    const answer = converter.convert(shared, 'response', new Set());
    expect(answer).not.toBe(first);
    expect(answer.items).toEqual({ $ref: '#/$defs/Pet.out' });
  });

  it('keeps request and response versions of one schema apart', () => {
    const converter = new SchemaConverter(doc(), '3.0');
    converter.convert({ $ref: '#/components/schemas/Pet' }, 'request', new Set());
    converter.convert({ $ref: '#/components/schemas/Pet' }, 'response', new Set());
    expect(Object.keys(converter.defs).sort()).toEqual(['Pet', 'Pet.out']);
    expect(converter.defs.Pet).toEqual(PET_REQUEST);
  });

  it('names Swagger 2.0 #/definitions refs after the definition', () => {
    const converter = new SchemaConverter({ definitions: { Order: { type: 'object', properties: { id: { type: 'integer' } } } } }, '3.0');
    const out = converter.convert({ $ref: '#/definitions/Order' }, 'request', new Set());
    expect(out).toEqual({ $ref: '#/$defs/Order' });
    expect(converter.defs.Order).toEqual({ type: 'object', properties: { id: { type: 'integer' } } });
  });

  it('gives two different pointers that clean up to the same name two keys', () => {
    const converter = new SchemaConverter(
      { components: { schemas: { 'Pet Item': { type: 'string' }, Pet_Item: { type: 'integer' } } } },
      '3.0',
    );
    const a = converter.convert({ $ref: '#/components/schemas/Pet%20Item' }, 'request', new Set());
    const b = converter.convert({ $ref: '#/components/schemas/Pet_Item' }, 'request', new Set());
    expect(a).not.toEqual(b);
    expect(Object.keys(converter.defs).sort()).toEqual(['Pet_Item', 'Pet_Item_2']);
  });

  const closures: [string, { given: { convert: string[]; closureOf: string[] }; want: string[] }][] = [
    ['transitive: A → B → C', { given: { convert: ['A'], closureOf: ['A'] }, want: ['A', 'B', 'C'] }],
    ['from the middle of a chain', { given: { convert: ['A'], closureOf: ['B'] }, want: ['B', 'C'] }],
    ['a self-reference ends', { given: { convert: ['Node'], closureOf: ['Node'] }, want: ['Node'] }],
    ['a cycle of two ends', { given: { convert: ['Parent'], closureOf: ['Child'] }, want: ['Child', 'Parent'] }],
    ['unrelated defs are left out', { given: { convert: ['A', 'Pet', 'Node'], closureOf: ['Pet'] }, want: ['Pet'] }],
    [
      'several roots, sorted, no duplicates',
      { given: { convert: ['A', 'Pet'], closureOf: ['Pet', 'C', 'A'] }, want: ['A', 'B', 'C', 'Pet'] },
    ],
    ['nothing', { given: { convert: ['A'], closureOf: [] }, want: [] }],
  ];
  it.each(closures)('closure: %s', (_name, { given, want }) => {
    const converter = new SchemaConverter(doc(), '3.0');
    for (const name of given.convert) converter.convert({ $ref: `#/components/schemas/${name}` }, 'request', new Set());
    expect(defGraph(converter.defs).closure(given.closureOf)).toEqual(want);
  });

  it('records only direct refs in the refs set; closure adds the rest', () => {
    const { refs, keys } = run({ schema: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } } });
    expect([...refs]).toEqual(['A']);
    expect(keys).toEqual(['A', 'B', 'C']);
  });
});
