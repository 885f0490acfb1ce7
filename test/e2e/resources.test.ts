// Resources and resource templates from route mapping, as a client sees them: servers generated
// with `--resources get` (Petstore, GitHub) and with x-mcp kinds and config rules (a fixture),
// through the official SDK clients (v2 and v1) over stdio, reads checked at a recording upstream.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceNotFoundError, type Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildProject, connect, generateProject, REPO, startServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';

const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const CREDENTIALS = { SWAGGER_PETSTORE_API_KEY: 'key-1', SWAGGER_PETSTORE_AUTH_TOKEN: 't' };
let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    if (req.path.endsWith('/404')) return { status: 404, body: '{"message":"Pet not found"}' };
    if (req.path === '/keepers') return { headers: { 'content-type': 'text/plain' }, body: 'Ann, Bo' };
    return { body: JSON.stringify({ path: req.path }) };
  });
});
afterAll(async () => {
  await upstream?.close();
});

describe('Petstore with --resources get', () => {
  let client: Client;
  let dir: string;

  beforeAll(async () => {
    dir = generateProject(PETSTORE, 'e2e-resources-petstore', ['--resources', 'get']);
    await buildProject(dir);
    client = await connect('stdio', dir, { args: ['--base-url', `${upstream.url}/v2`], env: CREDENTIALS });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('advertises resources and completions, and keeps every operation a tool', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, completions: {} });
    expect((await client.listTools()).tools).toHaveLength(20);
  });

  it('lists the GETs without path parameters as resources, the others as RFC 6570 templates', async () => {
    const { resources } = await client.listResources();
    expect(
      resources
        .map((r) => r.uri)
        .filter((u) => !u.includes('://docs'))
        .sort(),
    ).toEqual(['swagger-petstore://store/inventory', 'swagger-petstore://user/logout']);
    expect(resources.find((r) => r.name === 'getInventory')).toMatchObject({
      mimeType: 'application/json',
      title: 'Returns pet inventories by status',
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'swagger-petstore://pet/{petId}',
      'swagger-petstore://store/order/{orderId}',
      'swagger-petstore://user/{username}',
    ]);
  });

  it('reads a resource with the request the tool makes, credentials included', async () => {
    upstream.clear();
    const { contents } = await client.readResource({ uri: 'swagger-petstore://store/inventory' });
    expect(contents).toEqual([
      { uri: 'swagger-petstore://store/inventory', mimeType: 'application/json', text: '{"path":"/v2/store/inventory"}' },
    ]);
    expect(upstream.requests.map((r) => `${r.method} ${r.url} ${String(r.headers['api_key'])}`)).toEqual(['GET /v2/store/inventory key-1']);
  });

  it('reads a template with its variables: the exact upstream request', async () => {
    upstream.clear();
    const { contents } = await client.readResource({ uri: 'swagger-petstore://pet/42' });
    expect(contents[0]).toMatchObject({ uri: 'swagger-petstore://pet/42', text: '{"path":"/v2/pet/42"}' });
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v2/pet/42']);
  });

  it('reads an int64 variable beyond 2^53 as its digits, not as another id', async () => {
    upstream.clear();
    const { contents } = await client.readResource({ uri: 'swagger-petstore://pet/9007199254740993' });
    expect(contents[0]).toMatchObject({ text: '{"path":"/v2/pet/9007199254740993"}' });
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v2/pet/9007199254740993']);
  });

  it('a failing read is a JSON-RPC error with the status; an argument the schema refuses, and an unknown URI, too', async () => {
    const missing = client.readResource({ uri: 'swagger-petstore://pet/404' });
    await expect(missing).rejects.toThrow(/^Resource not found: swagger-petstore:\/\/pet\/404: upstream 404 .*Pet not found/);
    await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundError);
    upstream.clear();
    await expect(client.readResource({ uri: 'swagger-petstore://pet/rex' })).rejects.toThrow(/Invalid arguments for getPetById: .*petId/);
    await expect(client.readResource({ uri: 'swagger-petstore://nothing/here' })).rejects.toThrow(/not found/i);
    expect(upstream.requests).toEqual([]);
  });

  it('a read without credentials names the variable to set', async () => {
    const bare = await connect('stdio', dir, { args: ['--base-url', `${upstream.url}/v2`], env: {} });
    try {
      await expect(bare.readResource({ uri: 'swagger-petstore://pet/1' })).rejects.toThrow(/set SWAGGER_PETSTORE_API_KEY for "api_key"/);
    } finally {
      await bare.close();
    }
  });

  it.each(['http', 'sse'] as const)('over %s (and over http as a 2026-07-28 client too)', async (transport) => {
    const server = await startServer(dir, transport, ['--base-url', `${upstream.url}/v2`], CREDENTIALS);
    try {
      for (const negotiate of transport === 'http' ? [false, true] : [false]) {
        const remote = await connect(transport, server.url, { negotiate });
        try {
          upstream.clear();
          const { contents } = await remote.readResource({ uri: 'swagger-petstore://user/ann' });
          expect(contents[0]).toMatchObject({ text: '{"path":"/v2/user/ann"}' });
          expect((await remote.getPrompt({ name: 'use_pet' })).messages).toHaveLength(1);
        } finally {
          await remote.close();
        }
      }
    } finally {
      await server.stop();
    }
  });

  it('the v1 SDK client lists and reads them too', async () => {
    const v1 = new V1Client({ name: 'v1', version: '1.0.0' });
    await v1.connect(
      new V1Stdio({
        command: 'node',
        args: [join(dir, 'dist/main.js'), '--base-url', `${upstream.url}/v2`],
        env: { PATH: process.env.PATH ?? '', ...CREDENTIALS },
      }),
    );
    try {
      expect((await v1.listResourceTemplates()).resourceTemplates).toHaveLength(3);
      const { contents } = await v1.readResource({ uri: 'swagger-petstore://store/order/7' });
      expect(contents[0]).toMatchObject({ text: '{"path":"/v2/store/order/7"}' });
    } finally {
      await v1.close();
    }
  });
});

