// What a caller's token scopes let it see, served in process: tools/list, dynamic search,
// resources, resource templates and their completions all hide the operations the token does
// not reach, and a call of one is an unknown tool (HTTP answers it 403 before, in oauth.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type AuthInfo } from '@modelcontextprotocol/server';
import { type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import { createExecutor } from '../../../../src/runtime/call/executor.js';
import { createLogger } from '../../../../src/runtime/start/log.js';
import { scopePolicy } from '../../../../src/runtime/mcp/tool-scopes.js';
import { createServerFactory, type ServerOptions } from '../../../../src/runtime/mcp/server.js';
import type { ToolTable } from '../../../../src/contract/table.js';

const petstore = JSON.parse(readFileSync(new URL('../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;

/** A client whose every message carries a token with `scopes`, as the HTTP gate would attach it. */
async function clientWith(scopes: string[], mode: ServerOptions['mode'] = 'direct'): Promise<Client> {
  const executor = createExecutor(petstore, readConfig([], {}) as ServerConfig, {}, createLogger('t', 'silent'));
  const server = createServerFactory(petstore, executor, undefined, {
    mode,
    profile: 'portable',
    initialToolsets: [],
    hooks: { complete: () => ['from-hook'] },
    access: scopePolicy(petstore, { readScope: 'r', writeScope: 'w' }),
  })();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const auth: AuthInfo = { token: 't', clientId: 'c', scopes };
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => send(message, { ...options, authInfo: auth });
  await server.connect(serverSide);
  const client = new Client({ name: 'scoped', version: '1' });
  await client.connect(clientSide);
  return client;
}

const readOnly = petstore.tools.filter((t) => t.annotations.readOnlyHint === true).map((t) => t.name);

describe('a token sees what its scopes reach', () => {
  it('tools/list: the read scope lists the read-only tools, the write scope the others', async () => {
    const reader = await clientWith(['r']);
    const writer = await clientWith(['w']);
    const both = await clientWith(['r', 'w', 'openid']);
    const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
    expect(await names(reader)).toEqual([...readOnly].sort());
    expect((await names(writer)).some((n) => readOnly.includes(n))).toBe(false);
    expect(await names(both)).toHaveLength(petstore.tools.filter((t) => t.asTool !== false).length);
    await expect(writer.callTool({ name: 'getPetById', arguments: { petId: 1 } })).rejects.toThrow(/Unknown tool: getPetById$/);
    // the suggestion never names a tool outside the caller's scopes
    await expect(writer.callTool({ name: 'getPetByIdd', arguments: { petId: 1 } })).rejects.toThrow(/Unknown tool: getPetByIdd$/);
  });

  it('resources, templates and template completions of hidden operations are absent', async () => {
    const reader = await clientWith(['r']);
    const writer = await clientWith(['w']);
    const template = 'swagger-petstore://pet/{petId}';
    expect((await reader.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain(template);
    expect((await writer.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await reader.listResources()).resources.map((r) => r.uri)).toContain('swagger-petstore://store/inventory');
    expect((await writer.listResources()).resources.map((r) => r.uri)).not.toContain('swagger-petstore://store/inventory');
    await expect(writer.readResource({ uri: 'swagger-petstore://pet/1' })).rejects.toThrow(/not found/i);
    const complete = (c: Client) => c.complete({ ref: { type: 'ref/resource', uri: template }, argument: { name: 'petId', value: '' } });
    expect((await complete(reader)).completion.values).toContain('from-hook');
    expect((await complete(writer)).completion.values).toEqual([]);
  });

  it('dynamic mode: search and describe find only the operations the token reaches', async () => {
    const writer = await clientWith(['w'], 'dynamic');
    const reader = await clientWith(['r'], 'dynamic');
    const search = async (c: Client) =>
      (
        (await c.callTool({ name: 'search_operations', arguments: { query: 'pet', limit: 50 } })).structuredContent as {
          results: { name: string }[];
        }
      ).results.map((r) => r.name);
    expect(await search(reader)).toContain('getPetById');
    expect(await search(writer)).not.toContain('getPetById');
    expect(await search(writer)).toContain('addPet');
    const described = await writer.callTool({ name: 'describe_operation', arguments: { name: 'getPetById' } });
    expect(described.isError).toBe(true);
  });
});
