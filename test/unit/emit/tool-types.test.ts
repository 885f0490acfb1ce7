// src/tool-types.ts of a generated project (src/emit/types.ts): the types a JSON Schema gives,
// cycles TypeScript cannot resolve broken to `unknown`, and the file type-checked on its own
// with the corpus check's checker (harness/corpus-check.ts toolTypesProblem); its text byte for
// byte what the compiler's printer prints for the same types as syntax nodes (tool-types-reference.ts).
import { describe, expect, it } from 'vitest';
import {
  eagerCycles,
  eagerRefs,
  emitToolTypes,
  printedPart,
  printedPartMessage,
  printedPartOf,
  refKey,
  type TypesInput,
} from '../../../src/emit/types.js';
import { toolTypesProblem } from '../../../harness/corpus-check.js';
import { printedDeclarations } from './tool-types-reference.js';
import type { JsonSchema, ToolTable } from '../../../src/contract/table.js';

const table = (inputSchema: JsonSchema, defs: Record<string, JsonSchema> = {}): ToolTable => ({
  format: 1,
  name: 't',
  version: '1',
  servers: [],
  defs,
  auth: {},
  tools: [{ name: 'op', description: 'd', inputSchema, annotations: {}, http: { method: 'GET', path: '/', params: [] } }],
});
const ref = (key: string): JsonSchema => ({ $ref: `#/$defs/${key}` });

