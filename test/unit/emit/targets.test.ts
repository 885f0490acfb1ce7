// What --target adds to a project (src/emit/targets.ts): each platform's entry and config, the
// README section that runs and deploys it, and a refusal, at generation, of what a platform
// cannot serve.
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/model/build.js';
import { emitProject } from '../../../src/emit/project.js';
import { targetProblem } from '../../../src/emit/targets.js';
import type { Target } from '../../../src/contract/targets.js';

function project(targets?: Target[]) {
  const model = buildModel(
    {
      doc: {
        openapi: '3.0.3',
        info: { title: 'Things', version: '1' },
        servers: [{ url: 'https://api.example.com' }],
        paths: { '/things': { get: { operationId: 'listThings', responses: {} } } },
        components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
        security: [{ key: [] }],
      },
      specVersion: '3.0.3',
      source: 'spec.yaml',
      warnings: [],
    },
    { maxDescriptionLength: 1000, titleNamesCredentials: true },
  );
  const files = emitProject(model, { specName: 'spec.yaml', dirName: 'things-mcp', ...(targets ? { targets } : {}) }).files;
  const text = (path: string) => files.find((f) => f.path === path)?.contents.toString();
  return { paths: files.map((f) => f.path), text };
}

describe('--target', () => {
  it('vercel adds its function under api/ and vercel.json routing /mcp to it, and a README section', () => {
    const { paths, text } = project(['vercel']);
    expect(paths).toEqual(expect.arrayContaining(['api/mcp.ts', 'vercel.json']));
    expect(JSON.parse(text('vercel.json') as string).rewrites).toContainEqual({ source: '/mcp', destination: '/api/mcp' });
    expect(text('README.md')).toContain('npx vercel deploy');
  });

  it('lambda adds its handler, its bundling script, a SAM template streaming from a Function URL, and a README section', () => {
    const { paths, text } = project(['lambda']);
    expect(paths).toEqual(expect.arrayContaining(['src/targets/lambda.ts', 'template.yaml']));
    const template = text('template.yaml') as string;
    expect(template).toContain('FunctionUrlConfig:');
    expect(template).toContain('InvokeMode: RESPONSE_STREAM');
    expect(template).toContain('CodeUri: dist/lambda/');
    // secrets are NoEcho parameters, given at deploy, never values in the file
    expect(template).toMatch(/ {2}ThingsKey:\n {4}Type: String\n {4}NoEcho: true/);
    expect(template).toContain('THINGS_KEY: !Ref ThingsKey');
    expect(template).toMatch(/ {2}McpAuthToken:\n {4}Type: String\n {4}NoEcho: true/);
    const pkg = JSON.parse(text('package.json') as string) as { devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.scripts['build:lambda']).toMatch(/^esbuild src\/targets\/lambda\.ts --bundle .*--outfile=dist\/lambda\/index\.mjs/);
    expect(pkg.devDependencies.esbuild).toMatch(/^\d+\.\d+\.\d+$/);
    const readme = text('README.md') as string;
    expect(readme).toContain('npm run build:lambda && sam deploy --guided');
    expect(readme).toContain('`ThingsKey` for `THINGS_KEY`');
    expect(readme).toContain('sam deploy --parameter-overrides');
  });

  it('node alone adds no platform file, and the README names no platform', () => {
    const { paths, text } = project();
    expect(paths.filter((p) => p.startsWith('src/targets/') || p === 'wrangler.jsonc' || p === 'deno.json')).toEqual([]);
    expect(text('README.md')).not.toMatch(/## Cloudflare Workers|## Deno/);
  });

  it('cloudflare adds its entry, a wrangler config without secrets, wrangler pinned, and a README section', () => {
    const { paths, text } = project(['node', 'cloudflare']);
    expect(paths).toEqual(expect.arrayContaining(['src/targets/cloudflare.ts', 'wrangler.jsonc']));
    const wrangler = text('wrangler.jsonc') as string;
    expect(wrangler).toContain('"main": "src/targets/cloudflare.ts"');
    expect(wrangler).toContain('"name": "things-mcp"');
    expect(wrangler).not.toMatch(/THINGS_KEY/);
    // 2025-era sessions: the entry's Durable Object class, bound and migrated as SQLite-backed (the free plan's kind)
    expect(wrangler).toContain('"durable_objects": { "bindings": [{ "name": "MCP_SESSIONS", "class_name": "McpSession" }] }');
    expect(wrangler).toContain('"migrations": [{ "tag": "v1", "new_sqlite_classes": ["McpSession"] }]');
    expect(text('src/targets/cloudflare.ts')).toContain('export class McpSession extends DurableObject');
    const pkg = JSON.parse(text('package.json') as string) as { devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.devDependencies.wrangler).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.scripts['deploy:cloudflare']).toBe('wrangler deploy');
    const readme = text('README.md') as string;
    expect(readme).toContain('npx wrangler dev');
    expect(readme).toContain('npx wrangler secret put THINGS_KEY');
    expect(text('.gitignore')).toContain('.dev.vars');
    // the token store's Durable Object: exported by the entry, bound by the commented lines of wrangler.jsonc
    expect(text('src/targets/cloudflare.ts')).toContain('export { TokenStoreObject } from');
    expect(wrangler).toContain('// "durable_objects": { "bindings": [{ "name": "MCP_TOKENS", "class_name": "TokenStoreObject" }] },');
    // the project's tsc leaves the platforms' entries to the platforms' own tools
    expect(JSON.parse(text('tsconfig.json') as string).exclude).toEqual(['src/targets']);
  });

  it('deno adds its entry and a deno.json whose start task the README gives', () => {
    const { paths, text } = project(['deno']);
    expect(paths).toEqual(expect.arrayContaining(['src/targets/deno.ts', 'deno.json']));
    expect(JSON.parse(text('deno.json') as string).tasks.start).toContain('src/targets/deno.ts');
    expect(text('README.md')).toContain('deno task start');
  });

  it("serves code mode on every target: on Workers its QuickJS is the entry's imported WebAssembly module", () => {
    expect(targetProblem({ serve: { mode: 'code', pinned: [] } }, ['node', 'cloudflare'])).toBeUndefined();
    expect(targetProblem({ serve: { mode: 'code', pinned: [] } }, ['node', 'deno'])).toBeUndefined();
    expect(targetProblem({ serve: { mode: 'dynamic', pinned: [] } }, ['cloudflare'])).toBeUndefined();
    const { text } = project(['cloudflare']);
    // workerd compiles no WebAssembly at run time: wrangler bundles it as a module, compiled at deploy
    expect(text('src/targets/cloudflare.ts')).toContain("import quickjsWasm from '@jitl/quickjs-wasmfile-release-sync/wasm'");
    expect(text('wrangler.jsonc')).toContain('"type": "CompiledWasm", "globs": ["**/quickjs-wasmfile-release-sync/wasm"]');
  });
});
