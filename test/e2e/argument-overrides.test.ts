// Argument overrides on GitHub's real spec (issue #41): `owner` hidden and fixed to "acme" (or read
// from ACME_OWNER) for four repository operations is absent from every listing — tools/list,
// dynamic mode's describe_operation, code mode's declarations and tool-types.ts — and present in
// every request the recording upstream receives through the official SDK client; a renamed
// argument and a narrowed enum are listed as such and sent under the spec's name.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connect, generateProject, REPO } from '../../harness/project.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const CLI = join(REPO, 'bin/mcp-gen.js');
const OWNER = { hidden: true, value: 'acme' };
const CONFIG = {
  includeOperations: ['repos/get', 'repos/list-branches', 'issues/list-for-repo', 'issues/create'],
  toolOverrides: {
    'repos/get': { arguments: { owner: OWNER } },
    'repos/list-branches': { arguments: { owner: OWNER } },
    'issues/create': { arguments: { owner: OWNER } },
    'issues/list-for-repo': {
      arguments: {
        owner: { hidden: true, env: 'ACME_OWNER' },
        state: { enum: ['open', 'closed'] },
        per_page: { name: 'page_size', default: 50, description: 'Issues per page.' },
      },
    },
  },
};
const TOOLS = ['issues_create', 'issues_list-for-repo', 'repos_get', 'repos_list-branches'];

let upstream: Upstream;
let configFile: string;
const clients: Client[] = [];

beforeAll(async () => {
  // Lists answer [], which their output schemas accept; anything else one object.
  upstream = await startUpstream((req) => ({ body: /\/(branches|issues)$/.test(req.path) && req.method === 'GET' ? '[]' : '{"id":1}' }));
  configFile = join(mkdtempSync(join(tmpdir(), 'mcp-gen-arguments-')), 'mcp-gen.config.json');
  writeFileSync(configFile, JSON.stringify(CONFIG));
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await upstream?.close();
});

/** `mcp-gen serve` of GitHub with the config, over stdio, in `mode`. */
async function serve(mode: string, env: Record<string, string> = { ACME_OWNER: 'acme-from-env' }): Promise<Client> {
  const argv = [CLI, 'serve', GITHUB_SPEC, '--config', configFile, '--tools', mode, '--base-url', upstream.url, '--log-level', 'warn'];
  const client = await connect('stdio', REPO, { argv, env });
  clients.push(client);
  return client;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const sent = () => upstream.requests.map((r) => `${r.method} ${r.url}`);

describe('direct mode', () => {
  let client: Client;
  beforeAll(async () => {
    client = await serve('direct');
  }, 60_000);

  it('lists no owner; the renamed, described, defaulted argument and the narrowed enum as configured', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.properties, tool.name).not.toHaveProperty('owner');
      expect(tool.inputSchema.required ?? [], tool.name).not.toContain('owner');
    }
    const issues = tools.find((t) => t.name === 'issues_list-for-repo')?.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(issues).not.toHaveProperty('per_page');
    expect(issues.page_size).toMatchObject({ type: 'integer', default: 50, description: 'Issues per page.' });
    expect(issues.state?.enum).toEqual(['open', 'closed']);
  });

  it("every request carries the owner: the fixed one, or the environment variable's; renamed and defaulted arguments go under the spec's name", async () => {
    upstream.clear();
    const calls = [
      { name: 'repos_get', arguments: { repo: 'hello' } },
      { name: 'repos_list-branches', arguments: { repo: 'hello' } },
      { name: 'issues_list-for-repo', arguments: { repo: 'hello', state: 'closed' } },
      { name: 'issues_list-for-repo', arguments: { repo: 'hello', page_size: 10 } },
      { name: 'issues_create', arguments: { repo: 'hello', body: { title: 'Found a bug' } } },
    ];
    for (const call of calls) await client.callTool(call);
    expect(sent()).toEqual([
      'GET /repos/acme/hello',
      'GET /repos/acme/hello/branches',
      'GET /repos/acme-from-env/hello/issues?state=closed&per_page=50',
      'GET /repos/acme-from-env/hello/issues?per_page=10',
      'POST /repos/acme/hello/issues',
    ]);
    expect(JSON.parse(upstream.requests[4]?.body.toString() ?? '')).toEqual({ title: 'Found a bug' });
  });

  it('a call that gives the hidden owner, or a value the narrowed enum left out, is refused and sends nothing', async () => {
    upstream.clear();
    const owner = await client.callTool({ name: 'repos_get', arguments: { owner: 'evil', repo: 'hello' } });
    expect(owner.isError).toBe(true);
    expect(text(owner)).toBe('Invalid arguments for repos_get: argument "owner" is set by the server\'s configuration; leave it out');
    const all = await client.callTool({ name: 'issues_list-for-repo', arguments: { repo: 'hello', state: 'all' } });
    expect(all.isError).toBe(true);
    expect(text(all)).toContain('argument "state": must be one of ["open","closed"]');
    expect(sent()).toEqual([]);
  });
});

