// Choosing what a server serves at start (src/contract/toolsets.ts), on the Petstore
// sample's real tool table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { servedTable, ToolsetError, toolsetOf, toolsetSizes, toolsetSlug } from '../../../src/contract/toolsets.js';
import { createServerFactory, toolsListedAtStart, type Serving } from '../../../src/runtime/mcp/server.js';
import { createExecutor } from '../../../src/runtime/call/executor.js';
import { createLogger } from '../../../src/runtime/start/log.js';
import { type ServerConfig } from '../../../src/runtime/start/config.js';
import { readConfig } from '../../../src/runtime/start/command-line.js';
import { buildModel } from '../../../src/model/build.js';
import { checkOptions } from '../../../src/options.js';
import { OptionsError } from '../../../src/errors.js';
import { loadSpec, type LoadedSpec } from '../../../src/parse/load.js';
import type { ToolSpec, ToolTable } from '../../../src/contract/table.js';
import { corporaMissing, corporaTitle, GITHUB_SPEC } from '../../../harness/corpora.js';

const petstore = JSON.parse(readFileSync(new URL('../../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;
const tool = (path: string, tags?: string[]) => ({ tags, http: { path } }) as unknown as ToolSpec;
const toolsetTools = (name: string) => petstore.tools.filter((t) => toolsetOf(t) === name).map((t) => t.name);

describe('toolsetOf', () => {
  it.each([
    ['the first tag', tool('/pets', ['Pet Store', 'other']), 'pet-store'],
    ['the first path segment without tags', tool('/repos/{owner}/{repo}'), 'repos'],
    ['a leading path variable is skipped', tool('/{tenant}/users'), 'users'],
    ['the root path', tool('/'), 'root'],
    ['accents and symbols', tool('/x', ['Café & Co']), 'cafe-co'],
    ['a version part is skipped (Stripe)', tool('/v1/customers/{customer}'), 'customers'],
    ['so are api and dotted versions', tool('/api/v2.1/orders'), 'orders'],
    ['a tag made only of symbols gives way to the next tag', tool('/x', ['!!', 'Users']), 'users'],
    ['the name chosen at generation wins', { ...tool('/pets', ['pet']), toolset: 'animals' } as ToolSpec, 'animals'],
  ])('%s', (_name, given, want) => {
    expect(toolsetOf(given)).toBe(want);
  });
});

describe('servedTable', () => {
  it('lists the Petstore toolsets with their sizes', () => {
    expect([...toolsetSizes(petstore)]).toEqual([
      ['pet', 8],
      ['store', 4],
      ['user', 8],
    ]);
  });

  it('serves only the chosen toolsets', () => {
    const served = servedTable(petstore, { toolsets: ['store'], readOnly: false });
    expect(served.tools.map((t) => t.name)).toEqual(['getInventory', 'placeOrder', 'getOrderById', 'deleteOrder']);
  });

  it('read-only keeps GET and HEAD tools only, and combines with toolsets', () => {
    const served = servedTable(petstore, { toolsets: ['store'], readOnly: true });
    expect(served.tools.map((t) => [t.name, t.http.method])).toEqual([
      ['getInventory', 'GET'],
      ['getOrderById', 'GET'],
    ]);
    expect(servedTable(petstore, { toolsets: [], readOnly: true }).tools.every((t) => t.http.method === 'GET')).toBe(true);
  });

  it('"all" or nothing serves everything, the same table', () => {
    expect(servedTable(petstore, { toolsets: ['all'], readOnly: false })).toBe(petstore);
    expect(servedTable(petstore, { toolsets: [], readOnly: false })).toBe(petstore);
  });

  it('an unknown toolset is an error that lists the known ones', () => {
    expect(() => servedTable(petstore, { toolsets: ['pets'], readOnly: false })).toThrow(ToolsetError);
    expect(() => servedTable(petstore, { toolsets: ['pets'], readOnly: false })).toThrow(
      '--toolsets: no toolset "pets" (did you mean "pet"?) (known: pet (8), store (4), user (8))',
    );
  });

  it('keeps only the pinned tools still served', () => {
    const dynamic = { ...petstore, serve: { mode: 'dynamic' as const, pinned: ['getInventory', 'addPet'] } };
    expect(servedTable(dynamic, { toolsets: ['store'], readOnly: false }).serve).toEqual({ mode: 'dynamic', pinned: ['getInventory'] });
  });
});

describe('toolsets named at generation', () => {
  const doc = (paths: object): LoadedSpec => ({
    doc: { openapi: '3.0.3', info: { title: 'T', version: '1' }, servers: [{ url: 'https://x.test' }], paths } as LoadedSpec['doc'],
    specVersion: '3.0.3',
    source: 't.yaml',
    warnings: [],
  });
  const op = (operationId: string, tags: string[] = [], extra: object = {}) => ({ operationId, tags, responses: {}, ...extra });
  const spec = doc({
    '/pets': { get: op('listPets', ['pet']), post: op('addPet', ['pet'], { 'x-mcp': { toolset: 'Pet Admin' } }) },
    '/stores/{id}': {
      'x-mcp': { toolset: 'shops' },
      get: op('getStore', ['store']),
      delete: op('deleteStore', ['store'], { 'x-mcp': { toolset: 'danger' } }),
    },
    '/v1/users': { get: op('listUsers') },
  });
  const toolsets = (options: Parameters<typeof buildModel>[1]) =>
    Object.fromEntries(buildModel(spec, options).table.tools.map((t) => [t.name, t.toolset]));

  it('by default: the first tag, else the path; x-mcp on the operation, else on its path, names another', () => {
    expect(toolsets({ maxDescriptionLength: 1000 })).toEqual({
      listPets: 'pet',
      addPet: 'pet-admin',
      getStore: 'shops',
      deleteStore: 'danger',
      listUsers: 'users',
    });
  });

  it('the config file wins over x-mcp: per operation first, then its toolsets rules in order', () => {
    const got = toolsets({
      maxDescriptionLength: 1000,
      toolOverrides: { deleteStore: { toolset: 'Admin' } },
      toolsets: { everything: { paths: ['/nothing/**'] }, people: { operations: ['list*'] }, stores: { tags: ['store'] } },
    });
    expect(got).toEqual({ listPets: 'people', addPet: 'pet-admin', getStore: 'stores', deleteStore: 'admin', listUsers: 'people' });
  });

  it('a toolset name without a letter or digit, or a rule of the wrong shape, is refused in one line', () => {
    expect(() => checkOptions({ toolsets: { '--': { tags: ['a'] } } }, 'c.yaml')).toThrow(OptionsError);
    expect(() => checkOptions({ toolsets: { ok: { tag: ['a'] } } }, 'c.yaml')).toThrow(
      /c\.yaml: "toolsets"\."ok"\.tag: expected tags, paths or operations/,
    );
    expect(() => checkOptions({ tools: { x: { toolset: '' } } }, 'c.yaml')).toThrow(
      /"tools"\."x"\.toolset: a toolset name needs a letter or digit/,
    );
  });

  it.skipIf(!!corporaMissing)(
    corporaTitle("GitHub: every tool's toolset is its first tag"),
    async () => {
      const { loadSpec } = await import('../../../src/parse/load.js');
      const github = await loadSpec(GITHUB_SPEC);
      const table = buildModel(github, { maxDescriptionLength: 1000 }).table;
      expect(table.tools.length).toBeGreaterThan(1000);
      for (const t of table.tools) expect(t.toolset, t.name).toBe(toolsetSlug(t.tags?.[0] ?? ''));
      expect(toolsetSizes(table).size).toBeGreaterThan(30);
    },
    60_000,
  );
});

describe('enable_toolset tells the truth', () => {
  // The store tools are pinned: listed from the start, so enabling store changes nothing.
  const table: ToolTable = { ...petstore, serve: { mode: 'toolsets', pinned: toolsetTools('store') } };
  const connected = async (serving: Serving) => {
    const executor = createExecutor(table, readConfig([], {}) as ServerConfig, {}, createLogger('t', 'silent'));
    const server = createServerFactory(table, executor, undefined, { mode: 'toolsets', profile: 'portable', initialToolsets: [] })(serving);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await server.connect(b);
    await client.connect(a);
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    return { client, changed: () => changed };
  };
  const text = (r: Awaited<ReturnType<Client['callTool']>>) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

  it('a toolset already listed: no claim that the list changed, and no tools/list_changed', async () => {
    const { client, changed } = await connected('session');
    const before = (await client.listTools()).tools.length;
    const result = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'store' } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Toolset store was already listed (4 tools); the tool list is unchanged.');
    await new Promise((r) => setTimeout(r, 20));
    expect(changed()).toBe(0);
    expect((await client.listTools()).tools).toHaveLength(before);
    await client.close();
  });

  it('an operation called before its toolset is enabled: the error says how to reach it', async () => {
    const { client } = await connected('session');
    await expect(client.callTool({ name: 'getPetById', arguments: { petId: 1 } })).rejects.toThrow(
      /Unknown tool: getPetById; enable its toolset with enable_toolset \{"toolset":"pet"\}/,
    );
    await client.close();
  });

  it('a new toolset: the list changed, and tools/list_changed says so', async () => {
    const { client, changed } = await connected('session');
    const result = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
    expect(text(result)).toBe('Toolset pet is enabled: 8 tools; the tool list has changed.');
    for (let i = 0; i < 50 && changed() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(changed()).toBe(1);
    await client.close();
  });

  it('a server for one request offers the dynamic meta-tools, and enable_toolset fails saying why', async () => {
    const { client } = await connected('request');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'search_operations',
      'describe_operation',
      'invoke_operation',
      ...toolsetTools('store'),
    ]);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBeFalsy();
    await expect(client.callTool({ name: 'getPetById', arguments: { petId: 1 } })).rejects.toThrow(
      /Unknown tool: getPetById; call it through invoke_operation/,
    );
    for (const name of ['enable_toolset', 'list_toolsets']) {
      const result = await client.callTool({ name, arguments: name === 'enable_toolset' ? { toolset: 'pet' } : {} });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(new RegExp(`^${name} needs a session, and this request has none .*invoke_operation`));
    }
    await client.close();
  });
});

describe('toolsListedAtStart: what the over-128 warning counts', () => {
  const pinned: ToolTable = { ...petstore, serve: { mode: 'toolsets', pinned: ['addPet'] } };
  it.each([
    ['direct: every tool', 'direct', [], 20],
    ['dynamic: the three meta-tools and the pinned tool', 'dynamic', ['store'], 4],
    [
      'toolsets: the meta-tools of a request without a session, the pinned tool, the toolsets enabled from the start',
      'toolsets',
      ['store'],
      8,
    ],
  ] as const)('%s', (_name, mode, initial, want) => {
    expect(toolsListedAtStart(pinned, mode, [...initial])).toBe(want);
  });
});

describe('nested toolsets (OAS 3.2 tags with a `parent`)', () => {
  // store ⊃ pets ⊃ adoptions; `beta` is a badge, not a toolset of its own
  const loaded = loadSpec(new URL('../../fixtures/openapi-3.2/petstore.yaml', import.meta.url).pathname);
  const nestedTable = async () => buildModel(await loaded, {}).table;
  const namesOf = (t: ToolTable) => t.tools.map((x) => x.name).sort();
  const clientOf = async (table: ToolTable, mode: 'toolsets' | 'direct') => {
    const executor = createExecutor(table, readConfig([], {}) as ServerConfig, {}, createLogger('t', 'silent'));
    const server = createServerFactory(table, executor, undefined, { mode, profile: 'portable', initialToolsets: [] })('session');
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await server.connect(b);
    await client.connect(a);
    return client;
  };

  it("the table records each toolset's parent; a badge tag names no toolset while a navigation tag does", async () => {
    const table = await nestedTable();
    expect(table.toolsetParents).toEqual({ pets: 'store', adoptions: 'pets' });
    expect(table.tools.find((t) => t.name === 'copyPet')?.toolset).toBe('pets');
    expect([...toolsetSizes(table)]).toEqual([
      ['pets', 7],
      ['store', 7],
      ['adoptions', 2],
    ]);
  });

  it('--toolsets with a parent serves its children too, at any depth; a child alone is itself', async () => {
    const table = await nestedTable();
    expect(namesOf(servedTable(table, { toolsets: ['store'], readOnly: false }))).toEqual(namesOf(table));
    expect(namesOf(servedTable(table, { toolsets: ['adoptions'], readOnly: false }))).toEqual(['adoptPet', 'adoptionEvents']);
  });

  it('enable_toolset on a parent lists the tools of the toolsets nested in it', async () => {
    const table = await nestedTable();
    const client = await clientOf(table, 'toolsets');
    try {
      const result = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'store' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Toolset store is enabled: 7 tools; the tool list has changed.' }]);
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed.filter((n) => !n.endsWith('_toolsets') && n !== 'enable_toolset').sort()).toEqual(namesOf(table));
    } finally {
      await client.close();
    }
  });

  it("a parent toolset's docs resource lists the tools of the toolsets nested in it, as enabling it does", async () => {
    const table = await nestedTable();
    const client = await clientOf(table, 'direct');
    try {
      const docs = await client.readResource({ uri: `${table.scheme}://docs/store` });
      const text = docs.contents.map((c) => ('text' in c ? c.text : '')).join('');
      for (const name of namesOf(table)) expect(text).toContain(`\`${name}\``);
    } finally {
      await client.close();
    }
  });
});
