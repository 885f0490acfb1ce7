// --max-answer-bytes end to end: a generated server (a GitHub-like list operation with a Link
// header, per_page and page) asked through the official SDK client, in direct and dynamic mode,
// while the upstream answers 400 issues (~170 KB, under --max-response-bytes). The result must
// be valid JSON within the budget, fit the advertised outputSchema (the client checks it), and
// carry a note naming the next page as the tool's arguments.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-answer-budget-'));
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Issues', version: '1' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/repos/{owner}/{repo}/issues': {
      get: {
        operationId: 'listIssues',
        summary: 'List repository issues',
        parameters: [
          { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'repo', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'state', in: 'query', schema: { type: 'string', enum: ['open', 'closed', 'all'] } },
          { name: 'per_page', in: 'query', schema: { type: 'integer', default: 30 } },
          { name: 'page', in: 'query', schema: { type: 'integer', default: 1 } },
        ],
        responses: {
          '200': {
            description: 'Response',
            headers: { Link: { schema: { type: 'string' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id', 'number', 'title'],
                    properties: {
                      id: { type: 'integer' },
                      number: { type: 'integer' },
                      title: { type: 'string' },
                      body: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
const ISSUES = Array.from({ length: 400 }, (_, i) => ({
  id: 1000 + i,
  number: i + 1,
  title: `Issue ${i + 1} — ünïcødé ✓`,
  body: 'b'.repeat(350),
}));
const BUDGET = 65_536; // the default

let upstream: Upstream;
let dir: string;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startUpstream((req) => ({
    headers: {
      link: `<http://127.0.0.1/repositories/42/issues?state=open&per_page=400&page=${Number(req.query.get('page') ?? 1) + 1}>; rel="next", <http://127.0.0.1/repositories/42/issues?state=open&per_page=400&page=9>; rel="last"`,
    },
    body: JSON.stringify(ISSUES),
  }));
  const spec = join(scratch, 'issues.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  dir = generateProject(spec, 'e2e-answer-budget');
  await buildProject(dir);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const open = async (args: string[] = []) => {
  const client = await connect('stdio', dir, { args: ['--base-url', upstream.url, ...args] });
  clients.push(client);
  return client;
};
type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

function checkCut(result: Result, budget: number) {
  expect(result.isError).toBeFalsy();
  const [data, note] = result.content.map((c) => c.text ?? '');
  expect(Buffer.byteLength(data ?? '')).toBeLessThanOrEqual(budget);
  const kept = JSON.parse(data ?? '') as typeof ISSUES;
  expect(kept.length).toBeGreaterThan(0);
  expect(kept).toEqual(ISSUES.slice(0, kept.length));
  expect(note).toContain(`kept ${kept.length} of 400 items`);
  expect(note).toContain('Next page: call again with {"state":"open","per_page":400,"page":3}');
  expect(note).toContain(`pass \`per_page\` ≤ ${kept.length}`);
  return kept;
}

describe('a list over --max-answer-bytes', () => {
  it('direct mode: valid JSON within budget, structuredContent that the client accepts, the note naming the next page', async () => {
    const client = await open(['--tools', 'direct']);
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'listIssues');
    expect(listed?.description).toContain('Paginated:');
    expect(listed?.outputSchema).toBeDefined();
    // the official client validates structuredContent against the outputSchema it listed
    const result = (await client.callTool({
      name: 'listIssues',
      arguments: { owner: 'o', repo: 'r', state: 'open', per_page: 400, page: 2 },
    })) as Result;
    const kept = checkCut(result, BUDGET);
    expect(result.structuredContent).toEqual({ result: kept });
    expect(result._meta?.['mcp-gen/answer']).toMatchObject({ kept: kept.length, of: 400, nextPage: { arguments: { page: 3 } } });
    expect(upstream.requests.at(-1)?.url).toBe('/repos/o/r/issues?state=open&per_page=400&page=2');
  });

  it('dynamic mode (invoke_operation) and a smaller --max-answer-bytes: the same cut', async () => {
    const client = await open(['--tools', 'dynamic', '--max-answer-bytes', '5000']);
    const result = (await client.callTool({
      name: 'invoke_operation',
      arguments: { name: 'listIssues', arguments: { owner: 'o', repo: 'r', state: 'open', per_page: 400, page: 2 } },
    })) as Result;
    checkCut(result, 5_000);
  });

  it('--max-answer-bytes 0: the whole answer', async () => {
    const client = await open(['--tools', 'direct', '--max-answer-bytes', '0']);
    const result = (await client.callTool({ name: 'listIssues', arguments: { owner: 'o', repo: 'r', page: 2 } })) as Result;
    expect(JSON.parse(result.content[0]?.text ?? '')).toHaveLength(400);
    // nothing cut, but the Link header is still said: the model never sees headers
    expect(result.content[1]?.text).toBe('More results: next page: call again with {"state":"open","per_page":400,"page":3}.');
  });
});
