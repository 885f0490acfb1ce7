// Over several APIs, each API's own filters, toolOverrides and scope rules (`apis[i].<key>`),
// beside the server-wide ones, which still reach every API.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { petAnswer, startUpstream, type Upstream } from '../harness/upstream.js';
import { runCli } from '../harness/cli.js';
import type { ToolTable } from '../../src/contract/table.js';

const BIN = join(REPO, 'bin/mcp-gen.js');
const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const PETSTORE_SWAGGER2 = join(REPO, 'samples/petstore-swagger2/openapi.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-api-options-e2e-'));

let shop: Upstream;
let zoo: Upstream;
beforeAll(async () => {
  buildCli();
  shop = await startUpstream(petAnswer);
  zoo = await startUpstream(petAnswer);
});
afterAll(async () => {
  await shop?.close();
  await zoo?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The shop with its own options, the zoo with none, and `serverWide` for both. */
function configWith(name: string, shopOwn: object, serverWide: object = {}): string {
  const file = join(scratch, `${name}.json`);
  const apis = [
    { spec: PETSTORE, namespace: 'shop', baseUrl: `${shop.url}/v2`, ...shopOwn },
    { spec: PETSTORE_SWAGGER2, namespace: 'zoo', baseUrl: `${zoo.url}/v2` },
  ];
  writeFileSync(file, JSON.stringify({ ...serverWide, apis }));
  return file;
}

const SHOP_OWN = {
  excludeOperations: ['deletePet'],
  toolOverrides: { getPetById: { arguments: { petId: { hidden: true, value: 7 } } } },
  scopes: [{ operations: ['getPetById'], scopes: ['shop:pets'] }],
};
const SERVER_WIDE = { toolOverrides: { findPetsByStatus: { description: 'Pets by status, for every API.' } } };

function generate(name: string, shopOwn: object, serverWide: object = {}) {
  const out = join(scratch, name);
  const r = runCli(['--config', configWith(name, shopOwn, serverWide), '--out', out], scratch);
  const table = r.code === 0 ? (JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as ToolTable) : undefined;
  return { ...r, table, tool: (name: string) => table?.tools.find((t) => t.name === name) };
}

describe("an API's own filters, toolOverrides and scopes", () => {
  it('apply to its tools only; the server-wide ones to both APIs', () => {
    const r = generate('own', SHOP_OWN, SERVER_WIDE);
    expect(r.code, r.stderr).toBe(0);
    expect(r.tool('shop_deletePet')).toBeUndefined();
    expect(r.tool('zoo_deletePet')).toBeDefined();
    expect(Object.keys(r.tool('shop_getPetById')?.inputSchema.properties ?? {})).not.toContain('petId');
    expect(Object.keys(r.tool('zoo_getPetById')?.inputSchema.properties ?? {})).toContain('petId');
    expect(r.tool('shop_getPetById')?.scopes).toEqual(['shop:pets']);
    expect(r.tool('zoo_getPetById')?.scopes).not.toEqual(['shop:pets']);
    expect(r.tool('shop_findPetsByStatus')?.description).toContain('Pets by status, for every API.');
    expect(r.tool('zoo_findPetsByStatus')?.description).toContain('Pets by status, for every API.');
  });

  it("served: the shop's hidden argument is never listed and always sent; the zoo's is the agent's", async () => {
    const client = await connect('stdio', REPO, {
      argv: [BIN, 'serve', '--config', configWith('serve', SHOP_OWN), '--log-level', 'warn', '--tools', 'direct'],
      env: { SHOP_API_KEY: 'shop-key', ZOO_API_KEY: 'zoo-key' },
    });
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.map((t) => t.name)).not.toContain('shop_deletePet');
      expect(Object.keys(tools.find((t) => t.name === 'shop_getPetById')?.inputSchema.properties ?? {})).not.toContain('petId');
      shop.clear();
      zoo.clear();
      expect((await client.callTool({ name: 'shop_getPetById', arguments: {} })).isError).toBeFalsy();
      expect((await client.callTool({ name: 'zoo_getPetById', arguments: { petId: 3 } })).isError).toBeFalsy();
      expect(shop.requests.map((r) => r.url)).toEqual(['/v2/pet/7']);
      expect(zoo.requests.map((r) => r.url)).toEqual(['/v2/pet/3']);
    } finally {
      await client.close();
    }
  });

  it('a server-wide override no API has is one warning; one of an API names its place', () => {
    const r = generate('unmatched', { toolOverrides: { getPetByIdd: { description: 'x' } } }, { toolOverrides: { nowhere: {} } });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stdout + r.stderr;
    expect(said.match(/config "toolOverrides"\."nowhere" matches no operation/g)).toHaveLength(1);
    expect(said).toContain('config "apis"[0].toolOverrides."getPetByIdd" matches no operation (did you mean "getPetById"?)');
  });

  it('an error in them names apis[i].<key>, exit 2', () => {
    const arg = generate('bad-arg', { toolOverrides: { getPetById: { arguments: { nope: { description: 'x' } } } } });
    expect(arg.code).toBe(2);
    expect(arg.stderr).toContain('config "apis"[0].toolOverrides."getPetById".arguments."nope": GET /pet/{petId} has no argument "nope"');
    const filter = generate('bad-filter', { includeTags: 'pet' });
    expect(filter.code).toBe(2);
    expect(filter.stderr.trim().split('\n')).toHaveLength(1);
    expect(filter.stderr).toContain('"apis"[0].includeTags must be a list of strings');
  });
});
