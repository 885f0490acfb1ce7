// The compiler's code cache (src/emit/compiler.ts), through the built CLI: kept in the user's
// own cache folder, private to them, used by the next run without changing a byte of output,
// survived when damaged, and never written when Node's switch turns it off. And the compiler
// not needed at all when regenerating from the same tool table (generate.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPO } from '../../harness/project.js';

const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-compile-cache-'));
const cacheHome = join(scratch, 'cache-home');
const cacheDir = join(cacheHome, 'mcp-gen', 'compile-cache');

/** Generates `spec` with XDG_CACHE_HOME in the scratch folder; answers src/tool-types.ts. */
function generate(label: string, env: Record<string, string> = {}, spec = PETSTORE, home = cacheHome): string {
  const out = join(scratch, label);
  const run = spawnSync(process.execPath, [join(REPO, 'bin/mcp-gen.js'), spec, '--out', out, '--force', '-q'], {
    env: { ...process.env, XDG_CACHE_HOME: home, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return readFileSync(join(out, 'src/tool-types.ts'), 'utf8');
}

/** mcp-gen's own cache files (Node 22+ keeps its module cache in a versioned folder beside them). */
const cacheFiles = (dir = cacheDir) => {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.v8cache'))
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
};

describe('the compiler code cache', () => {
  beforeAll(() => buildCli());
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is not written when NODE_DISABLE_COMPILE_CACHE is set', () => {
    generate('off', { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(cacheFiles()).toEqual([]);
  });

  it('is written by the first run into a folder only its user can read, and the next run prints the same file', () => {
    const first = generate('first');
    const files = cacheFiles();
    expect(files.length).toBeGreaterThan(0);
    expect(statSync(cacheDir).mode & 0o077).toBe(0);
    for (const file of files) {
      expect(statSync(file).mode & 0o077).toBe(0);
      expect(statSync(file).size).toBeGreaterThan(100_000); // V8's code, not an empty marker
    }
    const mtimes = files.map((f) => statSync(f).mtimeMs);
    expect(generate('second')).toBe(first);
    expect(cacheFiles().map((f) => statSync(f).mtimeMs)).toEqual(mtimes); // used as it was, not rewritten
  });

  it('a damaged cache is rejected by V8 and replaced; the output does not change', () => {
    const before = generate('before-damage');
    for (const file of cacheFiles()) writeFileSync(file, Buffer.alloc(4096, 7));
    expect(generate('damaged')).toBe(before);
    for (const file of cacheFiles()) expect(statSync(file).size).toBeGreaterThan(100_000);
  });
});

describe('regenerating', () => {
  it('from an unchanged tool table keeps src/tool-types.ts without printing it; a changed spec prints it anew', () => {
    const home = join(scratch, 'regenerating-home');
    const first = generate('regenerated', {}, PETSTORE, home);
    rmSync(join(home, 'mcp-gen'), { recursive: true, force: true });
    expect(generate('regenerated', {}, PETSTORE, home)).toBe(first);
    // the printer saves the compiler's cache after printing: nothing printed, nothing saved
    expect(cacheFiles(join(home, 'mcp-gen', 'compile-cache'))).toEqual([]);

    const spec = JSON.parse(readFileSync(PETSTORE, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const [path, item] = Object.entries(spec.paths)[0] as [string, Record<string, { operationId?: string }>];
    const [method, operation] = Object.entries(item).find(([, op]) => op.operationId) as [string, { operationId: string }];
    spec.paths[path] = { ...item, [method]: { ...operation, operationId: 'renamedForTheTest' } };
    const changed = join(scratch, 'changed.json');
    writeFileSync(changed, JSON.stringify(spec));
    const reprinted = generate('regenerated', {}, changed, home);
    expect(reprinted).toContain('renamedForTheTest');
    expect(reprinted).not.toBe(first);
  });
});
