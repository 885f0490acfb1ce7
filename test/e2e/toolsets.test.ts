// Serving part of a big API, chosen at start: GitHub's 1,223 operations with --toolsets issues
// stay under the 128 tools that VS Code and the OpenAI API accept, through the official client.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildProject, connect, generateProject } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import type { ToolTable } from '../../src/contract/table.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';

const GITHUB = GITHUB_SPEC;
let upstream: Upstream;
let dir: string;
let table: ToolTable;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  dir = generateProject(GITHUB, 'e2e-github-toolsets', ['--tools', 'direct']);
  await buildProject(dir);
  table = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await upstream?.close();
});

const open = async (args: string[]) => {
  const client = await connect('stdio', dir, { args: ['--base-url', upstream.url, ...args] });
  clients.push(client);
  return client;
};

describe('GitHub served a toolset at a time', () => {
  it('--toolsets issues lists exactly the tools tagged issues, fewer than 128, and they answer', async () => {
    const client = await open(['--toolsets', 'issues']);
    const { tools } = await client.listTools();
    const tagged = table.tools.filter((t) => t.tags?.[0] === 'issues').map((t) => t.name);
    expect(tools.map((t) => t.name)).toEqual(tagged);
    expect(tools.length).toBeGreaterThan(20);
    expect(tools.length).toBeLessThanOrEqual(128);
    upstream.clear();
    const result = await client.callTool({ name: 'issues_get', arguments: { owner: 'octo', repo: 'hello', issue_number: 7 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /repos/octo/hello/issues/7']);
    const outside = await client.callTool({ name: 'repos_get', arguments: { owner: 'octo', repo: 'hello' } }).catch((e: Error) => e);
    expect(String((outside as Error).message ?? JSON.stringify(outside))).toMatch(/Unknown tool: repos_get/);
  });

  it('--read-only with two toolsets: only their GET tools', async () => {
    const client = await open(['--toolsets', 'issues,pulls', '--read-only']);
    const { tools } = await client.listTools();
    const want = table.tools.filter((t) => ['issues', 'pulls'].includes(t.tags?.[0] ?? '') && t.http.method === 'GET').map((t) => t.name);
    expect(tools.map((t) => t.name).sort()).toEqual(want.sort());
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('an unknown toolset stops the server with exit 2, listing the known ones', () => {
    const r = spawnSync(process.execPath, [join(dir, 'dist/main.js'), '--toolsets', 'isues'], {
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--toolsets: no toolset "isues" \(did you mean "issues"\?\) \(known: .*issues \(\d+\)/);
  });

  it('--help lists the toolsets with their sizes', () => {
    const r = spawnSync(process.execPath, [join(dir, 'dist/main.js'), '--help'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('Toolsets: ')) ?? '';
    const issues = table.tools.filter((t) => t.tags?.[0] === 'issues').length;
    expect(line).toContain(`issues (${issues})`);
    expect(line).toMatch(/\brepos \(\d+\)/);
  });
});

describe('dynamic toolsets: the agent enables what it needs', () => {
  it('lists two meta-tools, enables issues on request, says tools/list_changed, and the new tools answer', async () => {
    const client = await open(['--dynamic-toolsets']);
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    const before = await client.listTools();
    expect(before.tools.map((t) => t.name)).toEqual(['list_toolsets', 'enable_toolset', 'get_operation_status']);
    const hidden = await client
      .callTool({ name: 'issues_get', arguments: { owner: 'o', repo: 'r', issue_number: 1 } })
      .catch((e: Error) => e);
    expect(String((hidden as Error).message)).toMatch(/Unknown tool: issues_get/);

    const listed = await client.callTool({ name: 'list_toolsets', arguments: {} });
    const toolsets = (listed.structuredContent as { toolsets: { name: string; tools: number; enabled: boolean }[] }).toolsets;
    const issues = table.tools.filter((t) => t.tags?.[0] === 'issues').length;
    expect(toolsets).toContainEqual({ name: 'issues', tools: issues, enabled: false });

    const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'issues' } });
    expect(enabled.isError).toBeFalsy();
    for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(changed).toBe(1);
    const after = await client.listTools();
    expect(after.tools).toHaveLength(3 + issues);
    upstream.clear();
    const result = await client.callTool({ name: 'issues_get', arguments: { owner: 'octo', repo: 'hello', issue_number: 3 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/repos/octo/hello/issues/3']);

    const unknown = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'nope' } });
    expect(unknown.isError).toBe(true);
  });

  it('warns, in one line, as it loads the table (first tools/list over stdio), when the toolsets enabled from the start list more than 128 tools', async () => {
    const started = async (toolsets: string) => {
      const client = await open(['--tools', 'toolsets', '--toolsets', toolsets]);
      let stderr = '';
      (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await client.listTools();
      await client.ping(); // a round trip more: stderr written before the listing has arrived too
      await client.close();
      return stderr;
    };
    const three = table.tools.filter((t) => ['issues', 'pulls', 'repos'].includes(t.tags?.[0] ?? '')).length;
    expect(three).toBeGreaterThan(128);
    const warnings = (await started('issues,pulls,repos')).split('\n').filter((line) => line.includes('refuse more than 128'));
    expect(warnings).toEqual([
      `[${table.name}] warn: listing ${three + 4} tools: VS Code, Copilot and the OpenAI API refuse more than 128; enable fewer toolsets from the start (--toolsets), or generate with fewer --direct-tools`,
    ]);
    expect(await started('issues')).not.toMatch(/refuse more than 128/);
  });

  it('--toolsets says which start enabled', async () => {
    const client = await open(['--dynamic-toolsets', '--toolsets', 'pulls']);
    const { tools } = await client.listTools();
    const pulls = table.tools.filter((t) => t.tags?.[0] === 'pulls').map((t) => t.name);
    expect(tools.map((t) => t.name)).toEqual(['list_toolsets', 'enable_toolset', 'get_operation_status', ...pulls]);
  });
});
