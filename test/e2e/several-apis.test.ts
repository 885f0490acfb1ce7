// Several APIs in one server, run as a user runs it: the built CLI serves the two Petstore
// samples (OpenAPI 3 and Swagger 2.0, the same operationIds) together through the official SDK
// client. Each tool carries its namespace and reaches its own recording upstream with its own
// credential; the code-mode program calls both.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { petAnswer, startUpstream, type Upstream } from '../harness/upstream.js';
import { runCli } from '../harness/cli.js';
import type { ToolTable } from '../../src/contract/table.js';

const BIN = join(REPO, 'bin/mcp-gen.js');
const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const PETSTORE_SWAGGER2 = join(REPO, 'samples/petstore-swagger2/openapi.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-apis-e2e-'));

let shopUpstream: Upstream;
let zooUpstream: Upstream;
let config: string;
beforeAll(async () => {
  buildCli();
  shopUpstream = await startUpstream(petAnswer);
  // The zoo's upstream also serves its spec, for the API given by URL below.
  zooUpstream = await startUpstream((req) =>
    req.path === '/spec/openapi.json'
      ? { body: servedSpec() }
      : req.path === '/spec/elsewhere.json'
        ? { body: servedSpec(`${shopUpstream.url}/v2`) }
        : req.path === '/v2/pet/77'
          ? { status: 302, headers: { location: `${shopUpstream.url}/v2/pet/77` } }
          : petAnswer(req),
  );
  config = join(scratch, 'mcp-gen.config.json');
  // The shop's upstream is the config file's choice; the zoo's comes from ZOO_BASE_URL at start.
  writeFileSync(
    config,
    JSON.stringify({
      apis: [
        { spec: PETSTORE, namespace: 'shop', baseUrl: `${shopUpstream.url}/v2` },
        { spec: PETSTORE_SWAGGER2, namespace: 'zoo' },
      ],
    }),
  );
});
afterAll(async () => {
  await shopUpstream?.close();
  await zooUpstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The Petstore as its API serves it: its server relative to where the spec is. */
const servedSpec = (server = '/v2') =>
  JSON.stringify({ ...(JSON.parse(readFileSync(PETSTORE, 'utf8')) as object), servers: [{ url: server }] });

const credentials = { SHOP_API_KEY: 'shop-key', ZOO_API_KEY: 'zoo-key' };

async function serve(extra: string[] = []): Promise<Client> {
  return connect('stdio', REPO, {
    argv: [BIN, 'serve', '--config', config, '--log-level', 'warn', ...extra],
    env: { ...credentials, ZOO_BASE_URL: `${zooUpstream.url}/v2` },
  });
}

/** The variables of an API's own base URL, retries and rate limit. */
const variablesOf = (prefix: string) => ({
  baseUrlEnv: `${prefix}_BASE_URL`,
  retriesEnv: `${prefix}_RETRIES`,
  rateLimitEnv: `${prefix}_RATE_LIMIT`,
});

const sent = (upstream: Upstream) => upstream.requests.map((r) => [`${r.method} ${r.url}`, r.headers.api_key]);

/** shop_getPetById and zoo_getPetById called once each: each request on its own upstream, with its own key. */
async function expectEachOnItsOwnUpstream(client: Client, shopPet: number, zooPet: number): Promise<void> {
  shopUpstream.clear();
  zooUpstream.clear();
  const shop = await client.callTool({ name: 'shop_getPetById', arguments: { petId: shopPet } });
  const zoo = await client.callTool({ name: 'zoo_getPetById', arguments: { petId: zooPet } });
  expect(shop.isError, JSON.stringify(shop.content)).toBeFalsy();
  expect(zoo.isError, JSON.stringify(zoo.content)).toBeFalsy();
  expect(sent(shopUpstream)).toEqual([[`GET /v2/pet/${shopPet}`, 'shop-key']]);
  expect(sent(zooUpstream)).toEqual([[`GET /v2/pet/${zooPet}`, 'zoo-key']]);
}

describe('mcp-gen serve over two APIs whose operationIds collide', () => {
  it('names each tool with its namespace, and each call reaches its own upstream with its own credential', async () => {
    const client = await serve(['--tools', 'direct']);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['shop_getPetById', 'zoo_getPetById']));
      expect(names).not.toContain('getPetById');
      await expectEachOnItsOwnUpstream(client, 1, 2);
    } finally {
      await client.close();
    }
  });
});

