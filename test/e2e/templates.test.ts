// The project templates as the built CLI renders them: precompiled at build time
// (scripts/precompile-templates.js → dist/templates.cjs), without loading Handlebars' compiler,
// and giving the very text that compiling them from templates/ gives (as from source here).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCli, REPO } from '../../harness/project.js';
import { modelFromOptions } from '../../src/generate.js';
import { emitProject } from '../../src/emit/project.js';

const TEMPLATED = ['package.json', 'README.md', '.env.example'];
const SPECS = ['samples/petstore/openapi.json', 'samples/petstore-swagger2/openapi.yaml'];

/** The templated files as the built CLI emits them, and the Handlebars modules it loaded. */
function builtRender(spec: string): { files: Record<string, string>; loaded: string[] } {
  const dist = (path: string) => JSON.stringify(pathToFileURL(join(REPO, 'dist/src', path)).href);
  const script = `
    import { createRequire } from 'node:module';
    const { modelFromOptions } = await import(${dist('generate.js')});
    const { emitProject } = await import(${dist('emit/project.js')});
    const { model } = await modelFromOptions({ spec: ${JSON.stringify(join(REPO, spec))} }, 'generate');
    const files = Object.fromEntries(emitProject(model, { specName: 'spec', dirName: 'out' }).files.map((f) => [f.path, String(f.contents)]));
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('handlebars'));
    process.stdout.write(JSON.stringify({ files, loaded }));`;
  // The project's files include the prebuilt runtime (lib/): megabytes, past execFileSync's 1 MB default.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(out) as ReturnType<typeof builtRender>;
}

describe('precompiled templates', () => {
  it.each(SPECS)('%s: the built CLI renders them precompiled, identical to compiling them', async (spec) => {
    buildCli();
    const built = builtRender(spec);
    const { model } = await modelFromOptions({ spec: join(REPO, spec) }, 'generate');
    const fromSource = Object.fromEntries(
      emitProject(model, { specName: 'spec', dirName: 'out' }).files.map((f) => [f.path, String(f.contents)]),
    );
    for (const path of TEMPLATED) {
      expect(built.files[path], path).toBeDefined();
      expect(built.files[path], path).toBe(fromSource[path]);
    }
    expect(built.loaded.some((k) => k.includes('runtime'))).toBe(true);
    expect(built.loaded.filter((k) => k.includes('/compiler/'))).toEqual([]);
  });
});
