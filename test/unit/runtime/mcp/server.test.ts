// The MCP wiring of a generated server (src/runtime/mcp/server.ts) with its dynamic-mode
// index (dynamic.ts), through the official client over an in-memory transport and a real
// local upstream: what an upstream failure, a bad argument and an unknown tool become, how
// credentials from the client's HTTP headers are read, and how search ranks operations (also
// on Spotify's real spec, for the caller's words).
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { credentialReader } from '../../../../src/runtime/mcp/server.js';
import { connectInMemory } from '../../../../harness/in-memory.js';
import { OperationIndex, describeResult, queryWords } from '../../../../src/runtime/mcp/operation-index.js';
import { QUERY_MAX_CHARS, QUERY_MAX_WORDS } from '../../../../src/contract/meta-tools.js';
import type { ToolSpec, ToolTable } from '../../../../src/contract/table.js';
import { loadSpec } from '../../../../src/parse/load.js';
import { buildModel } from '../../../../src/model/build.js';
import { corporaMissing, corporaTitle, SPOTIFY_SPEC } from '../../../../harness/corpora.js';

const op = (name: string, path: string, more: Partial<ToolSpec> = {}): ToolSpec => ({
  name,
  description: more.description ?? name,
  inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, additionalProperties: false },
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
    client = await connectInMemory(table);
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
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope$/);
  });

  it('a mistyped tool name: the error suggests the tool meant', async () => {
    await expect(client.callTool({ name: 'getThng', arguments: {} })).rejects.toThrow(
      /Unknown tool: getThng \(did you mean "getThing"\?\)$/,
    );
  });
});

/** A query of exactly QUERY_MAX_CHARS characters and QUERY_MAX_WORDS distinct words that match many operations. */
function maxQuery(): string {
  const vocabulary =
    'list get create update delete repository issue pull request user org team comment label milestone branch commit tag release hook key secret variable workflow run job artifact cache package project card column';
  const distinct = vocabulary.split(' ').slice(0, QUERY_MAX_WORDS).join(' ');
  const whole = `${distinct} `.repeat(Math.floor(QUERY_MAX_CHARS / (distinct.length + 1)));
  return whole.padEnd(QUERY_MAX_CHARS, ' ');
}

