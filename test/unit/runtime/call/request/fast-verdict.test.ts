// The interpreted validator's fast verdict (src/runtime/call/request/validators/fast-verdict.ts):
// it must say "valid" exactly when cfworker does, on hand cases for each keyword and on the real
// input and output schemas of the Petstore, GitHub and Stripe tables, with values built from each
// schema and mutated; and a value that fails keeps the errors cfworker's path gives it.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { validate as cfworkerValidate, type Schema } from '@cfworker/json-schema';
import type { JsonSchema, ToolTable } from '../../../../../src/contract/table.js';
import { toolSchemas } from '../../../../../src/runtime/mcp/tool-schemas.js';
import { subschemaKeywords, valueKeywords } from '../../../../../src/contract/schema-keywords.js';
import type { Validator } from '../../../../../src/runtime/call/request/validator.js';
import type { Verdict } from '../../../../../src/runtime/call/request/validators/fast-verdict.js';
import { corporaMissing, corporaTitle, GITHUB_SPEC, STRIPE_SPEC } from '../../../../../harness/corpora.js';
import { instanceOf, mutationsOf } from './schema-values.js';

/** What each compile handed the fast verdict, and what it got back. */
const built: { prepared: unknown; lookup: Record<string, unknown>; verdict: Verdict | undefined }[] = [];
/** Set to compile without the fast verdict: the validator as it is without it, for its errors. */
let withoutFastVerdict = false;

vi.mock('../../../../../src/runtime/call/request/validators/fast-verdict.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../../../src/runtime/call/request/validators/fast-verdict.js')>();
  return {
    ...real,
    fastVerdict: (...args: Parameters<typeof real.fastVerdict>) => {
      const verdict = withoutFastVerdict ? undefined : real.fastVerdict(...args);
      built.push({ prepared: args[0], lookup: args[1], verdict });
      return verdict;
    },
  };
});

const { createValidator } = await import('../../../../../src/runtime/call/request/validators/interpreted.js');

let loaded: Promise<Validator> | undefined;
const validator = () => (loaded ??= createValidator(() => {}));

/** The schema compiled: the fast verdict (undefined: none), cfworker's verdict, and the validator's errors. */
async function compiled(schema: JsonSchema) {
  const v = await validator();
  await v.prepare?.(schema);
  const validate = v.compile(schema);
  const { prepared, lookup, verdict } = built.at(-1) as (typeof built)[number];
  const cfworker = (value: unknown) => {
    try {
      return cfworkerValidate(value, prepared as Schema, '2020-12', lookup as Record<string, Schema>, true).valid;
    } catch {
      return false;
    }
  };
  withoutFastVerdict = true;
  const cfworkerOnly = v.compile(schema);
  withoutFastVerdict = false;
  return { fast: verdict, cfworker, validate, cfworkerOnly };
}

/** Asserts the fast verdict equals cfworker's on each value; returns how many were valid. */
async function sameVerdicts(schema: JsonSchema, values: unknown[]): Promise<number> {
  const { fast, cfworker } = await compiled(schema);
  expect(fast, JSON.stringify(schema)).toBeDefined();
  let valid = 0;
  for (const value of values) {
    const expected = cfworker(value);
    expect(fast?.(value), `${JSON.stringify(value)} against ${JSON.stringify(schema)}`).toBe(expected);
    if (expected) valid++;
  }
  return valid;
}

