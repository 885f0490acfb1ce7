// A generated project as its users ship it: the npm package (npm pack, installed from the tarball
// into an empty folder elsewhere, its bin run over stdio), the Claude Desktop extension bundle
// (npm run bundle with the official packer, validated, unpacked and started the way Claude
// Desktop starts it: the manifest's command and environment), and the README's one-liners run
// in real clients' CLIs (Claude Code, Gemini CLI, Codex), each checked by the official SDK client
// or the client itself against a recording upstream.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, generateProject, REPO } from '../../harness/project.js';
import { publicAddress, startUpstream, type Upstream } from '../harness/upstream.js';
import { installPinned } from '../harness/pinned-tools.js';
import { selfSignedCertificate } from '../harness/tls.js';

const SPEC = join(REPO, 'samples/petstore/openapi.json');
const PACKAGE = 'swagger-petstore-mcp';
const KEY_VARIABLE = 'SWAGGER_PETSTORE_API_KEY';
const SECRET = 'sk-packaging-test-never-bundled';

let dir: string;
let upstream: Upstream;
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-packaging-'));

// The API's logo, served over https by the test (a self-signed certificate the bundle script's
// Node is told to trust): `npm run bundle` makes it the bundle's icon.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const tls = selfSignedCertificate(scratch, ['127.0.0.1', ...(publicAddress ? [publicAddress] : [])]);
let logo: { url: string; ca: string; requests: () => number; close(): void };

/** An https server on `host` answering `answer(path)`; its URL and how many requests it served. */
async function serveHttps(host: string, answer: (path: string) => { status: number; headers: Record<string, string>; body?: Buffer }) {
  let requests = 0;
  const server: HttpsServer = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    requests++;
    const { status, headers, body } = answer(req.url ?? '/');
    res.writeHead(status, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { url: `https://${host}:${(server.address() as AddressInfo).port}`, requests: () => requests, close: () => server.close() };
}

async function serveLogo(): Promise<typeof logo> {
  const server = await serveHttps('127.0.0.1', () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: PNG }));
  return { ...server, url: `${server.url}/logo.png`, ca: tls.path };
}

beforeAll(async () => {
  logo = await serveLogo();
  const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as { info: Record<string, unknown> };
  spec.info['x-logo'] = { url: logo.url };
  mkdirSync(join(scratch, 'spec'));
  writeFileSync(join(scratch, 'spec/openapi.json'), JSON.stringify(spec));
  dir = generateProject(join(scratch, 'spec/openapi.json'), 'e2e-packaging');
  await buildProject(dir);
  upstream = await startUpstream((req) => ({
    body: JSON.stringify({ id: Number(req.path.split('/').pop()), name: 'Rex', photoUrls: [] }),
  }));
}, 300_000);

afterAll(async () => {
  logo?.close();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Connects the official SDK client to `command args` over stdio, calls getPetById and closes. */
async function listAndCall(command: string, args: string[], env: Record<string, string>, cwd: string) {
  const client = new Client({ name: 'mcp-gen-packaging', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '', ...env }, cwd, stderr: 'pipe' }));
  try {
    const { tools } = await client.listTools();
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 7 } });
    return { tools: tools.map((t) => t.name), result, requests: [...upstream.requests] };
  } finally {
    await client.close();
  }
}

const filesUnder = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(root, e.name)) : [join(root, e.name)]));

