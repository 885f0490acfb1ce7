// A generated project as its users get it (#43): `npm run build` bundles the server into dist/,
// `npm pack` packs that bundle with tools.json and the manifest, and the tarball alone installs
// into an empty folder outside the clone (offline: no dependency to fetch). From there the server
// runs as `npx -y ./<tarball>` and from its installed dist/main.js, and every feature still works
// from the bundle: tools/list and calls reaching a recording upstream over stdio and Streamable
// HTTP, code mode, OAuth resource-server mode against a real provider, traces to an OTLP/HTTP
// receiver. A feature that is off reads none of its chunks (a module-load hook in the process).
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, bundledSources, connect, generateProject, REPO, startNode } from '../../harness/project.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const run = promisify(execFile);
// Outside the clone, so that nothing resolves from the clone's node_modules.
const HOME = mkdtempSync(join(tmpdir(), 'mcp-gen-bundle-test-'));
const user = join(HOME, 'user');
const NAME = 'swagger-petstore-mcp';
const installed = join(user, 'node_modules', NAME);
const ENV = { SWAGGER_PETSTORE_API_KEY: 'k-bundle', SWAGGER_PETSTORE_AUTH_TOKEN: 't-bundle' };
const children = new Children();

let dir: string;
let tarball: string;
let packed: string[];
let upstream: Upstream;
let installSeconds: number;

/** Bytes under `path`, every file counted. */
function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

