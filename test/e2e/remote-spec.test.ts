// A spec loaded from a URL is the spec's author's, not the user's: it must choose neither which
// of the user's secrets are read (its title set the credential prefix, so a spec titled `DB`
// read DB_PASSWORD from the user's .env and sent it to its own host) nor an internal upstream.
// `mcp-gen serve <url>` against a local "attacker" that serves the spec and records every call,
// through the official SDK client.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO, startNode, TMP } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { textOf } from '../harness/wire.js';
import { generate } from '../../src/generate.js';

const CLI = join(REPO, 'bin/mcp-gen.js');
const USER = 'db-admin';
const PASSWORD = 'hunter2-db-password';

/** The attacker's spec: titled DB, one basic scheme named `db`, its calls to `servers`. */
const dbSpec = (servers: string) => ({
  openapi: '3.0.3',
  info: { title: 'DB', version: '1' },
  servers: [{ url: servers }],
  security: [{ db: [] }],
  components: { securitySchemes: { db: { type: 'http', scheme: 'basic' } } },
  paths: { '/rows': { get: { operationId: 'listRows', responses: { '200': { description: 'ok' } } } } },
});

let attacker: Upstream;
beforeAll(async () => {
  buildCli();
  attacker = await startUpstream((req) =>
    req.path === '/spec.json' ? { body: JSON.stringify(dbSpec(`${attacker.url}/api`)) } : { body: '{"rows":[]}' },
  );
});
afterAll(async () => {
  await attacker?.close();
});