describe('the npm package', () => {
  it('is publishable as is: bin with a shebang, files, prepack building, engines, no runtime dependencies, and a README that starts with running it from its folder, npx after', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin).toEqual({ [PACKAGE]: 'dist/main.js' });
    expect(readFileSync(join(dir, 'dist/main.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'tools.json', 'tools-summary.json', 'README.md']));
    expect((pkg.scripts as Record<string, string>).prepack).toBe('npm run build');
    // the build is one bundle: what it runs is in dist/
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.engines).toEqual({ node: '>=20' });
    // it leads with running the project from its own folder; the published package's line follows
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const head = readme.split('\n').slice(0, 12).join('\n');
    expect(head).toContain('node dist/main.js --clients');
    expect(readme.slice(readme.indexOf('## Install in a client, once published'))).toContain(`npx -y ${PACKAGE}`);
  });

  it('packs with npm pack, installs from the tarball into an empty folder, and its bin serves over stdio', async () => {
    const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: dir, encoding: 'utf8' }).trim();
    const tarball = join(scratch, packed.split('\n').pop() as string);
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
    expect(listing).toContain('package/dist/main.js');
    expect(listing).not.toContain('package/lib/');
    expect(listing).toContain('package/tools.json');
    expect(listing).toContain('package/tools-summary.json');
    expect(listing).toContain('package/tools-listed.json');
    expect(listing).not.toMatch(/package\/src\/|package\/\.env/);
    const user = join(scratch, 'user');
    mkdirSync(user);
    writeFileSync(join(user, 'package.json'), '{"name":"someone-else","private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], {
      cwd: user,
      stdio: 'pipe',
    });
    const bin = join(user, 'node_modules/.bin', PACKAGE);
    expect(existsSync(bin)).toBe(true);
    const { tools, result, requests } = await listAndCall(bin, [], { API_BASE_URL: upstream.url, [KEY_VARIABLE]: 'k-1' }, user);
    expect(tools).toHaveLength(20);
    expect(result.isError).toBeFalsy();
    expect(requests.map((r) => [r.method, r.path, r.headers.api_key])).toEqual([['GET', '/pet/7', 'k-1']]);
  }, 300_000);
});