describe('toolsets mode', () => {
  it('the tools of the toolsets enabled list no owner, and their calls send it', async () => {
    const client = await serve('toolsets');
    for (const toolset of ['repos', 'issues']) await client.callTool({ name: 'enable_toolset', arguments: { toolset } });
    const { tools } = await client.listTools();
    expect(
      tools
        .map((t) => t.name)
        .filter((name) => TOOLS.includes(name))
        .sort(),
    ).toEqual(TOOLS);
    for (const tool of tools) expect(tool.inputSchema.properties, tool.name).not.toHaveProperty('owner');
    upstream.clear();
    await client.callTool({ name: 'repos_list-branches', arguments: { repo: 'hello' } });
    expect(sent()).toEqual(['GET /repos/acme/hello/branches']);
  }, 60_000);
});

describe('dynamic mode', () => {
  let client: Client;
  beforeAll(async () => {
    client = await serve('dynamic');
  }, 60_000);

  it('describe_operation shows no owner, and invoke_operation sends it', async () => {
    for (const name of TOOLS) {
      const described = await client.callTool({ name: 'describe_operation', arguments: { name } });
      const { inputSchema } = described.structuredContent as { inputSchema: { properties: object; required?: string[] } };
      expect(inputSchema.properties, name).not.toHaveProperty('owner');
    }
    upstream.clear();
    const result = await client.callTool({ name: 'invoke_operation', arguments: { name: 'repos_get', arguments: { repo: 'hello' } } });
    expect(result.isError, text(result)).toBeFalsy();
    const refused = await client.callTool({
      name: 'invoke_operation',
      arguments: { name: 'repos_get', arguments: { owner: 'evil', repo: 'hello' } },
    });
    expect(text(refused)).toContain('argument "owner" is set by the server\'s configuration; leave it out');
    expect(sent()).toEqual(['GET /repos/acme/hello']);
  });
});