describe("the config file's prompts over two APIs", () => {
  it('are served once each', async () => {
    const folder = mkdtempSync(join(scratch, 'prompts-'));
    const withPrompts = { ...(JSON.parse(readFileSync(config, 'utf8')) as object), prompts: [{ name: 'hello', template: 'Say hello.' }] };
    writeFileSync(join(folder, 'mcp-gen.config.json'), JSON.stringify(withPrompts));
    const client = await connect('stdio', REPO, {
      argv: [BIN, 'serve', '--config', join(folder, 'mcp-gen.config.json'), '--log-level', 'warn'],
      env: credentials,
    });
    try {
      const names = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(names.filter((name) => name === 'hello')).toEqual(['hello']);
    } finally {
      await client.close();
    }
  });
});

describe('mcp-gen serve over two APIs, as it starts', () => {
  it('names each namespace, its tools and its upstream', () => {
    // stdin at its end: the server starts, says what it serves, and stops
    const r = runCli(['serve', '--config', config, '--log-level', 'warn'], scratch);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      [
        'mcp-gen serve: APIs: 2, each tool named <namespace>_<operation>',
        `mcp-gen serve: shop: 20 tools, upstream SHOP_BASE_URL (else ${shopUpstream.url}/v2)`,
        'mcp-gen serve: zoo: 20 tools, upstream ZOO_BASE_URL (else http://petstore.swagger.io/v2)',
      ].join('\n'),
    );
  });
});

/** The shop from its file, at its upstream; the zoo from `spec` (a URL), where that spec says. */
async function serveWithZooFrom(spec: string): Promise<Client> {
  const folder = mkdtempSync(join(scratch, 'url-'));
  const apis = [
    { spec: PETSTORE, namespace: 'shop', baseUrl: `${shopUpstream.url}/v2` },
    { spec, namespace: 'zoo' },
  ];
  writeFileSync(join(folder, 'mcp-gen.config.json'), JSON.stringify({ apis }));
  return connect('stdio', REPO, {
    argv: [BIN, 'serve', '--config', join(folder, 'mcp-gen.config.json'), '--log-level', 'warn', '--tools', 'direct'],
    env: credentials,
  });
}

