// The independent profile checker (harness/profile-rules.ts): a realistic tool passes under
// each profile, and each rule, broken on its own, is reported at the path where it breaks.
// Paths read like JavaScript: inputSchema.properties.a.items, .anyOf[1], .properties["user-id"].
import { describe, expect, it } from 'vitest';
import { profileViolations, type ListedTool, type Profile } from '../../../harness/profile-rules.js';

type Schema = Record<string, unknown>;
/** [what breaks, the tool, a fragment of the expected violation: "<tool> <path>: <rule start>"] */
type Case = [string, ListedTool, string];

const PROFILES: Profile[] = ['portable', 'openai-strict', 'gemini'];
const tool = (inputSchema: Schema, extra: Partial<ListedTool> = {}): ListedTool => ({ name: 't', inputSchema, ...extra });
/** A tool whose one property `a` is the schema under test. */
const withA = (a: unknown): ListedTool => tool({ type: 'object', properties: { a } });
const tooLong = 'x'.repeat(401);
/** `levels` objects nested through a property `n`, the innermost one holding a string. */
const nestedObjects = (levels: number): Schema => {
  let schema: Schema = { type: 'string' };
  for (let level = 0; level < levels; level++) {
    schema = { type: 'object', properties: { n: schema }, required: ['n'], additionalProperties: false };
  }
  return schema;
};
const nPath = (levels: number): string => 'inputSchema' + '.properties.n'.repeat(levels);

const expectViolation = (found: string[], fragment: string): void => expect(found).toContainEqual(expect.stringContaining(fragment));

const passing: Record<Profile, ListedTool[]> = {
  portable: [
    tool({ type: 'object' }),
    {
      name: 'list_pets',
      description: 'List the pets in the store.',
      inputSchema: {
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, description: 'How many to return' },
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          owner: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          filter: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: true },
          // the schema under `not` need not constrain; `if` with `then` does constrain
          removed: { not: {} },
          kind: { if: { type: 'string' }, then: { minLength: 1 } },
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
        },
        required: ['limit'],
      },
      outputSchema: {
        type: 'object',
        properties: { pets: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } },
      },
    },
  ],
  'openai-strict': [
    tool({ type: 'object', properties: {}, required: [], additionalProperties: false }),
    tool(nestedObjects(10)),
    {
      name: 'create-order',
      description: 'Create an order.',
      inputSchema: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time', description: 'Delivery time' },
          size: { type: 'string', enum: ['s', 'm', 'l'] },
          note: { anyOf: [{ type: 'string', pattern: '^[a-z ]*$' }, { type: 'null' }] },
          count: { type: 'integer', minimum: 1, maximum: 10 },
          address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 },
          version: { const: 2 },
        },
        required: ['when', 'size', 'note', 'count', 'address', 'tags', 'version'],
        additionalProperties: false,
      },
    },
  ],
  gemini: [
    tool({ type: 'object' }),
    tool({ type: 'object', properties: {} }),
    {
      name: 'createOrder',
      description: 'Create an order.',
      inputSchema: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time', description: 'Delivery time' },
          size: { type: 'string', format: 'enum', enum: ['s', 'm', 'l'] },
          count: { type: 'integer', format: 'int64', minimum: 0, nullable: true },
          ratio: { type: 'number', format: 'double', maximum: 1 },
          address: {
            type: 'object',
            properties: { city: { type: 'string', minLength: 1 } },
            required: ['city'],
            propertyOrdering: ['city'],
          },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
          owner: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        },
        required: ['when'],
      },
    },
  ],
};

// Each walked keyword gets a subschema with an unknown type, so only a walk that reaches it reports it.
const badType = { type: 'file' };
const walked: Array<[string, Schema, string]> = [
  ['properties', { type: 'object', properties: { b: badType } }, '.properties.b'],
  ['patternProperties', { patternProperties: { '^x': badType } }, '.patternProperties["^x"]'],
  ['$defs', { $defs: { d: badType } }, '.$defs.d'],
  ['definitions', { definitions: { d: badType } }, '.definitions.d'],
  ['dependentSchemas', { dependentSchemas: { b: badType } }, '.dependentSchemas.b'],
  ['items (one schema)', { type: 'array', items: badType }, '.items'],
  ['items (tuple)', { type: 'array', items: [{ type: 'string' }, badType] }, '.items[1]'],
  ['prefixItems', { prefixItems: [badType] }, '.prefixItems[0]'],
  ['allOf', { allOf: [badType] }, '.allOf[0]'],
  ['anyOf', { anyOf: [{ type: 'string' }, badType] }, '.anyOf[1]'],
  ['oneOf', { oneOf: [badType] }, '.oneOf[0]'],
  ...[
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
    'additionalProperties',
    'unevaluatedProperties',
    'additionalItems',
    'unevaluatedItems',
    'contentSchema',
  ].map((keyword): [string, Schema, string] => [keyword, { [keyword]: badType }, `.${keyword}`]),
];