describe('route mapping by x-mcp and the config file (test/fixtures/resources)', () => {
  let client: Client;

  beforeAll(async () => {
    const fixtures = join(REPO, 'test/fixtures/resources');
    const dir = generateProject(join(fixtures, 'kinds.yaml'), 'e2e-resources-kinds', ['--config', join(fixtures, 'mcp-gen.config.json')]);
    await buildProject(dir);
    client = await connect('stdio', dir, { args: ['--base-url', upstream.url], env: {} });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('x-mcp kind resource: a template only; a config rule: both; a GET needing a header: a tool only; excluded: gone', async () => {
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['feedingPlan', 'listKeepers']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['zoo://animals/{kind}{?limit}']);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      'zoo://docs',
      'zoo://docs/animals',
      'zoo://docs/keepers',
      'zoo://docs/feeding',
      'zoo://keepers',
    ]);
  });

  it('reads a template with a query variable, and text as text', async () => {
    upstream.clear();
    const { contents } = await client.readResource({ uri: 'zoo://animals/cat?limit=2' });
    expect(contents[0]).toMatchObject({ text: '{"path":"/animals/cat"}' });
    expect(upstream.requests.map((r) => r.url)).toEqual(['/animals/cat?limit=2']);
    expect((await client.readResource({ uri: 'zoo://keepers' })).contents).toEqual([
      { uri: 'zoo://keepers', mimeType: 'text/plain', text: 'Ann, Bo' },
    ]);
  });

  it('prompts declared in the spec (x-mcp-prompts) and the config file, filled with their arguments', async () => {
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toEqual(['daily_report', 'visit', 'use_animals', 'use_keepers', 'use_feeding']);
    const { messages } = await client.getPrompt({ name: 'visit', arguments: { kind: 'camel', day: 'Monday' } });
    expect(messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Plan a visit to the camel enclosure on Monday. Keep {{unknown}} as is.' } },
    ]);
    await expect(client.getPrompt({ name: 'visit', arguments: { day: 'Monday' } })).rejects.toThrow(/needs the argument "kind"/);
    const report = await client.getPrompt({ name: 'daily_report' });
    expect((report.messages[0]?.content as { text: string }).text).toBe('Summarise today at the zoo.');
  });

  it("a toolset prompt names the common sequences the spec's links describe (tools only)", async () => {
    const { messages } = await client.getPrompt({ name: 'use_keepers' });
    const text = (messages[0]?.content as { text: string }).text;
    expect(text).toContain(
      "Common sequences (from the spec's links):\n- after `listKeepers`: `feedingPlan` (its answer gives their arguments)",
    );
  });

  it('completes a prompt argument from its enum', async () => {
    const result = await client.complete({ ref: { type: 'ref/prompt', name: 'visit' }, argument: { name: 'kind', value: 'c' } });
    expect(result.completion.values).toEqual(['cat', 'cow', 'camel']);
  });

  it('completes an enum variable from the schema', async () => {
    const result = await client.complete({
      ref: { type: 'ref/resource', uri: 'zoo://animals/{kind}{?limit}' },
      argument: { name: 'kind', value: 'ca' },
    });
    expect(result.completion).toEqual({ values: ['cat', 'camel'], total: 2, hasMore: false });
  });

  it("completes a variable from its parameter's examples and its schema's, without --keep-examples", async () => {
    const complete = (value: string) =>
      client.complete({ ref: { type: 'ref/resource', uri: 'zoo://animals/{kind}{?limit}' }, argument: { name: 'limit', value } });
    expect((await complete('')).completion).toEqual({ values: ['2', '50', '10'], total: 3, hasMore: false });
    expect((await complete('5')).completion.values).toEqual(['50']);
  });
});