describe('emitToolTypes', () => {
  it('maps JSON Schema to TypeScript: required and optional, enums, const, arrays, unions, nullable, open objects', async () => {
    const text = await emitToolTypes(
      table({
        type: 'object',
        properties: {
          id: { type: 'integer' },
          status: { enum: ['a', 'b', 3, null] },
          kind: { const: 'x' },
          tags: { type: 'array', items: { type: 'string' } },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          maybe: { type: ['string', 'null'] },
          meta: { type: 'object', additionalProperties: { type: 'string' } },
          'x-odd name': { type: 'boolean' },
        },
        required: ['id'],
        additionalProperties: false,
      }),
    );
    expect(toolTypesProblem(text)).toBeUndefined();
    for (const line of [
      'id: number;',
      'status?: "a" | "b" | 3 | null;',
      'kind?: "x";',
      'tags?: string[];',
      'either?: string | number;',
      'maybe?: string | null;',
      '[key: string]: string;',
      '"x-odd name"?: boolean;',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('cycles through object properties stay typed; eager cycles (whole type, union member, array element) become unknown and type-check', async () => {
    const text = await emitToolTypes(
      table(
        { type: 'object', properties: { node: ref('Node'), value: ref('Value'), a: ref('A') } },
        {
          Node: { type: 'object', properties: { children: { type: 'array', items: ref('Node') } } }, // lazy: fine as is
          Value: { anyOf: [{ type: 'string' }, { type: 'array', items: ref('Value') }] }, // Vercel's EdgeConfigItemValue
          A: { allOf: [ref('B'), { type: 'object', properties: { a: { type: 'string' } } }] },
          B: { anyOf: [ref('A'), { type: 'string' }] },
        },
      ),
    );
    expect(toolTypesProblem(text)).toBeUndefined();
    expect(text).toContain('children?: Defs["Node"][];');
    expect(text).toContain('Value: string | unknown[];');
  });

  it('a hostile name is a string literal, and the file holds no code', async () => {
    const text = await emitToolTypes(table({ type: 'object', properties: { '"; process.exit(1); //': { enum: ['*/ x /*'] } } }));
    expect(toolTypesProblem(text)).toBeUndefined();
    expect(text).toContain('"\\"; process.exit(1); //"?: "*/ x /*";');
  });
});

describe('object types a table repeats: printed once, the same text wherever they come', () => {
  const address: JsonSchema = {
    type: 'object',
    properties: { city: { type: 'string' }, geo: { type: 'object', properties: { lat: { type: 'number' } } } },
  };
  const tools = (...inputs: JsonSchema[]): ToolTable => ({
    ...table({}),
    tools: inputs.map((inputSchema, i) => ({ ...table(inputSchema).tools[0]!, name: `op${i}` })),
  });
  /** Nested `levels` objects deep, under property `p`. */
  const nested = (levels: number, inner: JsonSchema): JsonSchema =>
    levels === 0 ? inner : { type: 'object', properties: { p: nested(levels - 1, inner) } };
  /** A tool's member of ToolArguments, as printed. */
  const member = (text: string, name: string) => new RegExp(`^    ${name}: [^]*?^    };$`, 'm').exec(text)?.[0];

  it('indents a repeat as the printer indents it there: under a property, in a union, as an array element', async () => {
    const text = await emitToolTypes(
      tools(
        { type: 'object', properties: { home: address } },
        {
          type: 'object',
          properties: {
            deep: { type: 'object', properties: { work: { anyOf: [{ type: 'string' }, address] } } },
            all: { type: 'array', items: address },
          },
        },
      ),
    );
    expect(toolTypesProblem(text)).toBeUndefined();
    expect(member(text, 'op1')).toBe(
      [
        '    op1: {',
        '        deep?: {',
        '            work?: string | {',
        '                city?: string;',
        '                geo?: {',
        '                    lat?: number;',
        '                };',
        '            };',
        '        };',
        '        all?: {',
        '            city?: string;',
        '            geo?: {',
        '                lat?: number;',
        '            };',
        '        }[];',
        '    };',
      ].join('\n'),
    );
  });

  it('a repeat where the depth limit cuts it is cut there, as when printed alone', async () => {
    const deepOnly = nested(23, address);
    const alone = member(await emitToolTypes(tools({ type: 'object', properties: {} }, deepOnly)), 'op1');
    expect(alone).toContain('lat?: unknown;');
    const afterShallow = member(
      await emitToolTypes(tools({ type: 'object', properties: { home: address, again: address } }, deepOnly)),
      'op1',
    );
    expect(afterShallow).toBe(alone);
  });

  it('NaN and Infinity, null as JSON, are not taken for null', async () => {
    const withValue = (value: unknown): JsonSchema => ({
      type: 'object',
      properties: { o: { type: 'object', properties: { x: { enum: [value] } } } },
    });
    const text = await emitToolTypes(tools(withValue(null), withValue(null), withValue(Number.NaN), withValue(Infinity)));
    expect(text.match(/x\?: null;/g)).toHaveLength(2);
    expect(text.match(/x\?: unknown;/g)).toHaveLength(2);
  });

  it('spec text that looks like the mark of a repeat stays text', async () => {
    const marked = '\u00000\u0000';
    const text = await emitToolTypes(
      tools(
        { type: 'object', properties: { home: address, [marked]: { enum: [marked] } } },
        { type: 'object', properties: { work: address } },
      ),
    );
    expect(toolTypesProblem(text)).toBeUndefined();
    expect(text).toContain('"\\x000\\0"?: "\\x000\\0";');
  });
});

describe("the text is the compiler printer's, byte for byte (the reference prints factory nodes)", () => {
  /** emitToolTypes' text without its header, which has no nodes. */
  const declarations = async (input: TypesInput) => {
    const text = await emitToolTypes(input);
    return text.slice(text.indexOf('export interface ToolArguments'), -1);
  };
  const tool = (name: string, inputSchema: JsonSchema, output?: { schema: JsonSchema; wrap: boolean }): TypesInput['tools'][number] => ({
    name,
    inputSchema,
    ...(output ? { output } : {}),
  });

  const HOSTILE_TEXTS = [
    '"',
    "'",
    '\\',
    '\\"',
    '\n',
    '\r\n',
    '\t',
    '*/',
    '/*',
    '*/ x /*',
    '${x}',
    '`',
    '\u2028',
    '\u2029',
    '\ud800',
    '\udc00',
    'a\ud83dz',
    '\u0000',
    '\u00000\u0000',
    '\u0001',
    '\u007f',
    '\u0085',
    '\ufeff',
    'é',
    '日本',
    '😀',
    '',
    ' ',
    '123',
    '1e3',
    '0x1f',
    '-1',
    '__proto__',
    '___x',
    'constructor',
    'default',
    'class',
    'a-b',
    '$',
    '_',
    '</script>',
    '"; process.exit(1); //',
  ];
  const NUMBERS = [
    0,
    -0,
    1,
    -1,
    1.5,
    -0.25,
    1e21,
    -1e21,
    1e-7,
    -1e-7,
    5e-324,
    Number.MAX_SAFE_INTEGER,
    2 ** 53 + 2,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    123456789012345680000,
  ];

  it('hostile property names, enum and const strings, def keys, numbers', async () => {
    const properties = Object.fromEntries(
      HOSTILE_TEXTS.map((text, i): [string, JsonSchema] => [text, i % 2 ? { const: text } : { enum: [text, 'x'] }]),
    );
    const defs = Object.fromEntries(
      HOSTILE_TEXTS.map((text): [string, JsonSchema] => [text, { type: 'object', properties: { [text]: { type: 'string' } } }]),
    );
    const refs = Object.fromEntries(HOSTILE_TEXTS.map((text, i): [string, JsonSchema] => [`r${i}`, { $ref: `#/$defs/${text}` }]));
    const input: TypesInput = {
      defs,
      tools: [
        tool('hostile', { type: 'object', properties, required: HOSTILE_TEXTS.slice(3, 9) }),
        tool('refs', { type: 'object', properties: refs }),
        tool('numbers', {
          type: 'object',
          properties: { all: { enum: NUMBERS }, one: { const: -0 }, big: { const: 1e21 }, arr: { type: 'array', items: { const: -1 } } },
        }),
        ...HOSTILE_TEXTS.map((text) => tool(text, { type: 'object', properties: { [text]: { const: text } } })),
      ],
    };
    expect(await declarations(input)).toBe(printedDeclarations(input));
  });

  it('nested unions, intersections and arrays, parenthesised where the printer does', async () => {
    const a: JsonSchema = { type: 'string' };
    const b: JsonSchema = { type: 'number' };
    const ab: JsonSchema = { anyOf: [a, b] };
    const aAndB: JsonSchema = { allOf: [a, b] };
    const shapes: JsonSchema[] = [
      { anyOf: [ab, aAndB, a] },
      { oneOf: [{ allOf: [ab, aAndB] }, { type: 'array', items: ab }] },
      { allOf: [ab] },
      { allOf: [aAndB] },
      { anyOf: [{ allOf: [ab] }, b] },
      { type: 'array', items: { type: 'array', items: aAndB } },
      { type: ['array', 'null', 'object'], items: { enum: ['x', 1, null] }, properties: { p: ab } },
      { type: ['string'] },
      { type: [] },
      { enum: [] },
      { anyOf: [] },
      { allOf: [] },
      { anyOf: [false, true, {}] },
      { type: 'array' },
      { type: 'array', items: false },
      { type: 'array', items: { type: 'object' } },
      { type: 'object', properties: {} },
      { type: 'object', additionalProperties: true },
      { type: 'object', additionalProperties: ab },
      { type: 'object', properties: { x: a }, additionalProperties: { type: 'object', additionalProperties: b } },
      { type: 'object', additionalProperties: { type: 'object', properties: {} } },
      { type: 'object', properties: { x: a }, additionalProperties: false },
      { const: { a: 1 } },
      { enum: [[1], { a: 1 }, true, false] },
      { type: 'unknown-type' },
      { properties: { untyped: a } },
      {
        anyOf: [
          { type: 'object', properties: { o: { anyOf: [a, { type: 'object', properties: { p: b } }] } } },
          { type: 'array', items: { type: 'object', properties: { q: ab } } },
        ],
      },
    ];
    const input: TypesInput = {
      defs: { Ab: ab, Node: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'array', items: { $ref: '#/$defs/Node' } }, a] } },
      tools: [
        tool('shapes', { type: 'object', properties: Object.fromEntries(shapes.map((shape, i) => [`s${i}`, shape])) }),
        ...shapes.map((shape, i) => tool(`t${i}`, shape, { schema: { type: 'object', properties: { result: shape } }, wrap: i % 2 === 0 })),
      ],
    };
    expect(await declarations(input)).toBe(printedDeclarations(input));
  });

  it('cut at the depth limit, in objects, arrays and unions', async () => {
    const nested = (levels: number): JsonSchema => {
      if (levels === 0) return { enum: ['deep', 1] };
      const inner = nested(levels - 1);
      const shapes: JsonSchema[] = [
        { type: 'object', properties: { p: inner }, required: ['p'] },
        { type: 'array', items: inner },
        { anyOf: [inner, { type: 'null' }] },
        { allOf: [inner, { type: 'object', properties: { n: { type: 'integer' } } }] },
      ];
      return shapes[levels % shapes.length] as JsonSchema;
    };
    const input: TypesInput = {
      defs: { Deep: nested(30) },
      tools: [22, 23, 24, 25, 26, 40].map((levels) => tool(`deep${levels}`, nested(levels))),
    };
    const text = await declarations(input);
    expect(text).toContain('unknown');
    expect(text).toBe(printedDeclarations(input));
  });

  it('empty tables and empty interfaces', async () => {
    for (const input of [
      { defs: {}, tools: [] as TypesInput['tools'] },
      { defs: {}, tools: [tool('only', {})] },
    ])
      expect(await declarations(input)).toBe(printedDeclarations(input));
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('random tables (seed %i)', async (seed) => {
    const input = randomTable(seed);
    expect(await declarations(input)).toBe(printedDeclarations(input));
  });

  /** A table of schemas drawn at random (shallow enough that sharing repeats prints what the reference prints). */
  function randomTable(seed: number): TypesInput {
    let state = seed * 0x9e3779b9;
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const names = [...HOSTILE_TEXTS, 'id', 'name', 'value', 'items', 'type'];
    const defKeys = ['A', 'B', 'C', 'D e', '"F"'];
    const values: unknown[] = [...HOSTILE_TEXTS, ...NUMBERS, true, false, null, { o: 1 }, [1]];
    const seenObjects: JsonSchema[] = [];
    const schema = (levels: number): JsonSchema | boolean => {
      const roll = random();
      if (levels === 0 || roll < 0.15)
        return pick<JsonSchema | boolean>([{ type: pick(['string', 'integer', 'number', 'boolean', 'null', 'nope']) }, true, false, {}]);
      if (roll < 0.22 && seenObjects.length > 0) return pick(seenObjects);
      if (roll < 0.3) return { $ref: `#/$defs/${pick([...defKeys, 'Missing'])}` };
      if (roll < 0.38) return { enum: Array.from({ length: Math.floor(random() * 4) }, () => pick(values)) };
      if (roll < 0.43) return { const: pick(values) };
      if (roll < 0.55)
        return { [pick(['anyOf', 'oneOf', 'allOf'])]: Array.from({ length: Math.floor(random() * 4) }, () => schema(levels - 1)) };
      if (roll < 0.65)
        return { type: random() < 0.7 ? 'array' : ['array', 'null'], ...(random() < 0.9 ? { items: schema(levels - 1) } : {}) };
      const properties = Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => [pick(names), schema(levels - 1)]));
      const extra = random();
      const object: JsonSchema = {
        ...(random() < 0.9 ? { type: random() < 0.8 ? 'object' : ['object', 'string'] } : {}),
        properties,
        required: Object.keys(properties).filter(() => random() < 0.5),
        ...(extra < 0.2 ? { additionalProperties: schema(levels - 1) } : extra < 0.3 ? { additionalProperties: true } : {}),
      };
      seenObjects.push(object);
      return object;
    };
    const object = (levels: number) => ({ type: 'object', properties: { a: schema(levels), b: schema(levels) } }) as JsonSchema;
    return {
      defs: Object.fromEntries(defKeys.map((key) => [key, random() < 0.5 ? object(4) : (schema(4) as JsonSchema)])),
      tools: Array.from({ length: 30 }, (_, i) =>
        tool(pick(names) + i, object(5), random() < 0.5 ? { schema: object(4), wrap: random() < 0.5 } : undefined),
      ),
    };
  }
});

describe('printedPart: what the worker is sent', () => {
  const shared: JsonSchema = { type: 'string', description: 'shared', format: 'date-time' };
  const full = table(
    {
      type: 'object',
      description: 'arguments',
      properties: {
        description: { type: 'string', description: 'a property named like a keyword', examples: ['x'] },
        at: shared,
        again: shared,
        pick: {
          oneOf: [
            { const: 1, title: 'one' },
            { enum: ['a', null], default: 'a' },
          ],
          discriminator: { propertyName: 'k' },
        },
        all: { allOf: [ref('Thing'), { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] }] },
        list: { type: 'array', items: { anyOf: [ref('Thing'), { type: 'null' }] }, maxItems: 3 },
        open: { type: 'object', additionalProperties: { type: 'number', 'x-unit': 'ms' } },
      },
      required: ['at'],
      additionalProperties: false,
    },
    { Thing: { type: 'object', title: 'Thing', properties: { id: { type: 'string', pattern: '^x' } }, 'x-extra': { a: 1 } } },
  );
  full.tools[0]!.output = {
    schema: { type: 'object', properties: { result: { type: 'array', items: ref('Thing') } } },
    wrap: true,
  };

  it('prints the same file as the whole table', async () => {
    expect(await emitToolTypes(printedPart(full))).toBe(await emitToolTypes(full));
  });

  it('keeps only the keywords printing reads, and property names whatever they are', () => {
    const part = printedPart(full);
    const text = JSON.stringify(part);
    for (const dropped of [
      'arguments',
      'shared',
      'date-time',
      'examples',
      'title',
      'default',
      'discriminator',
      'minimum',
      'maxItems',
      'x-unit',
      'pattern',
      'x-extra',
      '"listing"',
    ])
      expect(text).not.toContain(dropped);
    const properties = part.tools[0]!.inputSchema.properties as Record<string, JsonSchema>;
    expect(properties.description).toEqual({ type: 'string' });
    expect(properties.at).toEqual({ type: 'string' });
  });

  it('goes to the worker as JSON text, which reads back to the same file', async () => {
    const message = printedPartMessage(full);
    expect(typeof message).toBe('string');
    expect(await emitToolTypes(printedPartOf(message))).toBe(await emitToolTypes(full));
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Infinity],
    ['undefined', undefined],
    ['a date (YAML reads one)', new Date(0)],
  ])('goes as it is, not as JSON, with %s as a constant (JSON would give it back as another)', async (_name, value) => {
    const odd = table({ type: 'object', properties: { one: { const: value }, some: { enum: ['a', value] } } });
    const message = printedPartMessage(odd);
    expect(typeof message).toBe('object');
    const text = await emitToolTypes(printedPartOf(message));
    expect(text).toBe(await emitToolTypes(odd));
    expect(text).toContain('some?: "a" | unknown;');
  });

  it('keeps a property named __proto__', async () => {
    const named = table(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"integer"}}}') as JsonSchema);
    const text = await emitToolTypes(printedPartOf(printedPartMessage(named)));
    expect(text).toContain('__proto__?: number;');
    expect(text).toBe(await emitToolTypes(named));
  });
});

