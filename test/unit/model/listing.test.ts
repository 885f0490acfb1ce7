// What tools/list shows of large schemas (src/model/listing.ts) and how the runtime lists and
// checks them (src/runtime/call/request/checks.ts): nearest shared schemas in full within a budget,
// the rest as stubs that accept every value the full schema accepts.
import { describe, expect, it, vi } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { syntheticSpec } from '../../../harness/synthetic.js';
import { buildModel } from '../../../src/model/build.js';
import { DEFAULT_LISTING_BUDGET, fitListing, splitDefs } from '../../../src/model/listing.js';
import type { LoadedSpec } from '../../../src/parse/load.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import { readConfig } from '../../../src/runtime/start/command-line.js';
import { createExecutor } from '../../../src/runtime/call/executor.js';
import { createLogger } from '../../../src/runtime/start/log.js';
import { stubSchema, type JsonSchema, type ToolSpec, type ToolTable } from '../../../src/contract/table.js';

describe('splitDefs', () => {
  // A → B → C → D, X → A; each def 100 bytes
  const graph: Record<string, string[]> = { A: ['B'], B: ['C'], C: ['D'], D: [], X: ['A'], Loop: ['Loop2'], Loop2: ['Loop'] };
  const deps = (k: string) => graph[k] ?? [];
  const size = () => 100;
  const cases: [string, { roots: string[]; budget: number; firstLevel: boolean; want: { defs: string[]; stubs: string[] } }][] = [
    ['everything fits', { roots: ['A'], budget: 1_000, firstLevel: true, want: { defs: ['A', 'B', 'C', 'D'], stubs: [] } }],
    [
      'no budget: the first level in full, the next as a stub, nothing beyond',
      { roots: ['A'], budget: 0, firstLevel: true, want: { defs: ['A'], stubs: ['B'] } },
    ],
    [
      'no budget and no free first level: a stub at the root',
      { roots: ['A'], budget: 0, firstLevel: false, want: { defs: [], stubs: ['A'] } },
    ],
    ['the budget buys the nearest first', { roots: ['A'], budget: 200, firstLevel: true, want: { defs: ['A', 'B', 'C'], stubs: ['D'] } }],
    [
      'a def reached at two depths is listed once, at the nearer',
      { roots: ['X', 'B'], budget: 100, firstLevel: true, want: { defs: ['A', 'B', 'X'], stubs: ['C'] } },
    ],
    ['a cycle ends', { roots: ['Loop'], budget: 1_000, firstLevel: false, want: { defs: ['Loop', 'Loop2'], stubs: [] } }],
  ];
  it.each(cases)('%s', (_name, { roots, budget, firstLevel, want }) => {
    expect(splitDefs(roots, deps, size, budget, firstLevel)).toEqual(want);
  });
});

describe('stubSchema', () => {
  it('keeps the type and says what the schema is, briefly', () => {
    expect(stubSchema({ type: 'object', title: 'Customer', properties: { a: {} } })).toEqual({
      type: 'object',
      description: 'Customer (schema not listed in full)',
    });
    expect(stubSchema({ anyOf: [{ type: 'string' }] })).toEqual({ description: '(schema not listed in full)' });
    expect((stubSchema({ description: 'x'.repeat(500) }).description as string).length).toBeLessThan(200);
  });
});

/** A spec whose one operation takes a body reaching a chain of `depth` shared schemas of ~`bytes` each, and answers with the same. */
function chainSpec(depth: number, bytes: number): LoadedSpec {
  const schemas: JsonObject = {};
  for (let i = 0; i < depth; i++) {
    schemas[`Level${i}`] = {
      type: 'object',
      description: `Level ${i}. ${'words '.repeat(bytes / 6)}`,
      required: ['name'],
      properties: {
        name: { type: 'string', maxLength: 10 },
        ...(i + 1 < depth ? { next: { $ref: `#/components/schemas/Level${i + 1}` } } : {}),
      },
    };
  }
  const ref = { $ref: '#/components/schemas/Level0' };
  return {
    doc: {
      openapi: '3.0.3',
      info: { title: 'Chain', version: '1' },
      servers: [{ url: 'https://api.example.com' }],
      paths: {
        '/things': {
          post: {
            operationId: 'createThing',
            requestBody: { required: true, content: { 'application/json': { schema: ref } } },
            responses: { 200: { description: 'ok', content: { 'application/json': { schema: ref } } } },
          },
        },
      },
      components: { schemas },
    },
    specVersion: '3.0.3',
    source: 'chain.yaml',
    warnings: [],
  };
}

