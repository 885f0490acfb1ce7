// Into a folder that does not exist yet, the project is written before its last file is made
// (src/tool-types.ts, printed in a worker): startFreshWrite writes the files at hand,
// finish() the rest and the manifest. The folder must end as writeProject leaves it, and a run
// that fails before finishing must leave nothing behind.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GeneratedFile } from '../../../src/emit/project.js';
import { MANIFEST, startFreshWrite, writeProject, type WriteOptions } from '../../../src/write/write.js';

const sandbox = mkdtempSync(join(tmpdir(), 'mcp-gen-fresh-write-'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

const OPTIONS: WriteOptions = { force: false, check: false, dryRun: false, generator: 'mcp-gen@test', specName: 'spec.yaml' };
const EARLY: GeneratedFile[] = [
  { path: 'README.md', contents: '# demo\n', owner: 'generated' },
  { path: 'lib/runtime/main.js', contents: '// main\n', owner: 'generated' },
  { path: 'src/hooks.ts', contents: '// hooks\n', owner: 'user' },
  { path: 'tools.json', contents: Buffer.from('{"tools":[]}\n'), owner: 'generated' },
];
const LATE: GeneratedFile = { path: 'src/tool-types.ts', contents: '// types\n', owner: 'generated' };
const ALL = [...EARLY, LATE].sort((a, b) => (a.path < b.path ? -1 : 1));

/** Every file below `dir`: relative path → text. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }) as {
    name: string;
    parentPath: string;
    isFile(): boolean;
  }[])
    if (entry.isFile())
      out[
        join(entry.parentPath, entry.name)
          .slice(dir.length + 1)
          .split(sep)
          .join('/')
      ] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  return out;
}

describe('writing a new folder while its last file is made', () => {
  it('ends with the files, manifest and plan that writeProject gives', () => {
    const begun = startFreshWrite(join(sandbox, 'fresh'), EARLY.slice(0, 2), OPTIONS);
    expect(begun).toBeDefined();
    begun?.add(EARLY);
    expect(existsSync(join(sandbox, 'fresh', MANIFEST))).toBe(false); // no manifest before the last file
    const plan = begun?.finish(ALL);
    const reference = writeProject(join(sandbox, 'reference'), ALL, OPTIONS);
    expect(plan).toEqual(reference);
    expect(contents(join(sandbox, 'fresh'))).toEqual(contents(join(sandbox, 'reference')));
  });

  it('leaves no folder behind when the run fails before finishing, nor the folders made on the way', () => {
    const begun = startFreshWrite(join(sandbox, 'failed', 'deeper', 'out'), EARLY, OPTIONS);
    expect(begun).toBeDefined();
    begun?.abandon();
    expect(existsSync(join(sandbox, 'failed'))).toBe(false);
  });

  it('fails the run, rather than write through, when something appears where a file goes', () => {
    const begun = startFreshWrite(join(sandbox, 'raced'), [], OPTIONS);
    mkdirSync(join(sandbox, 'raced', 'src', 'tool-types.ts'), { recursive: true });
    expect(() => begun?.finish(ALL)).toThrow(/EEXIST/);
    expect(existsSync(join(sandbox, 'raced', MANIFEST))).toBe(false);
    begun?.abandon();
    expect(existsSync(join(sandbox, 'raced'))).toBe(false);
  });

  it('does not begin into a folder that exists, nor for --check or --dry-run: writeProject decides then', () => {
    mkdirSync(join(sandbox, 'existing'));
    expect(startFreshWrite(join(sandbox, 'existing'), EARLY, OPTIONS)).toBeUndefined();
    expect(readdirSync(join(sandbox, 'existing'))).toEqual([]);
    for (const mode of [{ check: true }, { dryRun: true }]) {
      expect(startFreshWrite(join(sandbox, 'asked'), EARLY, { ...OPTIONS, ...mode })).toBeUndefined();
      expect(existsSync(join(sandbox, 'asked'))).toBe(false);
    }
  });
});
