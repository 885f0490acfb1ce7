// The output folder is untrusted: it may hold links and a tampered .mcp-gen.json (a cloned
// repository can carry both), and a config file may come with it. writeProject runs on real
// temporary folders; the last checks run the built CLI as a child process.
import { createHash } from 'node:crypto';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeneratedFile } from '../../../src/emit/project.js';
import { OptionsError, OutputError } from '../../../src/errors.js';
import { readConfigFile } from '../../../src/options.js';
import { MANIFEST, writeProject, type WriteOptions, type WritePlan } from '../../../src/write/write.js';
import { buildCli, REPO } from '../../../harness/project.js';
import { runCli } from '../../harness/cli.js';

const sandbox = mkdtempSync(join(tmpdir(), 'mcp-gen-write-security-'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));
let cases = 0;

/** A fresh pair of folders: `out` for mcp-gen (not created) and `outside`, holding a victim file. */
function fresh(): { out: string; outside: string; victim: string } {
  const base = join(sandbox, String(++cases));
  const outside = join(base, 'outside');
  mkdirSync(outside, { recursive: true });
  const victim = join(outside, 'victim');
  writeFileSync(victim, 'precious\n');
  return { out: join(base, 'out'), outside, victim };
}

const FILES: GeneratedFile[] = [
  { path: 'README.md', contents: '# demo\n', owner: 'generated' },
  { path: 'Dockerfile', contents: 'FROM node:20\n', owner: 'generated' },
  { path: 'src/main.ts', contents: '// main\n', owner: 'generated' },
  { path: 'src/runtime/mcp/server.ts', contents: '// server\n', owner: 'generated' },
  { path: 'src/hooks.ts', contents: '// hooks\n', owner: 'user' },
];

function write(out: string, options: Partial<WriteOptions> = {}, files = FILES): WritePlan {
  return writeProject(out, files, {
    force: false,
    check: false,
    dryRun: false,
    generator: 'mcp-gen@test',
    specName: 'spec.yaml',
    ...options,
  });
}