describe('code mode', () => {
  let client: Client;
  beforeAll(async () => {
    client = await serve('code');
  }, 60_000);

  it("search_api's declarations take no owner, and a program's calls send it", async () => {
    const declared = text(await client.callTool({ name: 'search_api', arguments: { query: 'repository branches issues', limit: 10 } }));
    for (const name of TOOLS) expect(declared, name).toMatch(new RegExp(`"?${name}"?\\(args: \\{ repo: string`));
    expect(declared).not.toMatch(/\(args: \{[^}]*\bowner\b/);
    upstream.clear();
    const program = `
      await api.repos_get({ repo: "hello" });
      await api["issues_list-for-repo"]({ repo: "hello" });
      await api.issues_create({ repo: "hello", body: { title: "t" } });
      try { await api.repos_get({ owner: "evil", repo: "hello" }); } catch (e) { return String(e.message); }`;
    const result = await client.callTool({ name: 'execute', arguments: { code: program } });
    expect(result.isError, text(result)).toBeFalsy();
    expect((result.structuredContent as { result: string }).result).toContain('argument "owner" is set by the server\'s configuration');
    expect(sent()).toEqual(['GET /repos/acme/hello', 'GET /repos/acme-from-env/hello/issues?per_page=50', 'POST /repos/acme/hello/issues']);
  });
});

describe('without the environment variable', () => {
  it('a call of the tool that reads it is refused, naming the variable, and sends nothing', async () => {
    const client = await serve('direct', {});
    upstream.clear();
    const result = await client.callTool({ name: 'issues_list-for-repo', arguments: { repo: 'hello' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'issues_list-for-repo: argument "owner" takes its value from the environment variable ACME_OWNER, which is not set on this server',
    );
    expect(sent()).toEqual([]);
  }, 60_000);
});

describe('tool-types.ts', () => {
  it("the generated project's argument types take no owner, and .env.example names the variable", () => {
    const dir = generateProject(GITHUB_SPEC, 'e2e-argument-overrides', ['--config', configFile]);
    const types = readFileSync(join(dir, 'src/tool-types.ts'), 'utf8').split('export interface ToolResults')[0] as string;
    const table = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as { tools: { name: string; hidden?: object }[] };
    expect(table.tools.map((t) => [t.name, t.hidden])).toContainEqual(['repos_get', { owner: { value: 'acme' } }]);
    expect(types).toContain('repos_get: {\n        repo: string;\n    };');
    expect(types).toContain('page_size?: number;');
    expect(types).not.toMatch(/\bowner\??:/);
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).toContain('# issues_list-for-repo owner\nACME_OWNER=\n');
  }, 120_000);
});

describe('a hidden argument read from a variable named as a secret', () => {
  it('is sent, and taken out of the answer like a credential', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-gen-arguments-secret-'));
    const spec = join(folder, 'tenants.json');
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Tenants', version: '1' },
        paths: {
          '/reports': {
            get: {
              operationId: 'listReports',
              parameters: [{ name: 'X-Tenant-Token', in: 'header', required: true, schema: { type: 'string' } }],
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const config = join(folder, 'mcp-gen.config.json');
    writeFileSync(
      config,
      JSON.stringify({ toolOverrides: { listReports: { arguments: { 'X-Tenant-Token': { hidden: true, env: 'TENANT_TOKEN' } } } } }),
    );
    const echo = await startUpstream((req) => ({
      status: 403,
      body: JSON.stringify({ message: `token ${String(req.headers['x-tenant-token'])} refused` }),
    }));
    try {
      const argv = [CLI, 'serve', spec, '--config', config, '--base-url', echo.url, '--log-level', 'warn'];
      const client = await connect('stdio', REPO, { argv, env: { TENANT_TOKEN: 'tenant-secret-42' } });
      clients.push(client);
      const { tools } = await client.listTools();
      expect(tools[0]?.inputSchema.properties ?? {}).toEqual({});
      const result = await client.callTool({ name: 'listReports', arguments: {} });
      expect(echo.requests.map((r) => r.headers['x-tenant-token'])).toEqual(['tenant-secret-42']);
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('token *** refused');
      expect(text(result)).not.toContain('tenant-secret-42');
    } finally {
      await echo.close();
    }
  }, 60_000);
});

describe('an override naming an argument GitHub does not have', () => {
  it('stops generation with one line naming the operation and the argument, and exit 2', () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-gen-arguments-typo-'));
    const config = join(folder, 'mcp-gen.config.json');
    writeFileSync(
      config,
      JSON.stringify({ includeOperations: ['repos/get'], toolOverrides: { 'repos/get': { arguments: { ownr: OWNER } } } }),
    );
    const run = spawnSync('node', [CLI, GITHUB_SPEC, '--config', config, '--out', join(folder, 'out')], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'mcp-gen: error: config "toolOverrides"."repos/get".arguments."ownr": GET /repos/{owner}/{repo} has no argument "ownr" (did you mean "owner"?)\n',
    );
  }, 60_000);
});
