// The shared schemas a schema reaches (src/contract/def-refs.ts): what both halves attach as
// `$defs` now that the table keeps no per-tool closure.
import { describe, expect, it } from 'vitest';
import { defGraph, directRefs } from '../../../src/contract/def-refs.js';
import type { JsonSchema } from '../../../src/contract/table.js';

const defs: Record<string, JsonSchema> = {
  Pet: { type: 'object', properties: { tag: { $ref: '#/$defs/Tag' }, owner: { $ref: '#/$defs/Owner' } } },
  Tag: { type: 'string' },
  Owner: { type: 'object', properties: { pets: { type: 'array', items: { $ref: '#/$defs/Pet' } } } },
  Lonely: { type: 'integer' },
  Odd: { anyOf: [{ $ref: '#/$defs/constructor' }, { $ref: '#/components/schemas/Elsewhere' }] },
};

describe('directRefs', () => {
  it('names each #/$defs/ ref once, in arrays and nested objects, and ignores other refs', () => {
    expect(
      directRefs({ allOf: [{ $ref: '#/$defs/A' }, { properties: { b: { $ref: '#/$defs/B' }, a: { $ref: '#/$defs/A' } } }] }).sort(),
    ).toEqual(['A', 'B']);
    expect(directRefs(defs.Odd)).toEqual(['constructor']);
    expect(directRefs({ enum: Array.from({ length: 200_000 }, (_, i) => i) })).toEqual([]);
  });
});

describe('defGraph', () => {
  const cases: [string, { schema: JsonSchema; want: string[] }][] = [
    ['none', { schema: { type: 'object' }, want: [] }],
    ['a leaf', { schema: { $ref: '#/$defs/Tag' }, want: ['Tag'] }],
    ['through a cycle, every def once, sorted', { schema: { properties: { p: { $ref: '#/$defs/Pet' } } }, want: ['Owner', 'Pet', 'Tag'] }],
    [
      'a key that is not in the table is still named (the server attaches {} for it)',
      { schema: { $ref: '#/$defs/Odd' }, want: ['Odd', 'constructor'] },
    ],
  ];
  it.each(cases)('%s', (_name, { schema, want }) => {
    expect(defGraph(defs).reachedFrom(schema)).toEqual(want);
  });

  it('answers the same roots in any order with one walk', () => {
    const graph = defGraph(defs);
    const first = graph.closure(['Tag', 'Pet']);
    expect(graph.closure(['Pet', 'Tag', 'Pet'])).toBe(first);
    expect(graph.depsOf('Pet').sort()).toEqual(['Owner', 'Tag']);
  });
});