/** Generates FILES into `out`, then lets `change` edit the manifest's file list. */
function generatedWithManifest(out: string, change: (files: Record<string, string>) => void): void {
  write(out);
  const manifest = JSON.parse(readFileSync(join(out, MANIFEST), 'utf8')) as { files: Record<string, string> };
  change(manifest.files);
  writeFileSync(join(out, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Everything below dir: file contents, and links as `-> target` (never followed). */
function snapshot(dir: string): Record<string, string> {
  const seen: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const stats = lstatSync(full);
      if (stats.isSymbolicLink()) seen[relative(dir, full)] = `-> ${readlinkSync(full)}`;
      else if (stats.isDirectory()) walk(full);
      else seen[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return seen;
}

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, none was thrown');
}

describe('a tampered manifest cannot reach outside the output folder', () => {
  it('refuses "../victim" listed with the victim’s own hash, deleting nothing', () => {
    const { out, victim } = fresh();
    generatedWithManifest(out, (files) => (files['../outside/victim'] = sha256('precious\n')));
    const before = snapshot(out);
    const error = thrown(() => write(out));
    expect(error).toBeInstanceOf(OutputError);
    expect(error.message).toBe(
      '.mcp-gen.json lists "../outside/victim", which is outside the output folder; delete .mcp-gen.json to start afresh',
    );
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(snapshot(out)).toEqual(before);
    // --force does not change that
    expect(thrown(() => write(out, { force: true }))).toBeInstanceOf(OutputError);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  const entries: [string, (victim: string) => string, RegExp][] = [
    ['an absolute path', (victim) => victim, /which is outside the output folder/],
    ['a .. in the middle', () => 'src/../../outside/victim', /which is outside the output folder/],
    ['a backslash', () => '..\\outside\\victim', /which is not a plain relative path/],
    ['a NUL', () => 'src/main.ts\0x', /which is not a plain relative path/],
    ['a ./ segment', () => './src/main.ts', /which is not a plain relative path/],
  ];
  it.each(entries)('refuses an entry with %s, in every mode', (_name, entry, message) => {
    const { out, victim } = fresh();
    generatedWithManifest(out, (files) => (files[entry(victim)] = sha256('precious\n')));
    for (const mode of [{}, { force: true }, { check: true }, { dryRun: true }]) {
      const error = thrown(() => write(out, mode));
      expect(error).toBeInstanceOf(OutputError);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\n');
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });
});

describe('links inside the output folder are refused, never followed', () => {
  it('src replaced by a link to another folder: nothing is written there, even for files the manifest does not list', () => {
    const { out, outside } = fresh();
    write(out);
    rmSync(join(out, 'src'), { recursive: true });
    symlinkSync(outside, join(out, 'src'));
    const error = thrown(() => write(out));
    expect(error).toBeInstanceOf(OutputError);
    expect(error.message).toBe('src is a symbolic link; mcp-gen does not write through links');
    expect(readdirSync(outside)).toEqual(['victim']);
  });

  it('a generated file replaced by a link: refused even with --force, the target untouched', () => {
    const { out, victim } = fresh();
    write(out);
    rmSync(join(out, 'README.md'));
    symlinkSync(victim, join(out, 'README.md'));
    for (const mode of [{}, { force: true }, { check: true }]) {
      const error = thrown(() => write(out, mode));
      expect(error).toBeInstanceOf(OutputError);
      expect(error.message).toBe('README.md is a symbolic link; mcp-gen does not write through links');
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a dangling link where a new file goes does not create its target', () => {
    const { out, outside } = fresh();
    write(
      out,
      {},
      FILES.filter((f) => f.path !== 'Dockerfile'),
    );
    symlinkSync(join(outside, 'planted'), join(out, 'Dockerfile'));
    expect(thrown(() => write(out, { force: true })).message).toBe('Dockerfile is a symbolic link; mcp-gen does not write through links');
    expect(existsSync(join(outside, 'planted'))).toBe(false);
  });

  it('.mcp-gen.json as a link is neither read nor written through', () => {
    const { out, outside } = fresh();
    write(out);
    const elsewhere = join(outside, 'manifest.json');
    writeFileSync(elsewhere, readFileSync(join(out, MANIFEST)));
    rmSync(join(out, MANIFEST));
    symlinkSync(elsewhere, join(out, MANIFEST));
    const before = readFileSync(elsewhere, 'utf8');
    expect(thrown(() => write(out, { generator: 'mcp-gen@next' })).message).toBe(
      '.mcp-gen.json is a symbolic link; mcp-gen does not write through links',
    );
    expect(readFileSync(elsewhere, 'utf8')).toBe(before);
  });

  it('a stale generated file is not deleted through a linked folder', () => {
    const { out, outside } = fresh();
    writeFileSync(join(outside, 'old.ts'), '// old\n');
    generatedWithManifest(out, (files) => (files['legacy/old.ts'] = sha256('// old\n')));
    symlinkSync(outside, join(out, 'legacy'));
    expect(thrown(() => write(out)).message).toBe('legacy is a symbolic link; mcp-gen does not write through links');
    expect(readFileSync(join(outside, 'old.ts'), 'utf8')).toBe('// old\n');
  });

  it('a hard link planted at a generated file is replaced, not written through', () => {
    const { out, victim } = fresh();
    generatedWithManifest(out, (files) => (files['README.md'] = sha256('precious\n')));
    rmSync(join(out, 'README.md'));
    linkSync(victim, join(out, 'README.md'));
    write(out);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toBe('# demo\n');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('--out itself may be a link (the user named it): the real folder is written, the link stays', () => {
    const { out, outside } = fresh();
    const real = join(outside, 'real');
    mkdirSync(real);
    symlinkSync(real, out);
    write(out);
    expect(lstatSync(out).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(real, 'src/main.ts'), 'utf8')).toBe('// main\n');
    expect(write(out).unchanged).toContain('src/main.ts');
    // but a link below it is still refused
    rmSync(join(real, 'src/runtime'), { recursive: true });
    symlinkSync(outside, join(real, 'src/runtime'));
    expect(thrown(() => write(out)).message).toBe('src/runtime is a symbolic link; mcp-gen does not write through links');
  });
});

describe('a file the manifest does not list belongs to the user', () => {
  const withoutDockerfile = FILES.filter((f) => f.path !== 'Dockerfile');

  it('a new version that starts generating a Dockerfile refuses to overwrite the user’s own, writing nothing', () => {
    const { out } = fresh();
    write(out, {}, withoutDockerfile);
    writeFileSync(join(out, 'Dockerfile'), 'FROM my-own-image\n');
    const before = snapshot(out);
    const error = thrown(() => write(out, { generator: 'mcp-gen@next' }));
    expect(error).toBeInstanceOf(OutputError);
    expect(error.message).toBe('Dockerfile exists and was not written by mcp-gen; move it away or pass --force');
    expect(snapshot(out)).toEqual(before);

    const plan = write(out, { force: true });
    expect(plan.updated).toContain('Dockerfile');
    expect(readFileSync(join(out, 'Dockerfile'), 'utf8')).toBe('FROM node:20\n');
  });

  it('names every such file', () => {
    const { out } = fresh();
    write(
      out,
      {},
      FILES.filter((f) => f.owner === 'user'),
    );
    writeFileSync(join(out, 'README.md'), 'mine\n');
    writeFileSync(join(out, 'Dockerfile'), 'mine too\n');
    expect(thrown(() => write(out)).message).toBe(
      'README.md, Dockerfile exist and were not written by mcp-gen; move them away or pass --force',
    );
  });

  it('--check counts it as drift and --dry-run says a real run would stop, both writing nothing', () => {
    const { out } = fresh();
    write(out, {}, withoutDockerfile);
    writeFileSync(join(out, 'Dockerfile'), 'FROM my-own-image\n');
    const before = snapshot(out);
    expect(write(out, { check: true }).updated).toContain('Dockerfile');
    const dry = write(out, { dryRun: true });
    expect(dry.updated).not.toContain('Dockerfile');
    expect(dry.kept).toContainEqual({
      path: 'Dockerfile',
      reason: 'exists and was not written by mcp-gen: a real run stops here unless --force',
    });
    expect(snapshot(out)).toEqual(before);
  });

  it('the same content is no conflict: it is recorded in the manifest', () => {
    const { out } = fresh();
    write(out, {}, withoutDockerfile);
    writeFileSync(join(out, 'Dockerfile'), 'FROM node:20\n');
    const plan = write(out);
    expect(plan.unchanged).toContain('Dockerfile');
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST), 'utf8')) as { files: Record<string, string> };
    expect(manifest.files.Dockerfile).toBe(sha256('FROM node:20\n'));
  });

  it('first generation with --force into a folder of the user’s, then regeneration, work as before', () => {
    const { out } = fresh();
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    writeFileSync(join(out, 'README.md'), 'old readme\n');
    expect(thrown(() => write(out)).message).toMatch(/is not empty and was not generated by mcp-gen/);
    write(out, { force: true });
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toBe('# demo\n');
    const before = snapshot(out);
    const again = write(out);
    expect(again.created.length + again.updated.length + again.removed.length).toBe(0);
    expect(snapshot(out)).toEqual(before);
    expect(before['notes.txt']).toBe('mine\n');
  });

  it('src/hooks.ts is still created once and never overwritten', () => {
    const { out } = fresh();
    write(out);
    writeFileSync(join(out, 'src/hooks.ts'), '// my hooks\n');
    expect(write(out, { force: true }).kept).toContainEqual({ path: 'src/hooks.ts', reason: 'yours (created once, never overwritten)' });
    expect(readFileSync(join(out, 'src/hooks.ts'), 'utf8')).toBe('// my hooks\n');
  });
});

describe('a config file may not set force, nor aim out at the user’s folders', () => {
  /** A config file in a fresh folder of its own. */
  function config(name: string, text: string): { file: string; dir: string } {
    const dir = join(sandbox, `config-${++cases}`);
    mkdirSync(dir);
    writeFileSync(join(dir, name), text);
    return { file: join(dir, name), dir };
  }

  it.each([['force: true\n'], ['force: false\n']])('refuses %j', (text) => {
    const { file } = config('mcp-gen.config.yaml', text);
    const error = thrown(() => readConfigFile(file));
    expect(error).toBeInstanceOf(OptionsError);
    expect(error.message).toBe(`${file}: "force" may only be given on the command line`);
  });

  it.each([['..'], ['../sibling'], ['.'], [''], ['/tmp/elsewhere'], ['gen/../..']])('refuses out: %j', (out) => {
    const { file } = config('mcp-gen.config.json', JSON.stringify({ out }));
    const error = thrown(() => readConfigFile(file));
    expect(error).toBeInstanceOf(OptionsError);
    expect(error.message).toBe(
      `${file}: "out" must be a folder inside the config file's folder; give any other with --out on the command line`,
    );
  });

  it('refuses an out that is a link leading outside', () => {
    const { file, dir } = config('mcp-gen.config.yaml', 'out: gen\n');
    symlinkSync(sandbox, join(dir, 'gen'));
    expect(thrown(() => readConfigFile(file))).toBeInstanceOf(OptionsError);
  });

  it('accepts out below the file’s folder, and check and dryRun', () => {
    const { file, dir } = config('mcp-gen.config.yaml', 'out: build/gen\ncheck: true\ndryRun: false\n');
    expect(readConfigFile(file)).toEqual({ out: join(dir, 'build/gen'), check: true, dryRun: false });
  });
});

describe('through the built CLI', () => {
  const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
  beforeAll(() => buildCli());

  const cli = runCli;

  it('a tampered manifest: exit 1, one line naming the entry, the victim kept', () => {
    const { out, victim } = fresh();
    expect(cli([PETSTORE, '--out', out, '--quiet'], sandbox).code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST), 'utf8')) as { files: Record<string, string> };
    manifest.files['../outside/victim'] = sha256('precious\n');
    writeFileSync(join(out, MANIFEST), JSON.stringify(manifest));
    const r = cli([PETSTORE, '--out', out, '--force'], sandbox);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mcp-gen: error: .mcp-gen.json lists "../outside/victim", which is outside the output folder; delete .mcp-gen.json to start afresh\n',
    );
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('src as a link: exit 1 naming it, nothing written through it', () => {
    const { out, outside } = fresh();
    mkdirSync(out);
    symlinkSync(outside, join(out, 'src'));
    const r = cli([PETSTORE, '--out', out, '--force'], sandbox);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcp-gen: error: src is a symbolic link; mcp-gen does not write through links\n');
    expect(readdirSync(outside)).toEqual(['victim']);
  });

  it('a config file with force: exit 2 naming the key, nothing generated', () => {
    const dir = join(sandbox, `cli-config-${++cases}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'mcp-gen.config.yaml'), `spec: ${JSON.stringify(PETSTORE)}\nout: gen\nforce: true\n`);
    const r = cli([], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`mcp-gen: error: ${join(dir, 'mcp-gen.config.yaml')}: "force" may only be given on the command line\n`);
    expect(existsSync(join(dir, 'gen'))).toBe(false);
  });
});
