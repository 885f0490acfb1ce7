// Large APIs: GitHub's 1,223 operations in dynamic mode. tools/list must stay a few KB,
// and the meta-tools must find, describe and invoke `repos/get` against a local upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, startServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';

const GITHUB = GITHUB_SPEC;
let upstream: Upstream;
let client: Client;
let dir: string;
/** A search_operations query of exactly the 1,000 characters it takes, of 32 distinct words GitHub's operations use. */
const MAX_QUERY =
  'list get create update delete repository issue pull request user org team comment label milestone branch commit tag release hook key secret variable workflow run job artifact cache package project card column '
    .repeat(4)
    .padEnd(1_000, ' ');

beforeAll(async () => {
  upstream = await startUpstream((req) =>
    req.path === '/repos/octo/off-spec'
      ? { body: '[1, 2]' }
      : { body: JSON.stringify({ id: 1, full_name: req.path.replace('/repos/', '') }) },
  );
  dir = generateProject(GITHUB, 'e2e-github-dynamic', ['--tools', 'dynamic']);
  await buildProject(dir);
  client = await connect('stdio', dir, { args: ['--base-url', upstream.url] });
});

afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

describe('GitHub in dynamic mode', () => {
  it('lists three meta-tools, and get_operation_status for its long-running operations, in a few KB', async () => {
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(['search_operations', 'describe_operation', 'invoke_operation', 'get_operation_status']);
    expect(JSON.stringify(list).length).toBeLessThan(4_608);
  });

  it('finds repos/get by words', async () => {
    const result = await client.callTool({ name: 'search_operations', arguments: { query: 'get a repository', limit: 5 } });
    const { results } = result.structuredContent as { results: { name: string; operation: string }[] };
    expect(results[0]).toMatchObject({ name: 'repos_get', operation: 'GET /repos/{owner}/{repo}' });
    expect(results.length).toBeLessThanOrEqual(5);
  });

  it('filters by tag', async () => {
    const result = await client.callTool({ name: 'search_operations', arguments: { query: 'list', tag: 'issues', limit: 50 } });
    const { results } = result.structuredContent as { results: { tags?: string[] }[] };
    expect(results.length).toBeGreaterThan(3);
    for (const r of results) expect(r.tags).toContain('issues');
  });

  it('describes it with its full input schema', async () => {
    const result = await client.callTool({ name: 'describe_operation', arguments: { name: 'repos_get' } });
    const described = result.structuredContent as { inputSchema: { required: string[]; properties: object } };
    expect(described.inputSchema.required).toEqual(['owner', 'repo']);
    expect(Object.keys(described.inputSchema.properties)).toEqual(['owner', 'repo']);
  });

  it('invokes it: the upstream receives GET /repos/octo/hello', async () => {
    upstream.clear();
    const result = await client.callTool({
      name: 'invoke_operation',
      arguments: { name: 'repos_get', arguments: { owner: 'octo', repo: 'hello' } },
    });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /repos/octo/hello']);
    expect(result.structuredContent).toEqual({ id: 1, full_name: 'octo/hello' });
  });

  // invoke_operation advertises no outputSchema, so an answer unlike the spec's is still an answer
  // (a direct tool, whose outputSchema promises a shape, reports it as an error instead).
  it('returns a 200 answer whose shape differs from the spec, not isError', async () => {
    const result = await client.callTool({
      name: 'invoke_operation',
      arguments: { name: 'repos_get', arguments: { owner: 'octo', repo: 'off-spec' } },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: [1, 2] });
  });

  it('checks invoked arguments like a direct call, and names unknown operations', async () => {
    upstream.clear();
    const missing = await client.callTool({ name: 'invoke_operation', arguments: { name: 'repos_get', arguments: { owner: 'octo' } } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]?.text).toContain('missing required argument "repo"');
    const unknown = await client.callTool({ name: 'describe_operation', arguments: { name: 'repos_nope' } });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]?.text).toContain('search_operations');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('search_operations is bounded (GitHub, 1,223 operations)', () => {
  const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { text: string }[])[0]?.text;

  it('a 3.9 MB query is refused at once with an isError naming "query" and the limit', async () => {
    const result = await client.callTool({ name: 'search_operations', arguments: { query: 'repository '.repeat(355_000) } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Invalid arguments for search_operations: argument "query" is 3905000 characters long; at most 1000 are searched',
    );
  });

  it('a query at the limit answers, and another client is answered meanwhile', async () => {
    expect(MAX_QUERY).toHaveLength(1_000);
    const server = await startServer(dir, 'http', ['--base-url', upstream.url]);
    const [searching, pinging] = [await connect('http', server.url), await connect('http', server.url)];
    try {
      const [found] = await Promise.all([
        searching.callTool({ name: 'search_operations', arguments: { query: MAX_QUERY, limit: 50 } }),
        pinging.ping(),
      ]);
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as { results: unknown[] }).results).toHaveLength(50);
    } finally {
      await searching.close();
      await pinging.close();
      await server.stop();
    }
  });
});