beforeAll(async () => {
  upstream = await startUpstream((req) => ({ body: JSON.stringify({ id: 1, name: `pet at ${req.path}`, photoUrls: [] }) }));
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-bundle');
  await buildProject(dir);
  mkdirSync(user, { recursive: true });
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', user, '--loglevel=error'], { cwd: dir, maxBuffer: 1 << 26 });
  const [pack] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = pack?.filename ?? '';
  packed = (pack?.files ?? []).map((f) => f.path);
  writeFileSync(join(user, 'package.json'), JSON.stringify({ name: 'user', private: true }));
  const started = performance.now();
  await run('npm', ['install', `./${tarball}`, '--offline', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: user,
  });
  installSeconds = (performance.now() - started) / 1000;
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await upstream?.close();
  rmSync(HOME, { recursive: true, force: true });
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

/** tools/list answers Petstore's 20 tools and getPetById reaches the upstream. */
async function listAndCall(client: Client): Promise<void> {
  expect((await client.listTools()).tools).toHaveLength(20);
  const before = upstream.requests.length;
  const called = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
  expect(called.isError, text(called)).toBeFalsy();
  expect(upstream.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v2/pet/1']);
}

/** `node <installed>/dist/main.js --transport http …`, with `--import` hooks before it. */
async function startInstalled(args: string[], env: Record<string, string> = {}, hooks: string[] = []) {
  const argv = [
    ...hooks,
    join(installed, 'dist/main.js'),
    '--transport',
    'http',
    '--port',
    '0',
    '--base-url',
    `${upstream.url}/v2`,
    ...args,
  ];
  const server = await startNode(argv, user, { ...ENV, ...env });
  children.track(server.process, server.stop);
  return server;
}

describe('the npm package of a generated project', () => {
  it('holds the bundle and its data, no sources and no runtime dependencies, and installs from the tarball alone', () => {
    expect(packed).toContain('dist/main.js');
    expect(packed).toContain('tools.json');
    expect(packed).toContain('tools-summary.json');
    // the default listing, served as it is (prepared-listing.test.ts)
    expect(packed).toContain('tools-listed.json');
    expect(packed).toContain('manifest.json');
    expect(packed.filter((f) => /^(src|lib|scripts|node_modules)\//.test(f) || f.startsWith('.env'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: object };
    expect(pkg.dependencies).toBeUndefined();
    expect(readdirSync(join(user, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual([NAME]);
    const bytes = sizeOf(join(user, 'node_modules'));
    console.log(`bundle: Petstore installs ${(bytes / 1e6).toFixed(1)} MB from its tarball in ${installSeconds.toFixed(1)} s`);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);
  });

  it('`npx -y ./<tarball>` serves stdio: tools/list and a call reaching the upstream', async () => {
    const client = await connect('stdio', user, {
      node: 'npx',
      argv: ['-y', `./${tarball}`, '--base-url', `${upstream.url}/v2`],
      env: { ...ENV, HOME: process.env.HOME ?? HOME, npm_config_prefer_offline: 'true' },
    });
    try {
      await listAndCall(client);
    } finally {
      await client.close();
    }
  }, 120_000);
});

/** The packages whose code is in the files of the installed dist/ that `log` (module-log.mjs) recorded. */
function packagesLoaded(log: string): Set<string> {
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((f) => f.startsWith(`${installed}/dist/`));
  expect(files).toContain(join(installed, 'dist/main.js'));
  // the installed files are the project's build, packed: its metafile says what each holds
  const sources = files.flatMap((f) => bundledSources(f, dir));
  return new Set(sources.flatMap((s) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(s)?.[1] ?? []));
}

describe('served from the installed bundle, every feature works', () => {
  it('Streamable HTTP: tools/list and a call, with none of the chunks of the features that are off read', async () => {
    const log = join(HOME, 'modules.log');
    writeFileSync(log, '');
    const server = await startInstalled([], { MODULE_LOG: log }, ['--import', join(REPO, 'test/harness/module-log.mjs')]);
    const client = await connect('http', server.url);
    try {
      await listAndCall(client);
    } finally {
      await client.close();
      await server.stop();
    }
    const packages = packagesLoaded(log);
    // the control: what serves the call is there
    expect(packages).toContain('@modelcontextprotocol/server');
    for (const off of ['@opentelemetry/api', 'redis', '@redis/client', 'quickjs-emscripten', 'jose', '@modelcontextprotocol/server-legacy'])
      expect(packages).not.toContain(off);
  }, 60_000);

  it('code mode: execute runs a program whose call reaches the upstream', async () => {
    const client = await connect('stdio', user, {
      argv: [join(installed, 'dist/main.js'), '--tools', 'code', '--base-url', `${upstream.url}/v2`],
      env: ENV,
    });
    try {
      const before = upstream.requests.length;
      const result = await client.callTool({
        name: 'execute',
        arguments: { code: 'const pet = await api.getPetById({ petId: 7 }); return pet.name;' },
      });
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result)).toContain('pet at /v2/pet/7');
      expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(['/v2/pet/7']);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('OAuth resource-server mode: a token of the real provider is accepted, none is refused with 401', async () => {
    let as: AuthorizationServer | undefined;
    try {
      as = await startAuthorizationServer({ format: 'jwt', resources: {} });
      const server = await startInstalled(['--oauth-issuer', as.issuer]);
      as.addResource(`${server.url}/`, ['mcp:read', 'mcp:write']);
      const refused = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      const token = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: `${server.url}/` });
      const client = await connect('http', server.url, { headers: { authorization: `Bearer ${token}` } });
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('getPetById');
        const called = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
        expect(called.isError, text(called)).toBeFalsy();
      } finally {
        await client.close();
        await server.stop();
      }
    } finally {
      await as?.close();
    }
  }, 60_000);

  it('OpenTelemetry: a call over stdio is exported to the OTLP/HTTP receiver (protobuf)', async () => {
    const traces: Buffer[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces') traces.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const client = await connect('stdio', user, {
        argv: [join(installed, 'dist/main.js'), '--base-url', `${upstream.url}/v2`],
        env: { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' },
      });
      try {
        await listAndCall(client);
        const deadline = Date.now() + 15_000;
        while (traces.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      } finally {
        await client.close();
      }
      expect(traces.length).toBeGreaterThan(0);
      // the span names the tool: protobuf carries strings as they are
      expect(Buffer.concat(traces).toString('latin1')).toContain('getPetById');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 60_000);
});
