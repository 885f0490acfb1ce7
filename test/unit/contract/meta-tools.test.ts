// The dynamic-mode meta-tools (src/runtime/mcp/operation-index.ts callMetaTool), through the official
// client: their arguments are checked by ajv against their own schemas like every tool's, and
// invoke_operation reaches a real local upstream.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createServerFactory } from '../../../src/runtime/mcp/server.js';
import { createExecutor } from '../../../src/runtime/call/executor.js';
import { createLogger } from '../../../src/runtime/start/log.js';
import { type ServerConfig } from '../../../src/runtime/start/config.js';
import { readConfig } from '../../../src/runtime/start/command-line.js';
import type { ToolTable } from '../../../src/contract/table.js';

let upstream: HttpServer;
const seen: string[] = [];
let client: Client;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end('{"id":"7","name":"Rex"}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const table: ToolTable = {
    format: 1,
    name: 'pets',
    version: '1',
    servers: [{ url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` }],
    defs: {},
    auth: {},
    serve: { mode: 'dynamic', pinned: [] },
    tools: [
      {
        name: 'getPet',
        description: 'Get a pet by its id',
        tags: ['pets'],
        inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
        annotations: { readOnlyHint: true },
        http: {
          method: 'GET',
          path: '/pets/{id}',
          params: [{ arg: 'id', name: 'id', in: 'path', style: 'simple', explode: false, required: true }],
        },
      },
    ],
  };
  const config = readConfig([], {}) as ServerConfig;
  const server = createServerFactory(table, createExecutor(table, config, {}, createLogger('pets', 'silent')), undefined, {
    mode: 'dynamic',
    profile: 'portable',
    initialToolsets: [],
  })();
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 't', version: '1' });
  await server.connect(b);
  await client.connect(a);
});
afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

const text = (r: Awaited<ReturnType<Client['callTool']>>) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('meta-tools', () => {
  it.each([
    ['search_operations', { query: 5 }, /Invalid arguments for search_operations: .*query/],
    ['search_operations', { query: 'pet', limit: 51 }, /Invalid arguments for search_operations: .*limit/],
    ['search_operations', { query: 'pet', extra: true }, /Invalid arguments for search_operations: .*extra/],
    ['describe_operation', {}, /Invalid arguments for describe_operation: .*name/],
    ['invoke_operation', { name: 'getPet', arguments: '{not json' }, /argument "arguments" is text but not JSON/],
    ['invoke_operation', { name: 'getPet', arguments: [1] }, /Invalid arguments for invoke_operation: .*arguments/],
    ['invoke_operation', { name: 'nope' }, /No operation named "nope"; find names with search_operations/],
    ['invoke_operation', { name: 'getPet', arguments: {} }, /Invalid arguments for getPet: .*id/],
  ])('%s %j is a tool error that names the argument', async (name, args, message) => {
    seen.length = 0;
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(seen).toEqual([]);
  });

  it('null means absent (strict profiles send every property), and JSON-text arguments are read', async () => {
    const found = await client.callTool({ name: 'search_operations', arguments: { query: 'pet', tag: null, limit: null } });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toEqual({
      results: [{ name: 'getPet', operation: 'GET /pets/{id}', summary: 'Get a pet by its id', tags: ['pets'] }],
    });
    seen.length = 0;
    const called = await client.callTool({ name: 'invoke_operation', arguments: { name: 'getPet', arguments: '{"id":"7"}' } });
    expect(called.isError).toBeFalsy();
    expect(seen).toEqual(['GET /pets/7']);
    expect(text(called)).toBe('{"id":"7","name":"Rex"}');
  });
});
