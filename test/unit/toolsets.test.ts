// Choosing what a server serves at start (templates/runtime/toolsets.ts), on the Petstore
// sample's real tool table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { servedTable, ToolsetError, toolsetOf, toolsetSizes } from '../../templates/runtime/toolsets.js';
import type { ToolSpec, ToolTable } from '../../templates/runtime/table.js';

const petstore = JSON.parse(readFileSync(new URL('../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;
const tool = (path: string, tags?: string[]) => ({ tags, http: { path } }) as unknown as ToolSpec;

describe('toolsetOf', () => {
  it.each([
    ['the first tag', tool('/pets', ['Pet Store', 'other']), 'pet-store'],
    ['the first path segment without tags', tool('/repos/{owner}/{repo}'), 'repos'],
    ['a leading path variable is skipped', tool('/{tenant}/users'), 'users'],
    ['the root path', tool('/'), 'root'],
    ['accents and symbols', tool('/x', ['Café & Co']), 'cafe-co'],
  ])('%s', (_name, given, want) => {
    expect(toolsetOf(given)).toBe(want);
  });
});

describe('servedTable', () => {
  it('lists the Petstore toolsets with their sizes', () => {
    expect([...toolsetSizes(petstore)]).toEqual([['pet', 8], ['store', 4], ['user', 8]]);
  });

  it('serves only the chosen toolsets', () => {
    const served = servedTable(petstore, { toolsets: ['store'], readOnly: false });
    expect(served.tools.map((t) => t.name)).toEqual(['getInventory', 'placeOrder', 'getOrderById', 'deleteOrder']);
  });

  it('read-only keeps GET and HEAD tools only, and combines with toolsets', () => {
    const served = servedTable(petstore, { toolsets: ['store'], readOnly: true });
    expect(served.tools.map((t) => [t.name, t.http.method])).toEqual([['getInventory', 'GET'], ['getOrderById', 'GET']]);
    expect(servedTable(petstore, { toolsets: [], readOnly: true }).tools.every((t) => t.http.method === 'GET')).toBe(true);
  });

  it('"all" or nothing serves everything, the same table', () => {
    expect(servedTable(petstore, { toolsets: ['all'], readOnly: false })).toBe(petstore);
    expect(servedTable(petstore, { toolsets: [], readOnly: false })).toBe(petstore);
  });

  it('an unknown toolset is an error that lists the known ones', () => {
    expect(() => servedTable(petstore, { toolsets: ['pets'], readOnly: false })).toThrow(ToolsetError);
    expect(() => servedTable(petstore, { toolsets: ['pets'], readOnly: false })).toThrow('--toolsets: no toolset "pets" (known: pet (8), store (4), user (8))');
  });

  it('keeps only the pinned tools still served', () => {
    const dynamic = { ...petstore, serve: { mode: 'dynamic' as const, pinned: ['getInventory', 'addPet'] } };
    expect(servedTable(dynamic, { toolsets: ['store'], readOnly: false }).serve).toEqual({ mode: 'dynamic', pinned: ['getInventory'] });
  });
});
