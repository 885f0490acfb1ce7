// Toolsets mode in every protocol era and transport. Enabled toolsets live in a session, so a
// request without one (a 2026-07-28 request, or any request to a --stateless server) is served
// the dynamic meta-tools instead of list_toolsets/enable_toolset, and can still reach every
// operation; a 2025-era session keeps toolsets on demand with tools/list_changed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { petAnswer, startUpstream, type Upstream } from '../harness/upstream.js';
import type { ToolTable } from '../../src/contract/table.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 'tok-eras', SWAGGER_PETSTORE_API_KEY: 'key-eras' };
const META = ['search_operations', 'describe_operation', 'invoke_operation'];
let dir: string;
let upstream: Upstream;
let table: ToolTable;
let args: string[];
const servers: RunningServer[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startUpstream(petAnswer);
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-toolsets-eras', ['--tools', 'toolsets']);
  await buildProject(dir);
  table = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable;
  args = ['--base-url', `${upstream.url}/v2`, '--log-level', 'warn'];
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
  await upstream?.close();
});

const serve = async (extra: string[] = []) => {
  const server = await startServer(dir, 'http', [...args, ...extra], SECRETS);
  servers.push(server);
  return server;
};
const open = async (server: RunningServer, negotiate: boolean) => {
  const client = await connect('http', server.url, { negotiate });
  clients.push(client);
  return client;
};
const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const toolsetTools = (name: string) => table.tools.filter((t) => t.toolset === name || t.tags?.[0] === name).map((t) => t.name);

/** invoke_operation of getPetById reaches the recording upstream and answers its body. */
async function invokesGetPet(client: Client, petId: number) {
  upstream.clear();
  const result = await client.callTool({ name: 'invoke_operation', arguments: { name: 'getPetById', arguments: { petId } } });
  expect(result.isError).toBeFalsy();
  expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET /v2/pet/${petId}`]);
  expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual({ id: petId, name: `pet-${petId}`, photoUrls: [] });
}

describe('toolsets mode without a session: the dynamic meta-tools', () => {
  it('a 2026-07-28 client over Streamable HTTP lists the meta-tools and invokes getPetById', async () => {
    const client = await open(await serve(), true);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await toolNames(client)).toEqual(META);
    const found = await client.callTool({ name: 'search_operations', arguments: { query: 'find pet by id' } });
    expect((found.structuredContent as { results: { name: string }[] }).results.map((r) => r.name)).toContain('getPetById');
    await invokesGetPet(client, 31);
  });

  it('a 2025-era client of a --stateless server: the same', async () => {
    const client = await open(await serve(['--stateless']), false);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.transport?.sessionId).toBeUndefined();
    expect(await toolNames(client)).toEqual(META);
    await invokesGetPet(client, 32);
  });

  it('enable_toolset, called anyway, fails and says why instead of claiming success', async () => {
    const client = await open(await serve(['--stateless']), false);
    const enable = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
    expect(enable.isError).toBe(true);
    expect((enable.content as { text: string }[])[0]?.text).toMatch(/needs a session.*invoke_operation/);
    expect(await toolNames(client)).toEqual(META);
  });

  it('--toolsets enabled from the start are listed too, and --read-only bounds invoke_operation', async () => {
    const client = await open(await serve(['--tools', 'toolsets', '--toolsets', 'store', '--read-only']), true);
    const readOnlyStore = table.tools
      .filter((t) => toolsetTools('store').includes(t.name) && t.annotations.readOnlyHint)
      .map((t) => t.name);
    expect(readOnlyStore.length).toBeGreaterThan(0);
    expect(await toolNames(client)).toEqual([...META, ...readOnlyStore]);
    await invokesGetPet(client, 33);
    upstream.clear();
    const write = await client.callTool({ name: 'invoke_operation', arguments: { name: 'addPet', arguments: { body: { name: 'x' } } } });
    expect(write.isError).toBe(true);
    expect((write.content as { text: string }[])[0]?.text).toMatch(/No operation named "addPet"/);
    expect(upstream.requests).toEqual([]);
  });
});

describe('toolsets mode with a session: toolsets on demand', () => {
  it('a 2025-era client with a session enables pet, gets tools/list_changed, and calls getPetById', async () => {
    const client = await open(await serve(), false);
    expect(client.transport?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    expect(await toolNames(client)).toEqual(['list_toolsets', 'enable_toolset']);
    const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
    expect(enabled.isError).toBeFalsy();
    for (let i = 0; i < 100 && changed === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(changed).toBe(1);
    expect(await toolNames(client)).toEqual(['list_toolsets', 'enable_toolset', ...toolsetTools('pet')]);
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 34 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/v2/pet/34']);
  });

  it('a 2026-07-28 client over stdio keeps its toolsets for the connection', async () => {
    const client = await connect('stdio', dir, { negotiate: true, args, env: SECRETS });
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await toolNames(client)).toEqual(['list_toolsets', 'enable_toolset']);
    const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
    expect(enabled.isError).toBeFalsy();
    expect(await toolNames(client)).toEqual(['list_toolsets', 'enable_toolset', ...toolsetTools('pet')]);
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 35 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/v2/pet/35']);
  });
});

describe('--toolsets chosen at start (direct): the same tools in every era', () => {
  it.each([
    ['a 2026-07-28 client', [], true],
    ['a 2025-era client of a --stateless server', ['--stateless'], false],
  ] as const)('%s lists the pet tools only and calls getPetById', async (_name, extra, negotiate) => {
    const client = await open(await serve(['--tools', 'direct', '--toolsets', 'pet', ...extra]), negotiate);
    expect(await toolNames(client)).toEqual(toolsetTools('pet'));
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 36 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/v2/pet/36']);
  });
});
