// Code mode's declarations (src/runtime/code-mode/declarations.ts): what an agent reads of an operation
// before writing a program: a method of `api` with its argument and answer types, from the
// sample's real schemas, from Spotify's (list items in allOf pages, nested albums), and from
// schemas built to be hard (loops, huge enums, odd names, wrappers in wrappers). The printed
// text must be TypeScript that compiles, and show the fields a program reads.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { declarationOf } from '../../../../src/runtime/code-mode/declarations.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../../src/contract/table.js';
import { defGraph } from '../../../../src/contract/def-refs.js';
import { loadSpec } from '../../../../src/parse/load.js';
import { buildModel } from '../../../../src/model/build.js';
import { toolSchemas } from '../../../../src/runtime/mcp/tool-schemas.js';
import { corporaMissing, corporaTitle, SPOTIFY_SPEC } from '../../../../harness/corpora.js';
import { typeCheckProblem } from '../../../../harness/typescript.js';

const petstore = JSON.parse(readFileSync(new URL('../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;
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

describe('what a program reads, and TypeScript that compiles', () => {
  const nullableObject = (properties: Record<string, unknown>) => ({ type: ['object', 'null'], properties });
  const page = {
    type: ['object', 'null'],
    allOf: [{ $ref: '#/$defs/Paging' }, nullableObject({ items: { type: ['array', 'null'], items: { $ref: '#/$defs/Playlist' } } })],
    $defs: {
      Paging: nullableObject({ total: { type: ['number', 'null'] } }),
      Playlist: nullableObject({ id: { type: 'string' }, owner: { description: 'who', allOf: [{ $ref: '#/$defs/User' }] } }),
      User: { allOf: [{ $ref: '#/$defs/Base' }, nullableObject({ display_name: { type: 'string' } })] },
      Base: nullableObject({ id: { type: 'string' } }),
    },
  } as unknown as JsonSchema;
  const answerOf = (schema: JsonSchema) => /\): Promise<(.*)>;$/.exec(declarationOf(tool('getPetById'), {}, schema, false))?.[1];

  it('allOf parts that are objects print as the one object they add up to, null only if every part allows it', () => {
    expect(answerOf(page)).toBe(
      '{ total?: number | null; items?: Array<{ id?: string; owner?: { id?: string; display_name?: string } | null } | null> | null } | null',
    );
  });

  it('other allOf parts print as an intersection, a union in brackets', () => {
    const mixed = {
      allOf: [{ anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }] }, { $ref: '#/$defs/B' }],
      $defs: { B: nullableObject({ b: { type: 'number' } }) },
    } as unknown as JsonSchema;
    expect(answerOf(mixed)).toBe('({ a?: string } | null) & ({ b?: number } | null)');
    expect(typeCheckProblem(`type T = ${answerOf(mixed)};`)).toBeUndefined();
  });

  it('a union of nullable objects says null once, at the end', () => {
    const either = { oneOf: [nullableObject({ a: { type: 'string' } }), nullableObject({ b: { type: ['string', 'null'] } })] };
    expect(answerOf(either as unknown as JsonSchema)).toBe('{ a?: string } | { b?: string | null } | null');
  });

  it('wrappers and references spend no nesting: a field under ten of them still shows', () => {
    let wrapped: Record<string, unknown> = { $ref: '#/$defs/Leaf' };
    for (let i = 0; i < 10; i++) wrapped = i % 2 ? { allOf: [wrapped] } : { anyOf: [wrapped, { type: 'null' }] };
    const schema = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: wrapped } } },
      $defs: { Leaf: nullableObject({ leaf: { type: 'string' } }) },
    };
    expect(answerOf(schema as JsonSchema)).toContain('leaf?: string');
  });

  it('a recursive schema is cut by size, at a budget of a few KB', () => {
    const tree = {
      $ref: '#/$defs/Node',
      $defs: { Node: nullableObject({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }) },
    };
    const answer = answerOf(tree as unknown as JsonSchema) ?? '';
    expect(answer.length).toBeLessThan(3_100);
    expect(answer).toContain('children?: Array<{ name?: string; children?: Array<{ name?: string;');
    expect(typeCheckProblem(`type T = ${answer};`)).toBeUndefined();
  });
});

describe.skipIf(!!corporaMissing)(corporaTitle("Spotify's api, as search_api prints it"), () => {
  let spotify: ToolTable;
  let api: string;
  beforeAll(async () => {
    spotify = buildModel(await loadSpec(SPOTIFY_SPEC, {}), {}).table;
    const schemas = toolSchemas(spotify);
    const declared = spotify.tools.map((t) =>
      declarationOf(t, schemas.listedInput(t), t.output && schemas.withReachedDefs(t.output.schema), t.output?.wrap === true),
    );
    api = `interface Api {\n${declared.join('\n')}\n}\ndeclare const api: Api;\n`;
  });
  const byPath = (path: string) => JSON.stringify(spotify.tools.find((t) => t.http.method === 'GET' && t.http.path === path)?.name);

  it('every operation compiles as a method of the Api interface', () => {
    expect(spotify.tools.length).toBeGreaterThan(80);
    expect(typeCheckProblem(api)).toBeUndefined();
  });

  it("a program reads the playlists' names and owners, the items' tracks and their albums' release dates", () => {
    const program = `${api}
type Answer<Name extends keyof Api> = Api[Name] extends (args: never) => Promise<infer R> ? R : never;
type Item<Name extends keyof Api> = NonNullable<Answer<Name>> extends { items?: Array<infer I> | null } ? NonNullable<I> : never;
declare const playlist: Item<${byPath('/me/playlists')}>;
declare const saved: Item<${byPath('/me/albums')}>;
declare const entry: Item<${byPath('/playlists/{playlist_id}/tracks')}>;
type Text = string | null | undefined;
export const read: Text[] = [playlist.name, playlist.id, playlist.owner?.id, playlist.owner?.display_name];
export const albums: Text[] = [saved.album?.name, saved.album?.id, saved.album?.release_date];
// a playlist's entry is a track or an episode: each member of the union, by a field only it has
type Member<T, Key extends string> = T extends unknown ? (Key extends keyof T ? T : never) : never;
declare const song: Member<NonNullable<typeof entry.track>, 'album'>;
declare const episode: Member<NonNullable<typeof entry.track>, 'show'>;
export const tracks: Text[] = [entry.track?.name, entry.track?.id, song.album?.release_date, episode.release_date];
`;
    expect(typeCheckProblem(program)).toBeUndefined();
  });
});