const common: Case[] = [
  ['a name with a space', tool({ type: 'object' }, { name: 'bad name' }), 'bad name name: must match'],
  ['a name of 65 characters', tool({ type: 'object' }, { name: 'n'.repeat(65) }), `${'n'.repeat(65)} name: must match`],
  ['an empty name', tool({ type: 'object' }, { name: '' }), ' name: must match'],
  ['a long tool description', tool({ type: 'object' }, { description: tooLong }), 't description: is 401 characters'],
  ['no type at the top', tool({ properties: {} }), 't inputSchema: must have type "object"'],
  ['type "array" at the top', tool({ type: 'array', items: { type: 'string' } }), 't inputSchema: must have type "object"'],
  ['an input schema that is not an object', tool([] as unknown as Schema), 't inputSchema: must be a schema object'],
  ...['oneOf', 'anyOf', 'allOf', 'not', 'if', '$ref'].map((keyword): Case => [
    `${keyword} at the top`,
    tool({ type: 'object', [keyword]: [{ type: 'object' }] }),
    `t inputSchema: ${keyword} is not allowed at the top level`,
  ]),
  ['a $ref', withA({ $ref: '#/$defs/x' }), 't inputSchema.properties.a: $ref is not allowed'],
  ['$defs', tool({ type: 'object', $defs: { x: { type: 'string' } } }), 't inputSchema: $defs is not allowed'],
  ['definitions', withA({ type: 'string', definitions: {} }), 't inputSchema.properties.a: definitions is not allowed'],
  ['a $dynamicRef', withA({ $dynamicRef: '#node' }), 't inputSchema.properties.a: $dynamicRef is not allowed'],
  ['an array of types', withA({ type: ['string', 'null'] }), 't inputSchema.properties.a.type: must be a single string'],
  ['an unknown type', withA({ type: 'file' }), 't inputSchema.properties.a.type: "file" is not one of'],
  ['a boolean property schema', withA(true), 't inputSchema.properties.a: boolean schema is only allowed'],
  ['a boolean items schema', withA({ type: 'array', items: false }), 't inputSchema.properties.a.items: boolean schema is only allowed'],
  ['a property schema that is a string', withA('string'), 't inputSchema.properties.a: must be a schema object'],
  ['properties that is a list', tool({ type: 'object', properties: [] }), 't inputSchema.properties: must be an object mapping names'],
  ['anyOf that is an object', withA({ anyOf: { type: 'string' } }), 't inputSchema.properties.a.anyOf: must be an array of schemas'],
  ['a long description', withA({ type: 'string', description: tooLong }), 't inputSchema.properties.a.description: is 401 characters'],
  [
    'a description that is not a string',
    withA({ type: 'string', description: 7 }),
    't inputSchema.properties.a.description: must be a string',
  ],
  [
    'a property name that is not an identifier',
    tool({ type: 'object', properties: { 'user-id': badType } }),
    't inputSchema.properties["user-id"].type: "file"',
  ],
  ...walked.map(([keyword, a, path]): Case => [
    `a bad subschema under ${keyword}`,
    withA(a),
    `t inputSchema.properties.a${path}.type: "file"`,
  ]),
];

const portable: Case[] = [
  ['an empty property schema', withA({}), 't inputSchema.properties.a: does not constrain'],
  ['a property with only a description', withA({ description: 'anything' }), 't inputSchema.properties.a: does not constrain'],
  ['if without then or else', withA({ if: { type: 'string' } }), 't inputSchema.properties.a: does not constrain'],
  ['an empty items schema', withA({ type: 'array', items: {} }), 't inputSchema.properties.a.items: does not constrain'],
  [
    'an output schema that is not an object',
    tool({ type: 'object' }, { outputSchema: { type: 'array', items: { type: 'string' } } }),
    't outputSchema: must have type "object"',
  ],
  [
    'an unconstrained output property',
    tool({ type: 'object' }, { outputSchema: { type: 'object', properties: { r: {} } } }),
    't outputSchema.properties.r: does not constrain',
  ],
  [
    'a $ref in the output schema',
    tool({ type: 'object' }, { outputSchema: { type: 'object', properties: { r: { $ref: '#/x' } } } }),
    't outputSchema.properties.r: $ref is not allowed',
  ],
];