describe('fast verdict: each keyword, as cfworker', () => {
  const scalars = [null, true, false, 0, -0, 1, 1.0, 1.5, -7, 2 ** 53, 1e21, 1e-7, 0.1, 0.3, '', 'a', 'abc', '😀😀', '\ud800', [], {}];
  const cases: [string, JsonSchema, unknown[]][] = [
    ['type', { type: 'string' }, scalars],
    ['type integer (1.0 is one)', { type: 'integer' }, scalars],
    ['type list with integer', { type: ['integer', 'null'] }, scalars],
    ['type list', { type: ['string', 'array'] }, scalars],
    ['type null', { type: 'null' }, scalars],
    ['type object', { type: 'object' }, scalars],
    ['enum', { enum: ['a', 1, null, { b: [1] }, [2]] }, [...scalars, { b: [1] }, { b: [2] }, [2], [2, 2], { b: [1], c: 1 }]],
    ['const object', { const: { a: 1, b: [true] } }, [{ a: 1, b: [true] }, { b: [true], a: 1 }, { a: 1 }, { a: 1, b: [true], c: null }, 1]],
    ['const null', { const: null }, scalars],
    ['minimum, maximum', { minimum: 1, maximum: 10 }, [0, 1, 10, 10.0001, 'x', ...scalars]],
    ['exclusive bounds', { exclusiveMinimum: 1, exclusiveMaximum: 10 }, [1, 1.0001, 9.999, 10, ...scalars]],
    ['multipleOf 0.1 (exact on decimals)', { multipleOf: 0.1 }, [0.3, 0.7, 1.1, 0.30000000000000004, 5, 1e21, 1e-7, ...scalars]],
    ['multipleOf 0.01', { multipleOf: 0.01 }, [0.07, 19.99, 1.005, 4.35, -2.2, 1e-7]],
    ['multipleOf 1 (int32/int64 bounds)', { multipleOf: 1 }, [1, 1.0, 1.5, -0, 2 ** 53 + 2, 1e21, 1e300, 1e-300, 0.5, 4.000000000000001]],
    ['multipleOf 3', { multipleOf: 3 }, [0, 3, 9, 10, 3e21, 1.5]],
    ['multipleOf 2.5', { multipleOf: 2.5 }, [5, 7.5, 2.5, 1, 1e-7]],
    [
      'length in code points',
      { minLength: 2, maxLength: 3 },
      ['a', 'ab', 'abc', 'abcd', '😀', '😀😀', '😀😀😀', '😀😀😀😀', '\ud800\ud800', 5],
    ],
    [
      'items, minItems, maxItems',
      { items: { type: 'integer' }, minItems: 1, maxItems: 2 },
      [[], [1], [1, 2], [1, 2, 3], [1, 'a'], [1.5], 'x'],
    ],
    [
      'uniqueItems',
      { uniqueItems: true },
      [
        [1, 2],
        [1, 1],
        [{ a: 1 }, { a: 1 }],
        [{ a: 1 }, { a: 2 }],
        [[1], [1]],
        [1, '1'],
        [null, null],
        [{}, []],
      ],
    ],
    ['uniqueItems false', { uniqueItems: false }, [[1, 1]]],
    ['required', { required: ['a', 'b'] }, [{ a: 1, b: 2 }, { a: 1 }, {}, [], 'a']],
    ['min/maxProperties', { minProperties: 1, maxProperties: 2 }, [{}, { a: 1 }, { a: 1, b: 2 }, { a: 1, b: 2, c: 3 }, []]],
    [
      'properties and additionalProperties false',
      { properties: { a: { type: 'string' }, b: { type: 'integer' } }, additionalProperties: false },
      [{}, { a: 'x' }, { a: 1 }, { a: 'x', b: 2 }, { c: 1 }, { a: 'x', c: 1 }, [], 'x'],
    ],
    [
      'additionalProperties as a schema',
      { properties: { a: { type: 'string' } }, additionalProperties: { type: 'integer' } },
      [{ a: 'x', b: 1 }, { a: 'x', b: 'y' }, { b: 1.5 }, { a: 1 }],
    ],
    ['additionalProperties without properties', { additionalProperties: { type: 'boolean' } }, [{}, { a: true }, { a: 1 }]],
    [
      'declared names that objects inherit (constructor, toString), and __proto__',
      { properties: { constructor: { type: 'string' }, toString: { type: 'integer' } }, additionalProperties: false },
      [{}, JSON.parse('{"constructor": 5}'), JSON.parse('{"constructor": "x", "toString": 1}'), JSON.parse('{"__proto__": 1}')],
    ],
    ['boolean schemas', { properties: { a: true, b: false } }, [{}, { a: 1 }, { b: 1 }, { b: null }]],
    ['format date-time', { format: 'date-time' }, ['2026-11-29T10:00:00Z', '2026-11-29', 'x', 5, null, {}]],
    ['format email', { format: 'email' }, ['a@example.com', 'a', 1]],
    ['format uri', { format: 'uri' }, ['https://example.com/a', 'not a uri', 1]],
    ['format int32 (bounds)', { type: 'integer', format: 'int32' }, [1, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), -(2 ** 31) - 1, 1.5, '1']],
    ['format int64 (bounds)', { type: 'integer', format: 'int64' }, [1, 2 ** 63, 1e19, -1e19, 1.5]],
    ['unknown format (ignored)', { format: 'no-such-format' }, ['x', 1]],
    ['pattern (a format on re2js)', { pattern: '^[a-z]+$' }, ['abc', 'ABC', '', 5, null]],
    ['pattern and minLength', { type: 'string', pattern: '^a', minLength: 2 }, ['ab', 'a', 'ba', 5]],
    ['allOf', { allOf: [{ type: 'number' }, { minimum: 2 }] }, [1, 2, 'x']],
    ['anyOf', { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 5 }] }, ['x', 5, 4, 5.5, null]],
    ['oneOf', { oneOf: [{ type: 'integer' }, { minimum: 2 }] }, [1, 2, 2.5, 1.5, 'x']],
    ['not', { not: { type: 'string' } }, ['x', 1, null]],
    [
      'annotations check nothing',
      {
        title: 't',
        description: 'd',
        examples: [1],
        default: 2,
        deprecated: true,
        readOnly: true,
        'x-a': 1,
        nullable: true,
        type: 'string',
      },
      ['x', null, 1],
    ],
  ];
  for (const [name, schema, values] of cases) it(name, async () => void (await sameVerdicts(schema, values)));

  it('$ref to $defs, recursive', async () => {
    const schema: JsonSchema = {
      $ref: '#/$defs/node',
      $defs: {
        node: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          required: ['name'],
          additionalProperties: false,
        },
      },
    };
    const tree = (depth: number): unknown => ({ name: 'n', children: depth ? [tree(depth - 1), tree(depth - 1)] : [] });
    const valid = await sameVerdicts(schema, [
      tree(4),
      { name: 'a', children: [{ name: 'b', children: [{}] }] },
      { name: 'a', extra: 1 },
      {},
    ]);
    expect(valid).toBe(1);
  });

  it('$ref with siblings (2020-12 applies both)', async () => {
    await sameVerdicts({ $ref: '#/$defs/s', maxLength: 2, $defs: { s: { type: 'string' } } }, ['ab', 'abc', 1]);
  });

  it('no fast verdict for keywords it does not cover, anywhere the schema reaches', async () => {
    const uncovered: JsonSchema[] = [
      { if: { type: 'string' }, then: { minLength: 1 } },
      { properties: { a: { propertyNames: { maxLength: 2 } } } },
      { prefixItems: [{ type: 'string' }] },
      { items: [{ type: 'string' }] },
      { contains: { type: 'string' } },
      { dependentRequired: { a: ['b'] } },
      { unevaluatedProperties: false },
      { $ref: '#/$defs/a', $defs: { a: { properties: { b: { $dynamicRef: '#x' } } } } },
    ];
    for (const schema of uncovered) expect((await compiled(schema)).fast, JSON.stringify(schema)).toBeUndefined();
    // and every assertion or subschema keyword of the shared tables it does not check, by its name
    const checked = new Set(['const', 'enum', 'format', 'multipleOf', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']);
    for (const name of ['maxLength', 'minLength', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required'])
      checked.add(name);
    for (const name of ['items', 'not', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'properties']) checked.add(name);
    // taken out by interpreted.ts before: a pattern becomes a format, patternProperties is not checked there
    for (const name of ['pattern', 'patternProperties']) checked.add(name);
    const others = [
      ...valueKeywords((keyword) => keyword.role === 'assertion'),
      ...subschemaKeywords((keyword) => !keyword.annotation && !keyword.definitions),
    ].filter((name) => !checked.has(name));
    expect(others.length).toBeGreaterThan(10);
    for (const name of others) expect((await compiled({ [name]: {} })).fast, name).toBeUndefined();
    // an uncovered keyword in a $defs entry nothing reaches does not matter
    expect((await compiled({ type: 'string', $defs: { a: { contains: {} } } })).fast).toBeDefined();
  });

  it('a value that fails keeps the errors cfworker gives it', async () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string', pattern: '^[a-z]+$', maxLength: 4 } },
      required: ['id'],
      additionalProperties: false,
    };
    const { validate, fast, cfworkerOnly } = await compiled(schema);
    expect(fast).toBeDefined();
    expect(validate({ id: 1, name: 'abc' })).toBeUndefined();
    for (const value of [{ id: 1.5, name: 'ABCDE', more: 1 }, {}, { id: '1' }, { id: 2 ** 64 }, []])
      expect(validate(value), JSON.stringify(value)).toEqual(cfworkerOnly(value));
    expect(validate({})).toEqual([
      { instancePath: '', keyword: 'required', message: "must have required property 'id'", params: { missingProperty: 'id' } },
    ]);
  });

  it('a value that is not JSON data goes to cfworker, which refuses it', async () => {
    const { validate } = await compiled({ type: 'object', properties: { a: {} } });
    expect(validate({ a: undefined })).toEqual([{ instancePath: '', keyword: 'json', message: 'must be JSON data', params: {} }]);
  });
});