describe('eager references: the ones TypeScript resolves at once', () => {
  const defs: Record<string, JsonSchema> = { A: {}, B: {} };
  const refs: [string, { given: JsonSchema; want: string[] }][] = [
    ['the whole type', { given: ref('A'), want: ['A'] }],
    ['union and intersection members', { given: { anyOf: [ref('A')], allOf: [ref('B')] }, want: ['A', 'B'] }],
    ['an array element', { given: { type: 'array', items: { oneOf: [ref('B')] } }, want: ['B'] }],
    ['not under a property (resolved lazily)', { given: { type: 'object', properties: { a: ref('A') } }, want: [] }],
    ['not a def the table lacks', { given: { anyOf: [ref('Missing'), { $ref: '#/components/schemas/A' }] }, want: [] }],
  ];
  it.each(refs)('%s', (_name, { given, want }) => {
    expect([...eagerRefs(given, defs)].sort()).toEqual(want);
  });

  const cycles: [string, { given: Record<string, JsonSchema>; want: string[] }][] = [
    ['none without refs', { given: { A: { type: 'string' } }, want: [] }],
    ['a def that is its own array', { given: { A: { type: 'array', items: ref('A') } }, want: ['A'] }],
    ['two defs through an intersection and a union', { given: { A: { allOf: [ref('B')] }, B: { anyOf: [ref('A')] } }, want: ['A', 'B'] }],
    [
      'only the defs on the cycle, not those leading into it',
      { given: { A: ref('B'), B: { anyOf: [ref('C')] }, C: { type: 'array', items: ref('B') } }, want: ['B', 'C'] },
    ],
    ['none through an object property', { given: { A: { type: 'object', properties: { a: ref('A') } } }, want: [] }],
  ];
  it.each(cycles)('cycles: %s', (_name, { given, want }) => {
    expect([...eagerCycles(given)].sort()).toEqual(want);
  });

  it.each([
    ['#/$defs/A', 'A'],
    ['#/$defs/Missing', undefined],
    ['#/components/schemas/A', undefined],
  ])('refKey(%s) is %s', (given, want) => {
    expect(refKey({ $ref: given }, { A: {} })).toBe(want);
  });
});
