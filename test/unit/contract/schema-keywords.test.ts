// The JSON Schema keyword table (src/contract/schema-keywords.ts) that the generator's
// converter (src/model/schema.ts) and the runtime's listing (profiles.ts) both walk by.
import { describe, expect, it } from 'vitest';
import { SUBSCHEMA_KEYWORDS, type SubschemaKeywordName } from '../../../src/contract/schema-keywords.js';
import { SchemaConverter } from '../../../src/model/schema.js';
import { createLister } from '../../../src/contract/profiles.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../src/contract/table.js';

/** `{ keyword: <a $ref to target> }` in the keyword's shape. */
function holding(keyword: SubschemaKeywordName, target: string): JsonObject {
  const ref = { $ref: target };
  const shape = SUBSCHEMA_KEYWORDS[keyword].shape;
  return { [keyword]: shape === 'one' ? ref : shape === 'list' ? [ref] : { a: ref } };
}

/** What the converter writes of the keyword, and the def keys it reached. */
function converted(keyword: SubschemaKeywordName): { written: boolean; refs: string[] } {
  const doc: JsonObject = { components: { schemas: { Target: { type: 'string' } } } };
  const refs = new Set<string>();
  const out = new SchemaConverter(doc, '3.1').convert(holding(keyword, '#/components/schemas/Target'), 'request', refs);
  return { written: keyword in out, refs: [...refs] };
}

/** Whether the portable listing inlines a shared schema referenced under the keyword. */
function inlinedWhenListed(keyword: SubschemaKeywordName): boolean {
  const defs: Record<string, JsonSchema> = { Target: { type: 'string', description: 'the target' } };
  const tool = {
    name: 't',
    description: 'd',
    inputSchema: { type: 'object', properties: { p: holding(keyword, '#/$defs/Target') } },
    defs: ['Target'],
    annotations: {},
    http: { method: 'GET', path: '/', params: [] },
  } as ToolSpec;
  const table: ToolTable = { format: 1, name: 'x', version: '1', servers: [], defs, auth: {}, tools: [tool] };
  const full = { input: (t: ToolSpec) => t.inputSchema, output: () => undefined };
  const listed = createLister(table, 'portable', full).tool(tool).inputSchema;
  return JSON.stringify(listed).includes('the target') && !JSON.stringify(listed).includes('$ref');
}

describe('every subschema keyword: what the converter writes, and that the listing walks it', () => {
  // The converter writes 2020-12 for ajv: no older draft's keyword, no annotation-only
  // subschema, no definitions of its own. The listing walks every subschema it may meet;
  // portable lists no definitions.
  const cases: [SubschemaKeywordName, { written: boolean; listed: 'inlined' | 'not listed' }][] = [
    ['items', { written: true, listed: 'inlined' }],
    ['not', { written: true, listed: 'inlined' }],
    ['if', { written: true, listed: 'inlined' }],
    ['then', { written: true, listed: 'inlined' }],
    ['else', { written: true, listed: 'inlined' }],
    ['contains', { written: true, listed: 'inlined' }],
    ['propertyNames', { written: true, listed: 'inlined' }],
    ['additionalProperties', { written: true, listed: 'inlined' }],
    ['unevaluatedProperties', { written: true, listed: 'inlined' }],
    ['unevaluatedItems', { written: true, listed: 'inlined' }],
    ['additionalItems', { written: false, listed: 'inlined' }],
    ['contentSchema', { written: false, listed: 'inlined' }],
    ['allOf', { written: true, listed: 'inlined' }],
    ['anyOf', { written: true, listed: 'inlined' }],
    ['oneOf', { written: true, listed: 'inlined' }],
    ['prefixItems', { written: true, listed: 'inlined' }],
    ['properties', { written: true, listed: 'inlined' }],
    ['patternProperties', { written: true, listed: 'inlined' }],
    ['dependentSchemas', { written: true, listed: 'inlined' }],
    ['$defs', { written: false, listed: 'not listed' }],
    ['definitions', { written: false, listed: 'not listed' }],
  ];

  it('covers the whole table', () => {
    expect(cases.map(([k]) => k).sort()).toEqual(Object.keys(SUBSCHEMA_KEYWORDS).sort());
  });

  it.each(cases)('%s', (keyword, want) => {
    const got = converted(keyword);
    expect(got.written).toBe(want.written);
    expect(got.refs).toEqual(want.written ? ['Target'] : []);
    expect(inlinedWhenListed(keyword)).toBe(want.listed === 'inlined');
  });
});

describe('value keywords through the converter', () => {
  const convert = (schema: JsonObject, mode: 'request' | 'response' = 'request') =>
    new SchemaConverter({}, '3.1').convert(schema, mode, new Set());
  const cases: [string, { given: { schema: JsonObject; mode?: 'request' | 'response' }; want: JsonSchema }][] = [
    [
      'written in table order',
      { given: { schema: { minLength: 1, title: 'T', maxLength: 2 } }, want: { title: 'T', maxLength: 2, minLength: 1 } },
    ],
    [
      '2020-12 contains bounds are kept',
      {
        given: { schema: { type: 'array', contains: { type: 'string' }, minContains: 1, maxContains: 2 } },
        want: { type: 'array', maxContains: 2, minContains: 1, contains: { type: 'string' } },
      },
    ],
    [
      'dependentRequired maps names to names',
      { given: { schema: { dependentRequired: { a: ['b'] } } }, want: { dependentRequired: { a: ['b'] } } },
    ],
    ['a dependentRequired ajv would refuse is left out', { given: { schema: { dependentRequired: { a: 'b' } } }, want: {} }],
    ['a number keyword that is not a number is left out', { given: { schema: { minContains: '1' } }, want: {} }],
    ['draft-07 dependencies is not written', { given: { schema: { dependencies: { a: ['b'] } } }, want: {} }],
    [
      'a response keeps only what documents it',
      {
        given: {
          schema: { title: 'T', description: 'D', deprecated: true, minContains: 1, dependentRequired: { a: ['b'] }, default: 1 },
          mode: 'response',
        },
        want: { title: 'T', description: 'D', deprecated: true },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const got = convert(given.schema, given.mode);
    expect(got).toEqual(want);
    expect(Object.keys(got)).toEqual(Object.keys(want));
  });
});