describe('documentation and prompts, with no resources asked for', () => {
  let client: Client;
  beforeAll(async () => {
    const dir = generateProject(PETSTORE, 'e2e-resources-none');
    await buildProject(dir);
    client = await connect('stdio', dir, { args: ['--base-url', upstream.url], env: CREDENTIALS });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('the documentation is always a resource: an overview and one per toolset, in Markdown; no templates, so no completions', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
    expect(client.getServerCapabilities()?.completions).toBeUndefined();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'swagger-petstore://docs',
      'swagger-petstore://docs/pet',
      'swagger-petstore://docs/store',
      'swagger-petstore://docs/user',
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    const overview = (await client.readResource({ uri: 'swagger-petstore://docs' })).contents[0] as { mimeType: string; text: string };
    expect(overview.mimeType).toBe('text/markdown');
    expect(overview.text).toMatch(/^# Swagger Petstore \(version /);
    expect(overview.text).toContain('- **pet**: The 8 operations of the pet toolset');
    expect(overview.text).toContain('`SWAGGER_PETSTORE_API_KEY` for the "api_key" scheme (apiKey)');
    const pet = (await client.readResource({ uri: 'swagger-petstore://docs/pet' })).contents[0] as { text: string };
    expect(pet.text).toContain('| `getPetById` | `GET /pet/{petId}` | Find pet by ID | `petId` |');
  });

  it('one prompt per toolset on how to use it', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['use_pet', 'use_store', 'use_user']);
    const { messages } = await client.getPrompt({ name: 'use_store' });
    const text = (messages[0]?.content as { text: string }).text;
    expect(text).toContain('You can use the store tools of the Swagger Petstore API (4 in all).');
    expect(text).toContain('- `getOrderById` (GET /store/order/{orderId})');
    expect(text).toContain('The full list, with required arguments, is the resource swagger-petstore://docs/store.');
    await expect(client.getPrompt({ name: 'use_nothing' })).rejects.toThrow(/No prompt named "use_nothing"/);
  });
});

describe('GitHub with --resources get', () => {
  it('repositories as templates: reading one makes the exact request', async () => {
    const dir = generateProject(GITHUB_SPEC, 'e2e-resources-github', ['--resources', 'get', '--name', 'github-mcp']);
    await buildProject(dir);
    const client = await connect('stdio', dir, { args: ['--base-url', upstream.url], env: {} });
    try {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('github://repos/{owner}/{repo}');
      upstream.clear();
      const { contents } = await client.readResource({ uri: 'github://repos/octo/hello' });
      expect(contents[0]).toMatchObject({ mimeType: 'application/json', text: '{"path":"/repos/octo/hello"}' });
      expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /repos/octo/hello']);
    } finally {
      await client.close();
    }
  }, 180_000);
});