/** Each tool's input and output schema, with the shared `$defs` they reach, as the runtime checks them. */
function schemasOf(table: ToolTable): JsonSchema[] {
  const schemas = toolSchemas(table);
  return table.tools.flatMap((tool) => {
    const output = schemas.listedOutput(tool);
    return output ? [schemas.wholeInput(tool), output] : [schemas.wholeInput(tool)];
  });
}

/** Fast verdict against cfworker's on every schema of `table`, each with a built value and its mutations. */
async function differential(table: ToolTable, valuesPerSchema: number) {
  let fastPaths = 0;
  let values = 0;
  let valid = 0;
  let builtValid = 0;
  const all = schemasOf(table);
  for (const schema of all) {
    const { fast, cfworker, validate, cfworkerOnly } = await compiled(schema);
    if (!fast) continue;
    fastPaths++;
    const instance = instanceOf(schema);
    if (cfworker(instance)) builtValid++;
    for (const value of [instance, ...spread(mutationsOf(instance), valuesPerSchema)]) {
      const expected = cfworker(value);
      if (fast(value) !== expected)
        expect.fail(`fast ${String(!expected)}, cfworker ${String(expected)}: ${JSON.stringify(value)?.slice(0, 300)}`);
      if (!expected) expect(validate(value)).toEqual(cfworkerOnly(value));
      values++;
      if (expected) valid++;
    }
  }
  console.info(
    `${table.name}: ${fastPaths} of ${all.length} schemas with a fast verdict; ` +
      `${builtValid} built values valid; ${values} values, ${valid} valid`,
  );
  return { fastPaths, schemas: all.length, values, valid, builtValid };
}