describe('an API from a URL beside one from a file', () => {
  it("keeps the URL's rule (its own origin or public addresses) to its own calls: the file's API reaches its loopback upstream", async () => {
    const client = await serveWithZooFrom(`${zooUpstream.url}/spec/openapi.json`);
    try {
      await expectEachOnItsOwnUpstream(client, 5, 6);
    } finally {
      await client.close();
    }
  });

  it('an API whose URL spec names only another internal server has no upstream: a call says which variable to set', async () => {
    const client = await serveWithZooFrom(`${zooUpstream.url}/spec/elsewhere.json`);
    try {
      shopUpstream.clear();
      const zoo = await client.callTool({ name: 'zoo_getPetById', arguments: { petId: 7 } });
      expect(zoo.isError).toBe(true);
      expect(zoo.content).toEqual([{ type: 'text', text: 'zoo_getPetById: no upstream base URL; set ZOO_BASE_URL' }]);
      expect(shopUpstream.requests).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('an API from a URL whose server redirects to an internal address', () => {
  it("is refused, naming that API's own base URL variable", async () => {
    const client = await serveWithZooFrom(`${zooUpstream.url}/spec/openapi.json`);
    try {
      shopUpstream.clear();
      const zoo = await client.callTool({ name: 'zoo_getPetById', arguments: { petId: 77 } });
      expect(zoo.isError).toBe(true);
      const text = (zoo.content as { text: string }[])[0]?.text ?? '';
      expect(text).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/v2\/pet\/77: not sent: .*; choose the upstream with ZOO_BASE_URL$/);
      expect(shopUpstream.requests).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('the two APIs in code mode', () => {
  it("search_api declares each API's operations in an object of its namespace, as execute's description says", async () => {
    const client = await serve(['--tools', 'code']);
    try {
      const execute = (await client.listTools()).tools.find((t) => t.name === 'execute');
      expect(execute?.description).toContain('`api` (an object per API: shop, zoo; each with one async method per operation');
      expect(execute?.description).toContain('await api.shop.someOperation({ id: 1 })');
      const result = await client.callTool({ name: 'search_api', arguments: { query: 'find pet by id', limit: 30 } });
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      expect(text).toMatch(/^interface Api \{\n {2}shop: \{\n/m);
      expect(text).toMatch(/^ {2}zoo: \{\n/m);
      expect(text).toMatch(/^ {4}getPetById\(args: \{ petId: number \}\)/m);
      expect(text).not.toContain('shop_getPetById');
    } finally {
      await client.close();
    }
  });

  it('one program calls api.<namespace>.<operation> of both, each call reaching its own upstream with its own credential', async () => {
    const client = await serve(['--tools', 'code']);
    try {
      shopUpstream.clear();
      zooUpstream.clear();
      const program = `
const shop = await api.shop.getPetById({ petId: 3 });
const zoo = await api.zoo.getPetById({ petId: 4 });
return [shop.id, zoo.id];`;
      const result = await client.callTool({ name: 'execute', arguments: { code: program } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ result: [3, 4], calls: 2 });
      expect(sent(shopUpstream)).toEqual([['GET /v2/pet/3', 'shop-key']]);
      expect(sent(zooUpstream)).toEqual([['GET /v2/pet/4', 'zoo-key']]);
    } finally {
      await client.close();
    }
  });
});

describe('mcp-gen <spec> <spec>', () => {
  it('two specs of one title are one line naming both and the namespace they share, exit 2', () => {
    const r = runCli([PETSTORE, PETSTORE_SWAGGER2, '--out', join(scratch, 'never')], scratch);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `mcp-gen: error: ${PETSTORE} and ${PETSTORE_SWAGGER2} both have the namespace "swagger_petstore": give one another in the config file's "apis"`,
    ]);
  });

  it('--env-prefix, which one API would take, is one line saying each API has its namespace, exit 2', () => {
    const r = runCli(['--config', config, '--env-prefix', 'ACME', '--out', join(scratch, 'never')], scratch);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      "mcp-gen: error: --env-prefix does not apply to several APIs: each API's credential variables start with its namespace",
    ]);
  });

  it('two tools that share a name even with their namespaces are one line naming both operations, exit 2', () => {
    const folder = mkdtempSync(join(scratch, 'collide-'));
    // shop's getPetById becomes shop_pet_x; shop_pet's findPetsByStatus becomes shop_pet_x too
    const overrides = { getPetById: { name: 'pet_x' }, findPetsByStatus: { name: 'x' } };
    const apis = [
      { spec: PETSTORE, namespace: 'shop' },
      { spec: PETSTORE_SWAGGER2, namespace: 'shop_pet' },
    ];
    writeFileSync(join(folder, 'mcp-gen.config.json'), JSON.stringify({ apis, toolOverrides: overrides }));
    const r = runCli(['--out', join(folder, 'never')], folder);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'mcp-gen: error: tool name "shop_pet_x" of shop_pet: findPetsByStatus is already that of shop: getPetById: give one API another namespace',
    ]);
  });

  it('two security schemes that share a name with their namespaces are one line naming both APIs, exit 2', () => {
    const folder = mkdtempSync(join(scratch, 'schemes-'));
    // shop's api_key is shop_api_key; shop_api's key is shop_api_key too
    const things = {
      openapi: '3.0.3',
      info: { title: 'Things', version: '1' },
      servers: [{ url: 'https://things.example' }],
      components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
      security: [{ key: [] }],
      paths: { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } } } },
    };
    writeFileSync(join(folder, 'things.json'), JSON.stringify(things));
    const apis = [
      { spec: PETSTORE, namespace: 'shop' },
      { spec: 'things.json', namespace: 'shop_api' },
    ];
    writeFileSync(join(folder, 'mcp-gen.config.json'), JSON.stringify({ apis }));
    const r = runCli(['--out', join(folder, 'never')], folder);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'mcp-gen: error: security scheme "shop_api_key" of shop_api is already that of shop: give one API another namespace',
    ]);
  });

  it('generates one project whose table keeps each API, its credential variables and its base URL variable, and says so', () => {
    const out = join(scratch, 'together');
    const r = runCli(['--config', config, '--out', out], scratch);
    expect(r.code, r.stderr).toBe(0);
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as ToolTable;
    expect(table.apis).toEqual({
      shop: { ...variablesOf('SHOP'), servers: [{ url: `${shopUpstream.url}/v2` }] },
      zoo: { ...variablesOf('ZOO'), servers: [{ url: 'http://petstore.swagger.io/v2' }] },
    });
    // Each scheme records its API: the runtime takes the API's rules from it, not from the name.
    expect(table.auth.shop_api_key).toMatchObject({ type: 'apiKey', env: { key: 'SHOP_API_KEY' }, api: 'shop' });
    expect(table.auth.zoo_api_key).toMatchObject({ type: 'apiKey', env: { key: 'ZOO_API_KEY' }, api: 'zoo' });
    // Claude Desktop's form and .env.example ask for each API's base URL, required of none: both specs name one.
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      user_config: Record<string, { title: string; required: boolean }>;
    };
    expect(manifest.user_config.shop_base_url).toMatchObject({ title: 'shop API base URL', required: false });
    expect(manifest.user_config.zoo_base_url).toMatchObject({ title: 'zoo API base URL', required: false });
    expect(manifest.user_config).not.toHaveProperty('api_base_url');
    const example = readFileSync(join(out, '.env.example'), 'utf8');
    expect(example).toContain(`# the shop API's base URL [${shopUpstream.url}/v2]\nSHOP_BASE_URL=\n`);
    expect(example).toContain("# the zoo API's base URL [http://petstore.swagger.io/v2]\nZOO_BASE_URL=\n");
    expect(r.stdout).toContain(
      [
        '  APIs: 2, each tool named <namespace>_<operation>',
        `    shop: 20 tools, upstream SHOP_BASE_URL (else ${shopUpstream.url}/v2)`,
        '    zoo: 20 tools, upstream ZOO_BASE_URL (else http://petstore.swagger.io/v2)',
      ].join('\n'),
    );
  });

  it('--check over the APIs together: clean as generated, and a change to one API lists tools.json and names that API', () => {
    const out = join(scratch, 'together');
    const clean = runCli(['--config', config, '--out', out, '--check'], scratch);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/is up to date \(40 tools\)/);
    const changed = join(scratch, 'changed.config.json');
    const zoo = { spec: PETSTORE_SWAGGER2, namespace: 'zoo', baseUrl: 'https://zoo.example/v2' };
    writeFileSync(changed, JSON.stringify({ apis: [{ spec: PETSTORE, namespace: 'shop', baseUrl: `${shopUpstream.url}/v2` }, zoo] }));
    const drift = runCli(['--config', changed, '--out', out, '--check'], scratch);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('  ~ tools.json');
    expect(drift.stdout).toContain('  APIs that changed: zoo\n');
  });
});