const strictObject = (properties: Schema): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const strictWithA = (a: unknown): ListedTool => tool(strictObject({ a }));
const openai: Case[] = [
  ['an output schema', tool(strictObject({}), { outputSchema: { type: 'object' } }), 't outputSchema: is not allowed under openai-strict'],
  [
    'an object without properties',
    strictWithA({ type: 'object', required: [], additionalProperties: false }),
    't inputSchema.properties.a: type "object" needs properties',
  ],
  [
    'an empty nested properties',
    strictWithA(strictObject({})),
    't inputSchema.properties.a.properties: must not be empty below the top level',
  ],
  [
    'no additionalProperties at the top',
    tool({ type: 'object', properties: {}, required: [] }),
    't inputSchema.additionalProperties: must be exactly false',
  ],
  [
    'additionalProperties true',
    strictWithA({ ...strictObject({ b: { type: 'string' } }), additionalProperties: true }),
    't inputSchema.properties.a.additionalProperties: must be exactly false',
  ],
  [
    'additionalProperties as a schema',
    strictWithA({ ...strictObject({ b: { type: 'string' } }), additionalProperties: { type: 'string' } }),
    't inputSchema.properties.a.additionalProperties: must be exactly false',
  ],
  [
    'no required',
    tool({ type: 'object', properties: {}, additionalProperties: false }),
    't inputSchema.required: must list every key of properties',
  ],
  [
    'an optional property',
    tool({ ...strictObject({ b: { type: 'string' }, c: { type: 'string' } }), required: ['b'] }),
    't inputSchema.required: is missing "c"',
  ],
  [
    'a required name not in properties',
    tool({ ...strictObject({ b: { type: 'string' } }), required: ['b', 'z'] }),
    't inputSchema.required: names "z", not in properties',
  ],
  ...[
    'oneOf',
    'allOf',
    'not',
    'default',
    'examples',
    'minLength',
    'maxLength',
    'uniqueItems',
    'patternProperties',
    'nullable',
    'propertyNames',
  ].map((keyword): Case => [
    `the keyword ${keyword}`,
    strictWithA({ type: 'string', [keyword]: keyword === 'oneOf' || keyword === 'allOf' ? [{ type: 'string' }] : { type: 'string' } }),
    `t inputSchema.properties.a: keyword "${keyword}" is not allowed under openai-strict`,
  ]),
  ['an untyped schema', strictWithA({ description: 'anything' }), 't inputSchema.properties.a: needs type, anyOf, enum or const'],
  [
    'an untyped anyOf branch',
    strictWithA({ anyOf: [{ type: 'string' }, { minimum: 1 }] }),
    't inputSchema.properties.a.anyOf[1]: needs type, anyOf, enum or const',
  ],
  [
    'an array without items',
    strictWithA({ type: 'array' }),
    't inputSchema.properties.a.items: type "array" needs items that is a single schema object',
  ],
  [
    'a tuple array',
    strictWithA({ type: 'array', items: [{ type: 'string' }] }),
    't inputSchema.properties.a.items: type "array" needs items that is a single schema object',
  ],
  ['format uri', strictWithA({ type: 'string', format: 'uri' }), 't inputSchema.properties.a.format: "uri" is not one of'],
  ['format int32', strictWithA({ type: 'integer', format: 'int32' }), 't inputSchema.properties.a.format: "int32" is not one of'],
  ['11 levels of objects', tool(nestedObjects(11)), `t ${nPath(10)}: object nested more than 10 levels deep`],
  [
    '5001 properties',
    tool(strictObject(Object.fromEntries(Array.from({ length: 5001 }, (_, index) => [`p${index}`, { type: 'string' }])))),
    't inputSchema: has 5001 properties in all',
  ],
  [
    '1001 enum values',
    tool(
      strictObject({
        a: { type: 'integer', enum: Array.from({ length: 600 }, (_, index) => index) },
        b: { type: 'integer', enum: Array.from({ length: 401 }, (_, index) => index) },
      }),
    ),
    't inputSchema: has 1001 enum values in all',
  ],
];

