// The CLI as published: bin/mcp-gen.js runs one bundled file (scripts/bundle-cli.js), which must
// write what tsc's build of the same sources writes, byte for byte, and load nothing else but
// the compiler's worker.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPO } from '../../harness/project.js';

const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-bundled-cli-'));

/** `node <argv> petstore.json --out petstore-mcp --force` in a folder of its own; answers the project's folder and stdout (that folder as `<cwd>`). */
function generate(label: string, argv: string[], env: Record<string, string> = {}): { dir: string; stdout: string } {
  const cwd = join(scratch, label);
  mkdirSync(cwd, { recursive: true });
  const run = spawnSync(process.execPath, [...argv, PETSTORE, '--out', 'petstore-mcp', '--force'], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return { dir: join(cwd, 'petstore-mcp'), stdout: run.stdout.replaceAll(cwd, '<cwd>') };
}

/** Every file below `dir`, relative path → contents. */
function contents(dir: string): Map<string, Buffer> {
  const files = (readdirSync(dir, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(dir.length + 1)
        .split(sep)
        .join('/'),
    )
    .sort();
  return new Map(files.map((file) => [file, readFileSync(join(dir, file))]));
}

describe('the bundled CLI', () => {
  beforeAll(() => buildCli());
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('writes the same project, byte for byte, and prints the same summary as the unbundled build', () => {
    const bundled = generate('bundled', [join(REPO, 'bin/mcp-gen.js')]);
    const unbundled = generate('unbundled', [join(REPO, 'dist/src/cli.js')]);
    const files = contents(bundled.dir);
    expect(files.has('src/tool-types.ts')).toBe(true);
    expect([...files.keys()]).toEqual([...contents(unbundled.dir).keys()]);
    for (const [file, bytes] of contents(unbundled.dir))
      expect({ file, same: bytes.equals(files.get(file) as Buffer) }).toEqual({ file, same: true });
    expect(bundled.stdout).toBe(unbundled.stdout);
  });

  it('loads one file for a generation, and the compiler worker its own bundle and the compiler', () => {
    const log = join(scratch, 'modules.log');
    generate('modules', ['--import', join(REPO, 'test/harness/module-log.mjs'), join(REPO, 'bin/mcp-gen.js')], { MODULE_LOG: log });
    const loaded = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))]
      .map((file) => file.slice(REPO.length).split(sep).join('/'))
      // Node 22+ requires the compiler (ts-morph's typescript.js) as a module; Node 20 compiles it with V8's code cache
      .filter((file) => !file.endsWith('/@ts-morph/common/dist/typescript.js'))
      .sort();
    expect(loaded).toEqual(['bin/mcp-gen.js', 'dist/bundle/cli.mjs', 'dist/bundle/types-worker.mjs']);
  });
});
