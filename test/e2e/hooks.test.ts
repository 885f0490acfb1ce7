// The user's seam: src/hooks.ts survives regeneration and its hooks run on every call.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/model/build.js';
import { loadSpec } from '../../src/parse/load.js';
import { buildProject, connect, generateProject, REPO, TMP } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SPEC = `${REPO}samples/petstore/openapi.json`;
let upstream: Upstream;
let dir: string;

beforeAll(async () => {
  upstream = await startUpstream(() => ({ body: JSON.stringify({ id: 1, name: 'Rex', photoUrls: [] }) }));
  dir = generateProject(SPEC, 'e2e-hooks');
  writeFileSync(
    join(dir, 'src/hooks.ts'),
    `import type { Hooks } from '../lib/runtime/hooks-api.js';
export const hooks: Hooks = {
  beforeRequest(request) {
    request.headers['x-signed-by'] = 'hooks.ts';
    return request;
  },
  async afterResponse(response) {
    const body = (await response.json()) as Record<string, unknown>;
    return new Response(JSON.stringify({ ...body, name: String(body.name).toUpperCase() }), { status: response.status, headers: response.headers });
  },
};
`,
  );
  generateProject(SPEC, 'e2e-hooks'); // regenerate: hooks.ts must survive
  await buildProject(dir);
});

afterAll(async () => upstream?.close());

describe('hooks.ts', () => {
  it('survives regeneration', () => {
    expect(readFileSync(join(dir, 'src/hooks.ts'), 'utf8')).toContain("'x-signed-by'");
  });

  it('runs beforeRequest and afterResponse on a call', async () => {
    const client = await connect('stdio', dir, { env: { SWAGGER_PETSTORE_API_KEY: 'k' }, args: ['--base-url', upstream.url] });
    try {
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
      expect(upstream.requests.at(-1)?.headers['x-signed-by']).toBe('hooks.ts');
      expect(result.structuredContent).toMatchObject({ name: 'REX' });
    } finally {
      await client.close();
    }
  });

  it("lib/ holds every runtime module, and of the declarations exactly those the project's tsc reads", () => {
    const listed = (folder: string, ending: string) =>
      (readdirSync(folder, { recursive: true }) as string[])
        .filter((name) => name.endsWith(ending))
        .map((name) => name.split(sep).join('/'));
    const read = execFileSync(join(dir, 'node_modules/.bin/tsc'), ['-p', dir, '--listFilesOnly'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => file.startsWith(join(dir, 'lib') + sep))
      .map((file) =>
        file
          .slice(join(dir, 'lib').length + 1)
          .split(sep)
          .join('/'),
      );
    expect(read.length).toBeGreaterThan(1);
    expect(listed(join(dir, 'lib'), '.d.ts').sort()).toEqual([...read].sort());
    const runtime = ['runtime', 'contract'].flatMap((folder) =>
      listed(join(REPO, 'dist/src', folder), '.js').map((name) => `${folder}/${name}`),
    );
    expect(listed(join(dir, 'lib'), '.js').sort()).toEqual(runtime.sort());
  });

  it('--check passes after regeneration, even with hooks.ts edited', () => {
    const out = execFileSync('node', [join(REPO, 'bin/mcp-gen.js'), SPEC, '--out', dir, '--check'], { encoding: 'utf8' });
    expect(out).toContain('up to date');
  });
});

describe('--tools auto', () => {
  it('lists every tool when they fit --max-tools, else the toolsets when each fits', async () => {
    const spec = await loadSpec(SPEC);
    const at = (maxTools: number) => buildModel(spec, { maxDescriptionLength: 1000, toolMode: 'auto', maxTools }).table.serve;
    expect(at(19)).toEqual({ mode: 'toolsets', pinned: [] });
    expect(at(20)).toBeUndefined();
    const pinned = buildModel(spec, { maxDescriptionLength: 1000, toolMode: 'dynamic', directTools: ['getPet*'] }).table.serve;
    expect(pinned).toEqual({ mode: 'dynamic', pinned: ['getPetById'] });
  });
});

describe('typed hooks (src/tool-types.ts)', () => {
  const typedDir = () => generateProject(SPEC, 'e2e-typed-hooks');
  const build = (project: string) =>
    new Promise<{ ok: boolean; output: string }>((resolve) => {
      execFile('npm', ['run', 'build', '--silent'], { cwd: project }, (error, stdout, stderr) =>
        resolve({ ok: error === null, output: stdout + stderr }),
      );
    });
  let project: string;

  beforeAll(async () => {
    rmSync(join(TMP, 'e2e-typed-hooks'), { recursive: true, force: true });
    project = typedDir();
    writeFileSync(
      join(project, 'src/hooks.ts'),
      `import type { Hooks } from '../lib/runtime/hooks-api.js';
import type { ToolArguments } from './tool-types.js';
export const hooks: Hooks<ToolArguments> = {
  beforeRequest(request) {
    if (request.tool === 'getPetById') request.headers['x-typed'] = 'yes';
    return request;
  },
  tools: {
    getPetById: {
      beforeRequest(args) {
        return { ...args, petId: args.petId + 100 };
      },
    },
  },
};
`,
    );
    await buildProject(project);
  }, 120_000);

  it('a per-tool hook gets the typed arguments and its answer is used; the global hook sees the tool name', async () => {
    const client = await connect('stdio', project, { env: { SWAGGER_PETSTORE_API_KEY: 'k' }, args: ['--base-url', upstream.url] });
    try {
      upstream.clear();
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
      expect(result.isError).toBeFalsy();
      expect(upstream.requests.map((r) => `${r.url} ${String(r.headers['x-typed'])}`)).toEqual(['/pet/101 yes']);
    } finally {
      await client.close();
    }
  });

  it('tsc fails on a hook for a tool that was renamed, naming it', async () => {
    writeFileSync(join(project, 'mcp-gen.config.json'), JSON.stringify({ tools: { getPetById: { name: 'fetchPet' } } }));
    execFileSync('node', [
      join(REPO, 'bin/mcp-gen.js'),
      SPEC,
      '--out',
      project,
      '--config',
      join(project, 'mcp-gen.config.json'),
      '--quiet',
    ]);
    expect(readFileSync(join(project, 'src/tool-types.ts'), 'utf8')).toContain('fetchPet: {');
    const { ok, output } = await build(project);
    expect(ok).toBe(false);
    expect(output).toContain('src/hooks.ts');
    expect(output).toMatch(/getPetById/);
  }, 120_000);

  it('tsc fails on an argument that does not exist', async () => {
    generateProject(SPEC, 'e2e-typed-hooks'); // back to the spec's names
    writeFileSync(
      join(project, 'src/hooks.ts'),
      `import type { Hooks } from '../lib/runtime/hooks-api.js';
import type { ToolArguments } from './tool-types.js';
export const hooks: Hooks<ToolArguments> = { tools: { getPetById: { beforeRequest(args) { return { ...args, petId: args.petIdd }; } } } };
`,
    );
    const { ok, output } = await build(project);
    expect(ok).toBe(false);
    expect(output).toContain('petIdd');
  }, 120_000);
});