/** A value valid for the chain down to `depth`, with `bad` at the deepest level if given. */
function chainValue(depth: number, bad?: unknown): JsonObject {
  let value: JsonObject = { name: bad === undefined ? 'leaf' : (bad as string) };
  for (let i = depth - 2; i >= 0; i--) value = { name: `n${i}`, next: value };
  return value;
}

function runtime(table: ToolTable) {
  const config = readConfig([], {});
  if (typeof config === 'string') throw new Error('unexpected');
  return createExecutor(table, { ...config, logLevel: 'silent' }, {}, createLogger('test', 'silent'));
}

describe('fitListing through the model and the runtime', () => {
  it('a small schema is listed whole: no listing recorded', () => {
    const { table, report } = buildModel(chainSpec(3, 100), { maxDescriptionLength: 1_000 });
    const tool = table.tools[0] as ToolSpec;
    expect(tool.listing).toBeUndefined();
    expect(tool.output?.listing).toBeUndefined();
    expect(report.listing).toMatchObject({ trimmedTools: 0 });
    expect(report.listing?.listedBytes).toBe(report.listing?.wholeBytes);
  });

  const depth = 40;
  const { table, report } = buildModel(chainSpec(depth, 2_000), { maxDescriptionLength: 1_000 });
  const tool = table.tools[0] as ToolSpec;
  const executor = runtime(table);
  const ajv = new Ajv2020({ strict: false });

  it('a deep one is listed within the budgets, the nearest levels in full', () => {
    expect(report.listing?.trimmedTools).toBe(1);
    expect(report.listing?.listedBytes).toBeLessThan((report.listing?.wholeBytes ?? 0) / 4);
    const input = executor.inputSchema(tool);
    const defs = input.$defs as Record<string, JsonSchema>;
    expect(defs.Level0?.properties).toBeDefined(); // the first level is the argument's shape
    expect(defs.Level1?.properties).toBeDefined();
    expect(JSON.stringify(input).length).toBeLessThan(DEFAULT_LISTING_BUDGET.inputDefsBytes + 4_000);
    const stubs = Object.entries(defs).filter(([, d]) => d.properties === undefined);
    expect(stubs).toHaveLength(1); // the listing ends with one stub; nothing beyond it is listed
    expect(Object.keys(defs).length).toBeLessThan(depth);
    const output = executor.outputSchema(tool) as JsonSchema;
    expect(JSON.stringify(output).length).toBeLessThan(DEFAULT_LISTING_BUDGET.outputDefsBytes + 1_000);
  });

  it('the listed schemas accept every valid value, and every ref in them resolves', () => {
    const listedInput = ajv.compile(executor.inputSchema(tool));
    const listedOutput = ajv.compile(executor.outputSchema(tool) as JsonSchema);
    expect(listedInput({ body: chainValue(depth) }), JSON.stringify(listedInput.errors)).toBe(true);
    expect(listedOutput(chainValue(depth))).toBe(true);
  });

  it('the server still checks the whole schema and names the deep field', async () => {
    const result = await executor.call(tool, { body: chainValue(depth, 'far too long a name') }, new AbortController().signal);
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/Invalid arguments for createThing/);
    expect(text).toContain(`argument "body${'.next'.repeat(depth - 1)}.name": must NOT have more than 10 characters`);
  });

  it('a tight total budget halves the per-schema budgets until the list fits', () => {
    const copy = JSON.parse(JSON.stringify(table)) as ToolTable;
    const tight = fitListing(copy, { ...DEFAULT_LISTING_BUDGET, totalBytes: 12_000 });
    expect(tight.listedBytes).toBeLessThanOrEqual(12_000);
    expect(tight.listedBytes).toBeLessThan(report.listing?.listedBytes ?? 0);
  });

  it('a list over the total budget even with every schema stubbed is fitted in one pass, not in thirteen halvings', () => {
    const copy = JSON.parse(JSON.stringify(table)) as ToolTable;
    const first = copy.tools[0] as ToolSpec;
    let sets = 0;
    for (const holder of [first, first.output as object]) {
      let value: unknown;
      Object.defineProperty(holder, 'listing', {
        configurable: true,
        enumerable: true,
        get: () => value,
        set: (v: unknown) => {
          sets++;
          value = v;
        },
      });
    }
    const fitted = fitListing(copy, { ...DEFAULT_LISTING_BUDGET, totalBytes: 1 });
    expect(fitted).toMatchObject({ trimmedTools: 1, wholeBytes: report.listing?.wholeBytes });
    expect(first.listing?.defs).toEqual([]); // the last attempt's: no free first level
    expect(first.listing?.stubs).toEqual(['Level0']);
    expect(sets).toBe(2); // each schema's listing set once, by the attempt that remains
  });

  it('reads shared schemas whose keys JSON escapes (a quote, a backslash) as the schemas name them', () => {
    // the refs are read from the schemas' JSON text: an escaped key must come back as the key
    const key = 'Lev"el\\0';
    const text = JSON.stringify(table).replaceAll('Level0"', `${JSON.stringify(key).slice(1, -1)}"`);
    const copy = JSON.parse(text) as ToolTable;
    expect(Object.keys(copy.defs)).toContain(key);
    expect(fitListing(copy, { ...DEFAULT_LISTING_BUDGET, totalBytes: 1 }).trimmedTools).toBe(1);
    expect(copy.tools[0]?.listing?.stubs).toEqual([key]);
  });

  it('after halving, each schema is split as the halved budgets would split it on their own, for every total', () => {
    // Two tools: a long chain that never fits whole and a short tail of it that fits until the
    // budgets are small. fitListing reuses a split that fit whole at a larger budget: it must
    // give what a first attempt with the halved budgets gives.
    const spec = chainSpec(8, 1_500);
    const tailRef = { $ref: '#/components/schemas/Level6' };
    (spec.doc.paths as JsonObject)['/tail'] = {
      post: {
        operationId: 'createTail',
        requestBody: { required: true, content: { 'application/json': { schema: tailRef } } },
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: tailRef } } } },
      },
    };
    const base = buildModel(spec, { maxDescriptionLength: 1_000 }).table;
    const listings = (t: ToolTable) => t.tools.map((tool) => [tool.listing, tool.output?.listing]);
    const scaled = (k: number) => {
      const copy = JSON.parse(JSON.stringify(base)) as ToolTable;
      const budget = {
        inputDefsBytes: Math.floor(DEFAULT_LISTING_BUDGET.inputDefsBytes / 2 ** k),
        outputDefsBytes: Math.floor(DEFAULT_LISTING_BUDGET.outputDefsBytes / 2 ** k),
        totalBytes: Infinity,
      };
      return { report: fitListing(copy, budget), listings: listings(copy) };
    };
    const fresh = [0, 1, 2, 3, 4, 5].map(scaled);
    expect(new Set(fresh.map((f) => f.report.listedBytes)).size).toBeGreaterThan(3);
    for (const { report } of fresh) {
      const copy = JSON.parse(JSON.stringify(base)) as ToolTable;
      const fitted = fitListing(copy, { ...DEFAULT_LISTING_BUDGET, totalBytes: report.listedBytes });
      const expected = fresh.find((f) => f.report.listedBytes <= report.listedBytes) as (typeof fresh)[number];
      expect(fitted).toEqual(expected.report);
      expect(listings(copy)).toEqual(expected.listings);
    }
  });
});

describe('measuring the listings', () => {
  /** Characters JSON.stringify writes while the model of a synthetic spec is built: the measuring work. */
  function serialised(operations: number): number {
    // every resource its own tag, so toolsets grow with the spec: enable_toolset lists them all
    const doc = syntheticSpec(operations, { groups: Infinity }) as JsonObject;
    const stringify = JSON.stringify;
    let chars = 0;
    const counter = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      const text = stringify(...args);
      chars += text?.length ?? 0;
      return text;
    });
    try {
      buildModel({ doc, specVersion: '3.0.3', source: 'synthetic.json', warnings: [] }, { maxDescriptionLength: 1_000 });
    } finally {
      counter.mockRestore();
    }
    return chars;
  }

  it('grows linearly with the operations: each tool and each set of meta-tools is measured once, not once per toolset', () => {
    // measured: 4.00× for 4× the operations; measuring the meta-tools per toolset gave 5.5×
    expect(serialised(4_000) / serialised(1_000)).toBeLessThan(4.4);
  });
});