describe('mcp-gen diff over several APIs', () => {
  /** The Petstore under another title (so its namespace), and a later version without DELETE /pet/{petId}. */
  function petstoreAs(title: string, withoutDelete = false): string {
    const doc = JSON.parse(readFileSync(PETSTORE, 'utf8')) as { info: { title: string }; paths: Record<string, Record<string, unknown>> };
    doc.info.title = title;
    if (withoutDelete) delete doc.paths['/pet/{petId}']?.delete;
    const file = join(scratch, `${title.toLowerCase()}${withoutDelete ? '-next' : ''}.json`);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  }

  it('compares two config files of several APIs, each tool named with its namespace', () => {
    const [before, after] = ['before', 'after'].map((side) => {
      const file = join(scratch, `${side}.config.json`);
      const zoo = side === 'before' ? petstoreAs('Zoo') : petstoreAs('Zoo', true);
      writeFileSync(
        file,
        JSON.stringify({
          apis: [
            { spec: PETSTORE, namespace: 'shop' },
            { spec: zoo, namespace: 'zoo' },
          ],
        }),
      );
      return file;
    }) as [string, string];
    const r = runCli(['diff', before, after], scratch);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['BREAKING  zoo_deletePet: tool removed', '1 change, 1 breaking']);
  });

  it('compares the specs before with as many after, in the same order', () => {
    const r = runCli(['diff', petstoreAs('Shop'), petstoreAs('Zoo'), petstoreAs('Shop'), petstoreAs('Zoo', true)], scratch);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['BREAKING  zoo_deletePet: tool removed', '1 change, 1 breaking']);
  });

  it("compares one API's spec pair as before, beside a config file of several APIs: its tools without a namespace", () => {
    const r = runCli(['diff', petstoreAs('Zoo'), petstoreAs('Zoo', true)], scratch);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['BREAKING  deletePet: tool removed', '1 change, 1 breaking']);
  });

  it('an odd number of specs, or a config file against a spec, is one line saying what diff takes, exit 2', () => {
    const odd = runCli(['diff', petstoreAs('Shop'), petstoreAs('Zoo'), petstoreAs('Shop')], scratch);
    expect(odd.code).toBe(2);
    expect(odd.stderr.trim().split('\n')).toEqual([
      'mcp-gen: error: diff takes the specs before and as many after (3 given), or two config files',
    ]);
    const mixed = runCli(['diff', join(scratch, 'before.config.json'), petstoreAs('Shop')], scratch);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr.trim().split('\n')).toEqual([
      `mcp-gen: error: diff compares a config file with a config file: ${petstoreAs('Shop')} is not one (its name ends in .config.json, .config.yaml or .config.yml)`,
    ]);
  });
});