/** Up to `count` of `values`, evenly spaced: mutations deep in a value as well as near its root. */
function spread<T>(values: T[], count: number): T[] {
  if (values.length <= count) return values;
  return Array.from({ length: count }, (_, i) => values[Math.floor((i * values.length) / count)] as T);
}

describe('fast verdict against cfworker on real tables', () => {
  it('Petstore sample', async () => {
    const table = JSON.parse(
      readFileSync(new URL('../../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8'),
    ) as ToolTable;
    const result = await differential(table, 200);
    expect(result.fastPaths).toBe(result.schemas);
    expect(result.builtValid).toBe(result.schemas);
  });

  for (const [name, spec] of [
    ['GitHub', GITHUB_SPEC],
    ['Stripe', STRIPE_SPEC],
  ] as const)
    it.skipIf(!!corporaMissing)(
      corporaTitle(name),
      async () => {
        const { loadSpec } = await import('../../../../../src/parse/load.js');
        const { buildModel } = await import('../../../../../src/model/build.js');
        const table = buildModel(await loadSpec(spec), {}).table;
        const result = await differential(table, 40);
        expect(result.fastPaths).toBeGreaterThan(result.schemas * 0.5);
        expect(result.builtValid).toBeGreaterThan(result.fastPaths * 0.8);
      },
      300_000,
    );
});

describe('a value nested past the call stack', () => {
  it('gets an error, not an exception, from a recursive schema', async () => {
    const schema: JsonSchema = {
      $ref: '#/$defs/node',
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
    };
    const { fast, validate } = await compiled(schema);
    expect(fast).toBeDefined();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { next: deep };
    expect(() => fast?.(deep)).toThrow(RangeError);
    expect(validate(deep)?.[0]?.message).toBe('must be JSON data');
  });
});