describe('the Claude Desktop extension bundle (npm run bundle)', () => {
  let bundle: string;
  let unpacked: string;
  // the project's own pinned packer, as `npm run bundle` uses it
  const mcpb = () => join(dir, 'node_modules/.bin/mcpb');

  beforeAll(async () => {
    // a secret the user keeps beside the project: it must never travel in the bundle
    writeFileSync(join(dir, '.env'), `${KEY_VARIABLE}=${SECRET}\n`);
    // not execFileSync: this process serves the logo meanwhile
    await promisify(execFile)('npm', ['run', 'bundle', '--silent'], { cwd: dir, env: { ...process.env, NODE_EXTRA_CA_CERTS: logo.ca } });
    bundle = join(dir, `${PACKAGE}.mcpb`);
    unpacked = join(scratch, 'unpacked');
    execFileSync(mcpb(), ['unpack', bundle, unpacked], { stdio: 'pipe' });
  }, 300_000);

  it("has a manifest the official validator accepts: each credential a sensitive user_config field, mapped to the server's variable", () => {
    const out = execFileSync(mcpb(), ['validate', join(dir, 'manifest.json')], { encoding: 'utf8' });
    expect(out).toMatch(/passes/);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as {
      server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
      user_config: Record<string, { sensitive?: boolean; type: string }>;
      tools: { name: string }[];
      compatibility: { runtimes: { node: string } };
    };
    expect(manifest.server.entry_point).toBe('dist/main.js');
    expect(manifest.server.mcp_config.env[KEY_VARIABLE]).toBe(`\${user_config.${KEY_VARIABLE.toLowerCase()}}`);
    expect(manifest.user_config[KEY_VARIABLE.toLowerCase()]).toMatchObject({ type: 'string', sensitive: true });
    expect(manifest.tools).toHaveLength(20);
    expect(manifest.compatibility.runtimes.node).toBe('>=20.0.0');
  });

  it("has the API's logo (the spec's x-logo, a PNG) as its icon, and the packed manifest validates with it", () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as { icon?: string };
    expect(manifest.icon).toBe('icon.png');
    expect(readFileSync(join(unpacked, 'icon.png')).equals(PNG)).toBe(true);
    expect(execFileSync(mcpb(), ['validate', unpacked], { encoding: 'utf8' })).toMatch(/passes/);
  });

  it('holds the bundled server, its data and icon only: no node_modules, no .env, no sources', () => {
    const files = filesUnder(unpacked);
    expect(files.some((f) => f.endsWith('/dist/main.js'))).toBe(true);
    expect(existsSync(join(unpacked, 'tools.json'))).toBe(true);
    expect(existsSync(join(unpacked, 'tools-listed.json'))).toBe(true);
    for (const absent of ['node_modules', 'lib', 'src', 'scripts']) expect(existsSync(join(unpacked, absent))).toBe(false);
    const bytes = statSync(bundle).size;
    console.log(`bundle: Petstore's .mcpb is ${(bytes / 1e6).toFixed(2)} MB`);
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
    expect(existsSync(join(unpacked, '.env'))).toBe(false);
    const leaking = files.filter((f) => statSync(f).size < 50_000_000 && readFileSync(f).includes(SECRET));
    expect(leaking).toEqual([]);
  });

  it("starts as Claude Desktop starts it (the manifest's command, ${__dirname}, user_config in the environment) and answers", async () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as {
      server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
      user_config: Record<string, { default?: unknown }>;
    };
    const answers: Record<string, string> = { [KEY_VARIABLE.toLowerCase()]: 'k-2', api_base_url: upstream.url };
    const fill = (text: string) =>
      text
        .replaceAll('${__dirname}', unpacked)
        .replace(/\$\{user_config\.([a-z0-9_]+)\}/g, (_, key: string) => answers[key] ?? String(manifest.user_config[key]?.default ?? ''));
    const { command, args, env } = manifest.server.mcp_config;
    const filled = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)]));
    const { tools, result, requests } = await listAndCall(command, args.map(fill), filled, scratch);
    expect(tools).toHaveLength(20);
    expect(result.isError).toBeFalsy();
    expect(requests.map((r) => [r.method, r.path, r.headers.api_key])).toEqual([['GET', '/pet/7', 'k-2']]);
  }, 60_000);

  // Last: it packs the bundle again with other logos.
  it.skipIf(publicAddress === undefined)(
    `follows a public logo's redirect to another public host, but not into the internal network${publicAddress ? '' : ' (skipped: this machine has no address outside the internal ranges to stand for a public host)'}`,
    async () => {
      const host = publicAddress as string;
      const publicLogo = await serveHttps(host, () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: PNG }));
      const redirecting = await serveHttps(host, (path) => ({
        status: 302,
        headers: { location: path === '/to-internal' ? logo.url : `${publicLogo.url}/logo.png` },
      }));
      const manifestPath = join(dir, 'manifest.json');
      const original = readFileSync(manifestPath, 'utf8');
      const bundleWithLogo = async (url: string) => {
        const manifest = JSON.parse(original) as { _meta: Record<string, Record<string, unknown>> };
        (manifest._meta['mcp-gen'] as Record<string, unknown>).icon_url = url;
        writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
        const env = { ...process.env, NODE_EXTRA_CA_CERTS: tls.path };
        const { stdout } = await promisify(execFile)('node', ['scripts/bundle.mjs'], { cwd: dir, env });
        const again = join(scratch, `unpacked-${url.split('/').pop()}`);
        execFileSync(mcpb(), ['unpack', bundle, again], { stdio: 'pipe' });
        return { stdout, icon: existsSync(join(again, 'icon.png')) };
      };
      try {
        const toPublic = await bundleWithLogo(`${redirecting.url}/to-public`);
        expect(toPublic.icon).toBe(true);
        expect(publicLogo.requests()).toBe(1);
        const before = logo.requests();
        const toInternal = await bundleWithLogo(`${redirecting.url}/to-internal`);
        expect(toInternal.stdout).toContain(
          `no icon (the logo at ${redirecting.url}/to-internal redirects from a public host into the internal network (127.0.0.1:`,
        );
        expect(toInternal.icon).toBe(false);
        expect(logo.requests()).toBe(before);
      } finally {
        writeFileSync(manifestPath, original);
        publicLogo.close();
        redirecting.close();
      }
    },
    300_000,
  );
});