describe('--base-url <namespace>=<url>', () => {
  it("at generation sets that API's upstream in the table, over the config file's", () => {
    const out = join(scratch, 'base-urls');
    const r = runCli(
      ['--config', config, '--out', out, '--base-url', 'zoo=https://zoo.example/v2', '--base-url', 'shop=https://shop.example/v2'],
      scratch,
    );
    expect(r.code, r.stderr).toBe(0);
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as ToolTable;
    expect(table.apis?.shop?.servers).toEqual([{ url: 'https://shop.example/v2' }]);
    expect(table.apis?.zoo?.servers).toEqual([{ url: 'https://zoo.example/v2' }]);
  });

  it('with mcp-gen serve: the call reaches that upstream', async () => {
    const client = await connect('stdio', REPO, {
      argv: [BIN, 'serve', '--config', config, '--log-level', 'warn', '--base-url', `zoo=${zooUpstream.url}/v2`],
      env: credentials,
    });
    try {
      await expectEachOnItsOwnUpstream(client, 8, 9);
    } finally {
      await client.close();
    }
  });

  it('a namespace no API has, or one API, is one line naming the flag, exit 2', () => {
    const unknown = runCli(['--config', config, '--out', join(scratch, 'never'), '--base-url', 'zo=https://zoo.example'], scratch);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([
      'mcp-gen: error: --base-url zo=…: no API has the namespace "zo" (the APIs: shop, zoo)',
    ]);
    const one = runCli([PETSTORE, '--out', join(scratch, 'never'), '--base-url', 'shop=https://shop.example'], scratch);
    expect(one.code).toBe(2);
    expect(one.stderr.trim().split('\n')).toEqual([
      "mcp-gen: error: --base-url <namespace>=<url> is for several APIs; one API's upstream is chosen at start (the server's --base-url, API_BASE_URL)",
    ]);
    const bad = runCli(['--config', config, '--out', join(scratch, 'never'), '--base-url', 'zoo=ftp://zoo.example'], scratch);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--base-url <namespace=url>' argument 'zoo=ftp://zoo.example' is invalid");
  });
});