const gemini: Case[] = [
  ['an output schema', tool({ type: 'object' }, { outputSchema: { type: 'object' } }), 't outputSchema: is not allowed under gemini'],
  ...[
    'additionalProperties',
    'const',
    'oneOf',
    'allOf',
    'not',
    'default',
    'examples',
    'exclusiveMinimum',
    'multipleOf',
    'uniqueItems',
    '$schema',
  ].map((keyword): Case => [
    `the keyword ${keyword}`,
    withA({ type: 'string', [keyword]: keyword === 'oneOf' || keyword === 'allOf' ? [{ type: 'string' }] : { type: 'string' } }),
    `t inputSchema.properties.a: keyword "${keyword}" is not allowed under gemini`,
  ]),
  [
    'additionalProperties at the top',
    tool({ type: 'object', additionalProperties: false }),
    't inputSchema: keyword "additionalProperties" is not allowed under gemini',
  ],
  ['an untyped schema', withA({ description: 'anything' }), 't inputSchema.properties.a: needs type or anyOf'],
  ['an enum without a type', withA({ enum: ['x'] }), 't inputSchema.properties.a: needs type or anyOf'],
  [
    'type null',
    withA({ anyOf: [{ type: 'string' }, { type: 'null' }] }),
    't inputSchema.properties.a.anyOf[1].type: "null" is not supported',
  ],
  ['an integer enum', withA({ type: 'integer', enum: [1, 2] }), 't inputSchema.properties.a.enum: is only allowed with type "string"'],
  ['a non-string enum value', withA({ type: 'string', enum: ['x', 1] }), 't inputSchema.properties.a.enum: values must all be strings'],
  [
    'a nested object without properties',
    withA({ type: 'object' }),
    't inputSchema.properties.a.properties: type "object" below the top level needs non-empty properties',
  ],
  [
    'a nested object with empty properties',
    withA({ type: 'object', properties: {} }),
    't inputSchema.properties.a.properties: type "object" below the top level needs non-empty properties',
  ],
  [
    'an array without items',
    withA({ type: 'array' }),
    't inputSchema.properties.a.items: type "array" needs items that is a single schema object',
  ],
  [
    'a tuple array',
    withA({ type: 'array', items: [{ type: 'string' }] }),
    't inputSchema.properties.a.items: type "array" needs items that is a single schema object',
  ],
  [
    'format uri on a string',
    withA({ type: 'string', format: 'uri' }),
    't inputSchema.properties.a.format: "uri" is not allowed on type "string"',
  ],
  [
    'format int32 on a number',
    withA({ type: 'number', format: 'int32' }),
    't inputSchema.properties.a.format: "int32" is not allowed on type "number"',
  ],
  [
    'format float on an integer',
    withA({ type: 'integer', format: 'float' }),
    't inputSchema.properties.a.format: "float" is not allowed on type "integer"',
  ],
  [
    'a format on a boolean',
    withA({ type: 'boolean', format: 'flag' }),
    't inputSchema.properties.a.format: is not allowed on type "boolean"',
  ],
  ['nullable as a string', withA({ type: 'string', nullable: 'yes' }), 't inputSchema.properties.a.nullable: must be a boolean'],
  [
    'a required name not in properties',
    tool({ type: 'object', properties: { b: { type: 'string' } }, required: ['b', 'z'] }),
    't inputSchema.required: names "z", not in properties',
  ],
];

const broken: Record<Profile, Case[]> = { portable, 'openai-strict': openai, gemini };

describe.each(PROFILES)('profile %s', (profile) => {
  it.each(passing[profile].map((passingTool): [string, ListedTool] => [passingTool.name, passingTool]))(
    'passes a valid tool (%s)',
    (_name, passingTool) => {
      expect(profileViolations(passingTool, profile)).toEqual([]);
    },
  );

  it.each([...common, ...broken[profile]])('reports %s', (_what, brokenTool, fragment) => {
    expectViolation(profileViolations(brokenTool, profile), fragment);
  });

  // A malformed object graph must end in a violation, not a hang or a stack overflow.
  it('stops at 200 levels of nesting', () => {
    let deep: Schema = { type: 'string' };
    for (let level = 0; level < 300; level++) deep = { type: 'array', items: deep };
    expectViolation(
      profileViolations(withA(deep), profile),
      `t inputSchema.properties.a${'.items'.repeat(200)}: nested deeper than 200 levels`,
    );
  });

  it('stops on a cycle', () => {
    const loop: Schema = { type: 'array' };
    loop.items = loop;
    expectViolation(profileViolations(withA(loop), profile), 'nested deeper than 200 levels');
  });

  it('stops on a branching cycle', () => {
    const fork: Schema = { type: 'string' };
    fork.anyOf = [fork, fork];
    expectViolation(profileViolations(withA(fork), profile), 'subschemas; not checked further');
  });
});
