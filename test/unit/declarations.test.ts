// Code mode's declarations (src/runtime/declarations.ts): what an agent reads of an operation
// before writing a program: a method of `api` with its argument and answer types, from the
// sample's real schemas and from schemas built to be hard (loops, huge enums, odd names).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { declarationOf } from '../../src/runtime/declarations.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../src/contract/table.js';
import { defGraph } from '../../src/contract/def-refs.js';

const petstore = JSON.parse(readFileSync(new URL('../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;
const tool = (name: string) => petstore.tools.find((t) => t.name === name) as ToolSpec;
/** The tool's output schema with the shared $defs attached, as the executor gives it. */
const reach = defGraph(petstore.defs);
const output = (t: ToolSpec): JsonSchema =>
  ({
    ...t.output?.schema,
    $defs: Object.fromEntries(reach.reachedFrom(t.output?.schema ?? {}).map((d) => [d, petstore.defs?.[d]])),
  }) as JsonSchema;

describe('an operation as a method of api', () => {
  it('findPetsByStatus: a read-only method taking the enum array, answering Pets', () => {
    const t = tool('findPetsByStatus');
    const declared = declarationOf(t, t.inputSchema, output(t), t.output?.wrap === true);
    const [doc, method] = declared.split('\n');
    expect(doc).toMatch(/^\/\*\* .+ \(read-only; GET \/pet\/findByStatus\) \*\/$/);
    expect(method?.startsWith('findPetsByStatus(args: { status: Array<"available" | "pending" | "sold"> }): Promise<Array<{ ')).toBe(true);
    // the answer: the Pet objects, unwrapped from { result }, nested definitions followed
    expect(method).toContain('category?: { id?: number | null; name?: string | null } | null');
    expect(method).toContain('tags?: Array<{ id?: number | null; name?: string | null } | null> | null');
    expect(method?.endsWith('} | null> | null>;')).toBe(true);
  });

  it('a write is marked, and a name that is no identifier is quoted', () => {
    const t = { ...tool('addPet'), name: 'pets/add-one' };
    const declared = declarationOf(t, t.inputSchema, undefined, false);
    expect(declared).toContain('(writes; POST /pet)');
    expect(declared).toMatch(/\n"pets\/add-one"\(args: \{/);
    expect(declared).toMatch(/\): Promise<unknown>;$/);
  });

  it('stays bounded on a reference loop, a huge enum, many properties and deep nesting', () => {
    const looping = { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } } as unknown as JsonSchema;
    const huge = { type: 'object', properties: { code: { enum: Array.from({ length: 500 }, (_, i) => `c${i}`) } } } as JsonSchema;
    const wide = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: 'string' }])),
    } as JsonSchema;
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 50; i++) deep = { type: 'object', properties: { inner: deep } };
    const t = tool('getPetById');
    expect(declarationOf(t, looping, undefined, false)).toContain('(args: unknown)');
    expect(declarationOf(t, huge, undefined, false)).toContain('code?: string }');
    const many = declarationOf(t, wide, undefined, false);
    expect(many).toContain('p24?: string; [key: string]: unknown }');
    expect(many).not.toContain('p25');
    expect(declarationOf(t, deep as JsonSchema, undefined, false).length).toBeLessThan(300);
  });

  it('a description cannot close the comment it is printed in', () => {
    const t = { ...tool('getPetById'), title: 'Evil */ api.x(); /*', description: '' };
    const declared = declarationOf(t, t.inputSchema, undefined, false);
    expect(declared.split('\n')[0]?.indexOf('*/')).toBe((declared.split('\n')[0]?.length ?? 0) - 2);
  });
});
