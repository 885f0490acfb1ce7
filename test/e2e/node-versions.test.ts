// mcp-gen and what it generates on the Node versions users run: 22 and 24 (the npm package
// `node` ships their binaries; this repository itself runs on 20, which CI runs everything on).
// Each version generates the Petstore project with the CLI, builds it with the TypeScript
// compiler, and serves it: stdio and Streamable HTTP through the official SDK client, a call
// reaching a recording upstream, and a code-mode program (QuickJS in WebAssembly, in a worker
// thread) calling the API.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, buildProject, connect, REPO, startNode, TMP, type RunningServer } from '../../harness/project.js';
import { installPinned, pinnedVersions } from '../harness/pinned-tools.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SPEC = join(REPO, 'samples/petstore/openapi.json');
const pet = (id: number) => JSON.stringify({ id, name: `pet-${id}`, photoUrls: [], status: 'available' });

describe.each(['node22', 'node24'])('on %s', (fixture) => {
  let node: string;
  let dir: string;
  let upstream: Upstream;
  const env = () => ({ API_BASE_URL: upstream.url, SWAGGER_PETSTORE_API_KEY: 'k' });

  beforeAll(async () => {
    const folder = await installPinned(fixture, (d) => existsSync(join(d, 'node_modules/node/bin/node')));
    node = join(folder, 'node_modules/node/bin/node');
    upstream = await startUpstream((req) => ({ body: pet(Number(req.path.split('/').pop())) }));
  }, 300_000);
  afterAll(() => upstream?.close());

  it('is the pinned version', () => {
    expect(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${pinnedVersions(fixture).node}`);
  });

  it('mcp-gen generates the project, and the TypeScript compiler builds it', async () => {
    buildCli();
    dir = join(TMP, `e2e-${fixture}`);
    const out = execFileSync(node, [join(REPO, 'bin/mcp-gen.js'), SPEC, '--out', dir, '--force'], { cwd: REPO, encoding: 'utf8' });
    expect(out).toMatch(/20 tools/);
    await buildProject(dir); // links the shared dependencies (and builds once on this repository's Node)
    execFileSync(node, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, stdio: 'pipe' });
    expect(existsSync(join(dir, 'dist/main.js'))).toBe(true);
  }, 300_000);

  it('serves over stdio: tools/list and a call that reaches the API', async () => {
    const client = await connect('stdio', dir, { node, env: env() });
    try {
      expect((await client.listTools()).tools).toHaveLength(20);
      upstream.clear();
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: 3 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: 3, name: 'pet-3' });
      expect(upstream.requests.map((r) => [r.method, r.path, r.headers.api_key])).toEqual([['GET', '/pet/3', 'k']]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("keeps V8's code cache of the server in the temporary folder, and serves where it cannot be written", async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-compile-cache-'));
    const unwritable = join(scratch, 'a-file');
    writeFileSync(unwritable, '');
    try {
      // Node's default folder for it is <os.tmpdir()>/node-compile-cache; NODE_COMPILE_CACHE would turn it on by itself
      for (const temporary of [scratch, unwritable]) {
        const client = await connect('stdio', dir, { node, env: { ...env(), TMPDIR: temporary } });
        try {
          const result = await client.callTool({ name: 'getPetById', arguments: { petId: 4 } });
          expect(result.structuredContent).toMatchObject({ id: 4, name: 'pet-4' });
        } finally {
          await client.close();
        }
      }
      expect(readdirSync(join(scratch, 'node-compile-cache'), { recursive: true }).length).toBeGreaterThan(1);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  it('serves Streamable HTTP to both protocol eras, and runs a code-mode program', async () => {
    let server: RunningServer | undefined;
    try {
      server = await startNode([join(dir, 'dist/main.js'), '--transport', 'http', '--port', '0', '--tools', 'code'], dir, env(), node);
      for (const negotiate of [false, true]) {
        const client = await connect('http', server.url, { negotiate });
        try {
          upstream.clear();
          const result = await client.callTool({
            name: 'execute',
            arguments: {
              code: 'const [a, b] = await Promise.all([api.getPetById({ petId: 1 }), api.getPetById({ petId: 2 })]); return [a.name, b.name];',
            },
          });
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
          expect(result.structuredContent).toMatchObject({ result: ['pet-1', 'pet-2'], calls: 2 });
          expect(upstream.requests.map((r) => r.path).sort()).toEqual(['/pet/1', '/pet/2']);
        } finally {
          await client.close();
        }
      }
    } finally {
      await server?.stop();
    }
  }, 60_000);
});