describe('OperationIndex (search_operations)', () => {
  const tools = [
    op('reposGet', '/repos/{owner}/{repo}', { title: 'Get a repository', tags: ['repos'] }),
    op('reposListForUser', '/users/{user}/repos', { title: 'List repositories for a user', tags: ['repos'] }),
    op('issuesList', '/issues', { title: 'List issues assigned to you', tags: ['issues'], description: 'Mentions repositories too' }),
  ];
  const index = new OperationIndex(tools);
  const words = (query: string) => queryWords(query) as string[];

  it('ranks a summary that says just what was asked first; plurals and camelCase match', () => {
    expect(index.search(words('get a repository'), undefined, 3).map((t) => t.name)).toEqual([
      'reposGet',
      'reposListForUser',
      'issuesList',
    ]);
    expect(index.search(words('list repositories user'), undefined, 1).map((t) => t.name)).toEqual(['reposListForUser']);
  });

  it('a tag narrows the search, the limit cuts it, and no match is an empty list', () => {
    expect(index.search(words('list'), 'issues', 10).map((t) => t.name)).toEqual(['issuesList']);
    expect(index.search(words('repos'), undefined, 1)).toHaveLength(1);
    expect(index.search(words('zebra'), undefined, 10)).toEqual([]);
  });

  it('a query is read once into at most 32 distinct words and 1,000 characters; over either, the argument and its limit are named', () => {
    const atLimit = maxQuery();
    expect(atLimit).toHaveLength(QUERY_MAX_CHARS);
    expect(words(atLimit)).toHaveLength(QUERY_MAX_WORDS);
    expect(queryWords(`${atLimit}x`)).toEqual({
      problem: expect.stringMatching(/^argument "query" is 1001 characters long; at most 1000/),
    });
    const many = Array.from({ length: QUERY_MAX_WORDS + 1 }, (_, i) => `w${i}`).join(' ');
    expect(queryWords(many)).toEqual({ problem: expect.stringMatching(/^argument "query" has 33 distinct words; at most 32/) });
    expect(words('Repositories repository REPOSITORY')).toEqual(['repository']);
  });

  it("the caller's words (my, mine, own, self, current user, authenticated user) are `me`, the word of /me paths", () => {
    expect(words('my own playlists')).toEqual(['me', 'playlist']);
    expect(words('playlists of the current user')).toEqual(['playlist', 'of', 'the', 'current', 'user', 'me']);
    expect(words('issues for the authenticated user')).toContain('me');
  });

  it.skipIf(!!corporaMissing)(
    corporaTitle("on Spotify's spec, 'my playlists' finds GET /me/playlists first, and so do other words for the caller"),
    async () => {
      const spotify = buildModel(await loadSpec(SPOTIFY_SPEC, {}), {}).table;
      const spotifyIndex = new OperationIndex(spotify.tools);
      const first = (query: string) => spotifyIndex.search(words(query), undefined, 8)[0]?.http;
      for (const query of ['my playlists', 'playlists of the current user', 'list my own playlists'])
        expect(first(query), query).toEqual(expect.objectContaining({ method: 'GET', path: '/me/playlists' }));
      expect(first('my top artists')).toEqual(expect.objectContaining({ method: 'GET', path: '/me/top/{type}' }));
    },
  );

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

describe('search_operations through the official client', () => {
  // A large table: the words of maxQuery() occur in every operation's name, path or summary.
  const nouns = maxQuery().split(' ').slice(5, QUERY_MAX_WORDS);
  const tools = Array.from({ length: 20_000 }, (_, i) => {
    const noun = nouns[i % nouns.length] as string;
    return op(`${noun}Get${i}`, `/${noun}s/${i}/{id}`, { title: `Get a ${noun} of kind ${i}`, tags: [noun] });
  });
  const table: ToolTable = {
    format: 1,
    name: 'api',
    version: '1',
    servers: [{ url: 'https://api.example.com' }],
    defs: {},
    auth: {},
    tools,
  };
  let client: Client;

  beforeAll(async () => {
    client = await connectInMemory(table, { mode: 'dynamic' });
  });
  afterAll(async () => {
    await client?.close();
  });
  const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { text: string }[])[0]?.text;

  it('the limits are in the listed schema', async () => {
    const search = (await client.listTools()).tools.find((t) => t.name === 'search_operations');
    expect(search?.inputSchema.properties?.query).toMatchObject({ type: 'string', maxLength: QUERY_MAX_CHARS });
  });

  it('a query over the limit is an isError result naming "query" and the limit, a 3.9 MB one too', async () => {
    for (const query of [`${maxQuery()}!`, 'repository '.repeat(390_000)]) {
      const result = await client.callTool({ name: 'search_operations', arguments: { query } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^Invalid arguments for search_operations: argument "query" is \d+ characters long; at most 1000 are searched$/,
      );
    }
    const wordy = await client.callTool({
      name: 'search_operations',
      arguments: { query: Array.from({ length: 39 }, (_, i) => `word${i}`).join(' ') },
    });
    expect(wordy.isError).toBe(true);
    expect(text(wordy)).toContain('argument "query" has 39 distinct words; at most 32');
  });

  it('an operation name is bounded too: a long one is refused, not quoted back', async () => {
    for (const name of ['describe_operation', 'invoke_operation']) {
      const result = await client.callTool({ name, arguments: { name: 'x'.repeat(100_000) } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(new RegExp(`^Invalid arguments for ${name}: argument "name": must NOT have more than 128 characters$`));
      expect(text(result)?.length).toBeLessThan(300);
    }
  });

  it('a query at the limit over 20,000 operations answers, best match first', async () => {
    const result = await client.callTool({ name: 'search_operations', arguments: { query: maxQuery(), limit: 50 } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { results: unknown[] }).results).toHaveLength(50);
    const one = await client.callTool({ name: 'search_operations', arguments: { query: `get ${nouns[3]} kind 3`, limit: 1 } });
    expect((one.structuredContent as { results: { name: string }[] }).results).toEqual([
      expect.objectContaining({ name: `${nouns[3]}Get3` }),
    ]);
  });
});
