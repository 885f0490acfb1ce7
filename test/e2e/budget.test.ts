// The context budget, end to end: GitHub, Stripe and Kubernetes generated with default
// options and started as a user would, listed through the official client over stdio. The
// default tools/list must stay within what clients accept (≤ 128 tools, ≤ 100 KB), every
// operation must stay reachable, and `--tools direct` must still list every one of them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { kubernetesSpec } from '../../harness/corpus-check.js';
import { GITHUB_SPEC, STRIPE_SPEC } from '../../harness/corpora.js';
import type { ToolTable } from '../../src/contract/table.js';
import { operationTools } from '../../src/contract/meta-tools.js';
import { CLIENT_TOOL_CAP } from '../../src/contract/limits.js';

const BUDGET_BYTES = 100 * 1024;
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-budget-'));
const SPECS = {
  github: GITHUB_SPEC,
  stripe: STRIPE_SPEC,
  kubernetes: kubernetesSpec(scratch).path,
};

let upstream: Upstream;
const clients: Client[] = [];
const projects = new Map<string, { dir: string; table: ToolTable }>();

beforeAll(async () => {
  upstream = await startUpstream();
  for (const [name, spec] of Object.entries(SPECS)) {
    const dir = generateProject(spec, `e2e-budget-${name}`);
    await buildProject(dir);
    projects.set(name, { dir, table: JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable });
  }
}, 600_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const open = async (name: string, args: string[] = []) => {
  const project = projects.get(name);
  if (!project) throw new Error(`no project ${name}`);
  // every credential variable set, so that calls reach the upstream whatever scheme they need
  const env = Object.fromEntries(
    Object.values(project.table.auth).flatMap((scheme) =>
      Object.values(scheme.env).map((variable) => [variable as string, 'test-credential']),
    ),
  );
  const client = await connect('stdio', project.dir, { args: ['--base-url', upstream.url, ...args], env });
  clients.push(client);
  return { client, ...project };
};

describe.each(Object.keys(SPECS))('%s with default options', (name) => {
  it('lists at most 128 tools in at most 100 KB, and says in its README what it chose and why', async () => {
    const { client, table, dir } = await open(name);
    const listed = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(listed));
    expect(table.tools.length).toBeGreaterThan(CLIENT_TOOL_CAP); // the point: an API too big to list whole
    expect(listed.tools.length).toBeLessThanOrEqual(CLIENT_TOOL_CAP);
    expect(bytes).toBeLessThanOrEqual(BUDGET_BYTES);
    expect(table.serve?.mode).toMatch(/^(toolsets|code|dynamic)$/);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain(`By default its \`tools/list\` shows them`);
    expect(readme).toMatch(
      new RegExp(
        `chose what \`tools/list\` shows by default: \\*\\*${table.serve?.mode}\\*\\*, because ${table.tools.length} tools in \\d+ KB are over the budget`,
      ),
    );
  });

  it('every operation stays reachable: found by search and called through invoke_operation', async () => {
    const { client, table } = await open(name, ['--tools', 'dynamic']);
    const target = table.tools.find((t) => t.http.method === 'GET' && !t.http.params.some((p) => p.required)) ?? table.tools[0];
    if (!target) throw new Error('no tools');
    const found = await client.callTool({
      name: 'search_operations',
      arguments: { query: target.name.replace(/[_/-]+/g, ' '), limit: 50 },
    });
    expect(JSON.stringify(found.content)).toContain(target.name);
    upstream.clear();
    const called = await client.callTool({ name: 'invoke_operation', arguments: { name: target.name, arguments: {} } });
    expect(called.isError, JSON.stringify(called.content)).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.method).toBe(target.http.method);
  });

  it('--tools direct lists every operation, in fewer bytes under the portable profile than in full', async () => {
    const { client: portable, table } = await open(name, ['--tools', 'direct']);
    const compact = await portable.listTools();
    expect(compact.tools).toHaveLength(table.tools.length + operationTools(table).length);
    const { client: full } = await open(name, ['--tools', 'direct', '--client-profile', 'full']);
    const whole = await full.listTools();
    expect(whole.tools).toHaveLength(table.tools.length + operationTools(table).length);
    const compactBytes = Buffer.byteLength(JSON.stringify(compact));
    const wholeBytes = Buffer.byteLength(JSON.stringify(whole));
    expect(compactBytes).toBeLessThan(wholeBytes);
    // recorded for docs/benchmarks.md (bench/list.ts measures the same on demand)
    console.log(
      `${name}: tools/list direct ${table.tools.length} tools: full ${wholeBytes} B, portable ${compactBytes} B (${Math.round((1 - compactBytes / wholeBytes) * 100)} % less)`,
    );
  });
});
