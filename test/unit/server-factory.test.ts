// The MCP wiring of a generated server (templates/runtime/server.ts) with its dynamic-mode
// index (dynamic.ts), through the official client over an in-memory transport and a real
// local upstream: what an upstream failure, a bad argument and an unknown tool become, how
// credentials from the client's HTTP headers are read, and how search ranks operations.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createServerFactory, credentialReader } from '../../templates/runtime/server.js';
import { OperationIndex, describeResult } from '../../templates/runtime/dynamic.js';
import { createExecutor } from '../../templates/runtime/executor.js';
import { createLogger } from '../../templates/runtime/log.js';
import { readConfig, type ServerConfig } from '../../templates/runtime/config.js';
import type { ToolSpec, ToolTable } from '../../templates/runtime/table.js';

const op = (name: string, path: string, more: Partial<ToolSpec> = {}): ToolSpec => ({
  name,
  description: more.description ?? name,
  inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, additionalProperties: false },
  defs: [],
  annotations: {},
  http: { method: 'GET', path, params: [{ arg: 'id', name: 'id', in: 'query', style: 'form', explode: true, required: false }] },
  ...more,
});

describe('credentialReader', () => {
  it('takes each mapped header, by scheme; unmapped and empty headers give nothing', () => {
    const read = credentialReader([
      { header: 'x-api-key', scheme: 'key' },
      { header: 'x-other', scheme: 'other' },
    ]);
    expect([...read(new Headers({ 'X-Api-Key': 'k1', 'X-Other': '', Authorization: 'Bearer t' }))]).toEqual([['key', 'k1']]);
    expect([...read(undefined)]).toEqual([]);
    expect([...credentialReader([])(new Headers({ 'x-api-key': 'k' }))]).toEqual([]);
  });
});

describe('tools/call through the official client', () => {
  let upstream: HttpServer;
  let client: Client;
  const seen: string[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(req.url?.startsWith('/broken') ? 500 : 200, { 'content-type': 'application/json' });
      res.end(req.url?.startsWith('/broken') ? '{"error":"boom"}' : '{"ok":true}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const table: ToolTable = {
      format: 1,
      name: 'api',
      version: '1',
      servers: [{ url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` }],
      defs: {},
      auth: {},
      tools: [op('getThing', '/things'), op('getBroken', '/broken')],
    };
    const executor = createExecutor(table, readConfig([], {}) as ServerConfig, {}, createLogger('api', 'silent'));
    const server = createServerFactory(table, executor)();
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 't', version: '1' });
    await server.connect(b);
    await client.connect(a);
  });
  afterAll(async () => {
    await client?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('a good call reaches the upstream and returns its answer', async () => {
    seen.length = 0;
    const result = await client.callTool({ name: 'getThing', arguments: { id: 3 } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } });
    expect(seen).toEqual(['GET /things?id=3']);
  });

  it('an upstream 500 is a result with isError (a tool failure), not a JSON-RPC error', async () => {
    const result = await client.callTool({ name: 'getBroken', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^HTTP 500 .*\/broken\n\{"error":"boom"\}$/) }]);
  });

  it('a bad argument is isError naming the argument, and nothing is sent', async () => {
    seen.length = 0;
    const result = await client.callTool({ name: 'getThing', arguments: { id: 'three' } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Invalid arguments for getThing: .*"id"/) }]);
    expect(seen).toEqual([]);
  });

  it('an unknown tool is a JSON-RPC invalid-params error', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
  });
});

describe('OperationIndex (search_operations)', () => {
  const tools = [
    op('reposGet', '/repos/{owner}/{repo}', { title: 'Get a repository', tags: ['repos'] }),
    op('reposListForUser', '/users/{user}/repos', { title: 'List repositories for a user', tags: ['repos'] }),
    op('issuesList', '/issues', { title: 'List issues assigned to you', tags: ['issues'], description: 'Mentions repositories too' }),
  ];
  const index = new OperationIndex(tools);

  it('ranks a summary that says just what was asked first; plurals and camelCase match', () => {
    expect(index.search('get a repository', undefined, 3).map((t) => t.name)).toEqual(['reposGet', 'reposListForUser', 'issuesList']);
    expect(index.search('list repositories user', undefined, 1).map((t) => t.name)).toEqual(['reposListForUser']);
  });

  it('a tag narrows the search, the limit cuts it, and no match is an empty list', () => {
    expect(index.search('list', 'issues', 10).map((t) => t.name)).toEqual(['issuesList']);
    expect(index.search('repos', undefined, 1)).toHaveLength(1);
    expect(index.search('zebra', undefined, 10)).toEqual([]);
  });

  it('describeResult gives the operation, its description and the schema it is called with', () => {
    const schema = { type: 'object', properties: {} };
    expect(describeResult(tools[0] as ToolSpec, schema).structuredContent).toEqual({
      name: 'reposGet',
      operation: 'GET /repos/{owner}/{repo}',
      description: 'reposGet',
      inputSchema: schema,
      annotations: {},
    });
  });
});