describe("the README's one-liners in real clients", () => {
  let clients: string;
  let home: string;
  let readme: string;
  const bin = (name: string) => join(clients, 'node_modules/.bin', name);

  beforeAll(async () => {
    clients = await installPinned('clients', (d) =>
      ['claude', 'gemini', 'codex'].every((b) => existsSync(join(d, 'node_modules/.bin', b))),
    );
    home = mkdtempSync(join(scratch, 'home-'));
    readme = readFileSync(join(dir, 'README.md'), 'utf8');
  }, 600_000);

  /** The README's snippet for `client` (the block under its bold name), made runnable here as the README says: the local build instead of the published package, values for the placeholders. */
  function snippet(client: string): string {
    const at = readme.indexOf(`**${client}** — `);
    expect(at, `no ${client} install in the README`).toBeGreaterThanOrEqual(0);
    const block = /```\w*\n([\s\S]*?)\n```/.exec(readme.slice(at))?.[1] ?? '';
    return block
      .replaceAll(`npx -y ${PACKAGE}`, `node ${join(dir, 'dist/main.js')}`)
      .replaceAll(`<${KEY_VARIABLE}>`, 'k-3')
      .replaceAll('<SWAGGER_PETSTORE_AUTH_TOKEN>', 'token-3');
  }
  /** A JSON block's servers, each run from the local build instead of the published package (as the README says). */
  function localServers(block: string): Record<string, unknown> {
    const parsed = JSON.parse(block) as { mcpServers: Record<string, { command: string; args: string[] }> };
    for (const server of Object.values(parsed.mcpServers)) {
      expect([server.command, ...server.args]).toEqual(['npx', '-y', PACKAGE]);
      Object.assign(server, { command: 'node', args: [join(dir, 'dist/main.js')] });
    }
    return parsed;
  }
  /** What the client printed, both streams (Gemini CLI writes its list to stderr). */
  const run = (file: string, args: string[]) => {
    const env = { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1' };
    const r = spawnSync(file, args, { cwd: home, env, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    return `${r.stdout}${r.stderr}`;
  };

  it("Claude Code: its `claude mcp add` line, then `claude mcp list`'s health check connects to the server", () => {
    const line = snippet('Claude Code');
    expect(line.startsWith('claude mcp add swagger-petstore ')).toBe(true);
    execFileSync('bash', ['-c', `PATH="${join(clients, 'node_modules/.bin')}:$PATH" ${line}`], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stdio: 'pipe',
    });
    const listed = run(bin('claude'), ['mcp', 'list']);
    expect(listed).toMatch(/swagger-petstore: node .*dist\/main\.js - ✔ Connected/);
    const got = run(bin('claude'), ['mcp', 'get', 'swagger-petstore']);
    expect(got).toContain(`${KEY_VARIABLE}=k-3`);
  }, 180_000);

  it('Gemini CLI: its settings.json block, then `gemini mcp list` connects to the server', () => {
    const settings = localServers(snippet('Gemini CLI'));
    mkdirSync(join(home, '.gemini'), { recursive: true });
    // a scratch folder is not one the user trusted: Gemini CLI would leave the server disabled there
    writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify({ ...settings, security: { folderTrust: { enabled: false } } }));
    expect(run(bin('gemini'), ['mcp', 'list'])).toMatch(/swagger-petstore: node .*dist\/main\.js \(stdio\) - Connected/);
  }, 180_000);

  it('Codex CLI: its `codex mcp add` line, then `codex mcp get --json` shows the server as the line gave it', () => {
    execFileSync('bash', ['-c', `PATH="${join(clients, 'node_modules/.bin')}:$PATH" ${snippet('Codex CLI')}`], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stdio: 'pipe',
    });
    const printed = run(bin('codex'), ['mcp', 'get', 'swagger-petstore', '--json']);
    const got = JSON.parse(printed.slice(printed.indexOf('{'), printed.lastIndexOf('}') + 1)) as {
      transport: { type: string; command: string; args: string[]; env: Record<string, string> };
    };
    expect(got.transport).toMatchObject({ type: 'stdio', command: 'node', args: [join(dir, 'dist/main.js')] });
    expect(got.transport.env[KEY_VARIABLE]).toBe('k-3');
  }, 180_000);
});