/** A folder of the user's with this .env, where `mcp-gen serve <url>` is run. */
function userFolder(name: string, dotenv: string): string {
  const dir = join(TMP, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.env'), dotenv);
  return dir;
}

/** `mcp-gen serve <args>` over Streamable HTTP in `cwd`, one call of listRows, and what start-up said. */
async function serveAndCall(cwd: string, args: string[]): Promise<{ result: CallToolResult; startup: string }> {
  const server = await startNode([CLI, 'serve', ...args, '--transport', 'http', '--port', '0'], cwd);
  try {
    const client = await connect('http', server.url);
    const result = (await client.callTool({ name: 'listRows', arguments: {} })) as CallToolResult;
    await client.close();
    return { result, startup: server.stderr() };
  } finally {
    await server.stop();
  }
}

const calls = () => attacker.requests.filter((r) => r.path === '/api/rows');
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('mcp-gen serve <url>: the spec does not choose which secrets are read', () => {
  it("a spec titled DB does not get the .env's DB_USERNAME and DB_PASSWORD", async () => {
    attacker.clear();
    const cwd = userFolder('remote-db-attack', `DB_USERNAME=${USER}\nDB_PASSWORD=${PASSWORD}\n`);
    const { result, startup } = await serveAndCall(cwd, [`${attacker.url}/spec.json`]);
    const seen = JSON.stringify(attacker.requests.map((r) => [r.url, r.headers]));
    expect(seen).not.toContain(basic(USER, PASSWORD).slice('Basic '.length));
    expect(seen).not.toContain(PASSWORD);
    // Nothing is sent: the credential is missing, and the answer names the variables to set.
    expect(calls()).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('MCPGEN_DB_USERNAME and MCPGEN_DB_PASSWORD');
    expect(startup).toContain('MCPGEN_DB_USERNAME');
    expect(startup).toContain('MCPGEN_DB_PASSWORD');
  });

  it("the variables in mcp-gen's own namespace are read and sent", async () => {
    attacker.clear();
    const cwd = userFolder(
      'remote-db-namespace',
      `DB_USERNAME=x\nDB_PASSWORD=y\nMCPGEN_DB_USERNAME=${USER}\nMCPGEN_DB_PASSWORD=${PASSWORD}\n`,
    );
    const { result } = await serveAndCall(cwd, [`${attacker.url}/spec.json`]);
    expect(result.isError).toBeFalsy();
    expect(calls().map((r) => r.headers.authorization)).toEqual([basic(USER, PASSWORD)]);
  });

  it('--env-prefix and --name choose the prefix; the title never does', async () => {
    attacker.clear();
    const cwd = userFolder(
      'remote-db-chosen',
      `ACME_DB_USERNAME=a\nACME_DB_PASSWORD=b\nWAREHOUSE_DB_USERNAME=c\nWAREHOUSE_DB_PASSWORD=d\n`,
    );
    await serveAndCall(cwd, [`${attacker.url}/spec.json`, '--env-prefix', 'ACME']);
    await serveAndCall(cwd, [`${attacker.url}/spec.json`, '--name', 'warehouse-mcp']);
    expect(calls().map((r) => r.headers.authorization)).toEqual([basic('a', 'b'), basic('c', 'd')]);
  });
});

describe('generating from a URL: the spec does not choose which secrets are read', () => {
  const files = (result: Awaited<ReturnType<typeof generate>>) =>
    Object.fromEntries(result.files.map((f) => [f.path, f.contents.toString()]));

  it('the variables are MCPGEN_…, and the README and .env.example name them', async () => {
    const result = await generate({ spec: `${attacker.url}/spec.json`, out: join(TMP, 'remote-db-generated'), dryRun: true });
    expect(result.table.auth.db?.env).toEqual({ username: 'MCPGEN_DB_USERNAME', password: 'MCPGEN_DB_PASSWORD' });
    const { 'README.md': readme, '.env.example': example } = files(result);
    expect(example).toMatch(/^MCPGEN_DB_PASSWORD=/m);
    expect(example).not.toMatch(/^DB_PASSWORD=/m);
    expect(readme).toContain('MCPGEN_DB_PASSWORD');
    expect(readme).not.toMatch(/(?<![A-Z_])DB_PASSWORD/);
  });

  it.each([
    [{ name: 'warehouse-mcp' }, 'WAREHOUSE_DB'],
    [{ envPrefix: 'ACME' }, 'ACME_DB'],
  ])('%j chooses the prefix', async (choice, prefix) => {
    const result = await generate({ spec: `${attacker.url}/spec.json`, ...choice, dryRun: true, out: join(TMP, 'remote-db-out-chosen') });
    expect(result.table.auth.db?.env).toEqual({ username: `${prefix}_USERNAME`, password: `${prefix}_PASSWORD` });
  });

  it('a spec file the user generates from keeps the names its title gives (they review the project)', async () => {
    const file = join(TMP, 'remote-db-file.json');
    writeFileSync(file, JSON.stringify(dbSpec('https://db.example.com')));
    const result = await generate({ spec: file, dryRun: true, out: join(TMP, 'remote-db-file') });
    expect(result.table.auth.db?.env).toEqual({ username: 'DB_USERNAME', password: 'DB_PASSWORD' });
  });
});

// The spec comes from one origin and names another, internal one (a service on this machine).
describe('mcp-gen serve <url>: the spec does not choose an internal upstream', () => {
  let internal: Upstream;
  let origin: Upstream;
  beforeAll(async () => {
    internal = await startUpstream(() => ({ body: '{"secret":"internal"}' }));
    origin = await startUpstream(() => ({ body: JSON.stringify(dbSpec(`${internal.url}/admin`)) }));
  });
  afterAll(async () => {
    await Promise.all([internal?.close(), origin?.close()]);
  });
  const cwd = () => userFolder('remote-internal', `MCPGEN_DB_USERNAME=${USER}\nMCPGEN_DB_PASSWORD=${PASSWORD}\n`);

  it('a server URL on an internal address is not used: the call does not reach it, and start-up says why', async () => {
    internal.clear();
    const { result, startup } = await serveAndCall(cwd(), [`${origin.url}/spec.json`]);
    expect(internal.requests).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('--base-url');
    expect(startup).toContain(`#/servers/0/url: ${internal.url}/admin is an internal address (127.0.0.1)`);
    expect(startup).toContain('--allow-internal-servers');
  });

  it.each([
    ['--allow-internal-servers', () => []],
    ['--base-url', () => [`${internal.url}/admin`]],
  ])('%s: the user says so, and the call reaches it', async (flag, value) => {
    internal.clear();
    const { result } = await serveAndCall(cwd(), [`${origin.url}/spec.json`, flag, ...value()]);
    expect(result.isError).toBeFalsy();
    expect(internal.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /admin/rows']);
  });

  it("the spec's own origin is the user's choice, but not where it redirects: checked as each connection is made", async () => {
    internal.clear();
    const redirecting = await startUpstream((req) =>
      req.path === '/spec.json'
        ? { body: JSON.stringify(dbSpec('/api')) }
        : { status: 302, headers: { location: `${internal.url}/admin/rows` } },
    );
    try {
      const { result } = await serveAndCall(cwd(), [`${redirecting.url}/spec.json`]);
      expect(redirecting.requests.map((r) => r.path)).toEqual(['/spec.json', '/api/rows']);
      expect(internal.requests).toEqual([]);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('not sent: 127.0.0.1 is an internal address');
    } finally {
      await redirecting.close();
    }
  });

  it('generating from the URL leaves out a logo on an internal address, which npm run bundle would fetch', async () => {
    const logoAt = (url: string) => ({ ...dbSpec('https://api.example.com'), info: { title: 'DB', version: '1', 'x-logo': { url } } });
    const served = await startUpstream((req) =>
      req.path === '/internal.json'
        ? { body: JSON.stringify(logoAt('https://127.0.0.2:8443/latest/meta-data/logo.png')) }
        : { status: 404 },
    );
    try {
      const out = join(TMP, 'remote-internal-logo');
      const result = await generate({ spec: `${served.url}/internal.json`, out, force: true });
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { _meta?: unknown };
      expect(manifest._meta).toBeUndefined();
      expect(result.report.warnings.map((w) => `${w.where}: ${w.message}`)).toContainEqual(
        expect.stringMatching(
          /^#\/info\/x-logo\/url: https:\/\/127\.0\.0\.2:8443\/latest\/meta-data\/logo\.png is an internal address \(127\.0\.0\.2\)/,
        ),
      );
    } finally {
      await served.close();
    }
  });

  it('generating from the URL leaves the server out too, with the same warning', async () => {
    const result = await generate({ spec: `${origin.url}/spec.json`, dryRun: true, out: join(TMP, 'remote-internal-generated') });
    expect(result.table.servers).toEqual([]);
    expect(result.report.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['internal-server', 'no-base-url']));
    const allowed = await generate({
      spec: `${origin.url}/spec.json`,
      allowInternalServers: true,
      dryRun: true,
      out: join(TMP, 'remote-internal-allowed'),
    });
    expect(allowed.table.servers.map((s) => s.url)).toEqual([`${internal.url}/admin`]);
  });
});
