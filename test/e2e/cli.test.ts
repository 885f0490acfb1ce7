// The built CLI, run as a child process exactly as a user runs it: `node bin/mcp-gen.js …`.
// Exit codes: 0 ok, 1 spec/output problem or drift under --check, 2 bad usage, 70 internal.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../harness/project.js';
import { startUpstream } from '../harness/upstream.js';
import { runCli } from '../harness/cli.js';
import type { ToolTable } from '../../src/contract/table.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/mcp-gen.js');
const PETSTORE = join(ROOT, 'samples/petstore/openapi.json');
const BAD_YAML = join(ROOT, 'test/fixtures/bad/invalid.yaml');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-cli-'));
let dirs = 0;
/** A new path inside the scratch folder (not created). */
const freshPath = (label: string) => join(scratch, `${++dirs}-${label}`);

const cli = (args: string[], cwd = scratch) => runCli(args, cwd);

/** Non-empty lines of a stream. */
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** Every file below dir (relative path → sha256). */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const full = join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** The Petstore spec without some operations, written as `<dir>/openapi.json` (same file name as the sample). */
function petstoreWithout(drop: [path: string, method: string][]): string {
  const doc = JSON.parse(readFileSync(PETSTORE, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  for (const [path, method] of drop) {
    delete doc.paths[path]?.[method];
    if (doc.paths[path] && Object.keys(doc.paths[path]).length === 0) delete doc.paths[path];
  }
  const dir = freshPath('spec');
  mkdirSync(dir);
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

/** Generates the Petstore into a new folder and returns it. */
function generated(label: string): string {
  const out = freshPath(label);
  const r = cli([PETSTORE, '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/src/cli.js'))) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// --- usage --------------------------------------------------------------------------------

describe('usage', () => {
  it('--help: exit 0, lists the options', () => {
    const r = cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: mcp-gen \[options\] \[specs\.\.\.\]/);
    for (const flag of ['--out', '--name', '--force', '--check', '--dry-run', '--allow-remote-refs', '--max-description', '--quiet']) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stderr).toBe('');
  });

  it.each([['--version'], ['-v']])('%s prints the package.json version', (flag) => {
    const r = cli([flag]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });

  const usageErrors: [string, { given: string[]; want: RegExp }][] = [
    ['an unknown flag', { given: [PETSTORE, '--bogus'], want: /unknown option '--bogus'/ }],
    ['no spec argument', { given: [], want: /missing required argument 'spec'|no spec given/ }],
    ['no spec argument, only flags', { given: ['--out', 'x'], want: /missing required argument 'spec'|no spec given/ }],
    ['--name that is no npm package name', { given: [PETSTORE, '--name', 'Bad Name!', '--out', 'never'], want: /--name/ }],
    ['--name with upper case', { given: [PETSTORE, '--name', 'MyServer', '--out', 'never'], want: /--name/ }],
    ['--max-description 0', { given: [PETSTORE, '--max-description', '0', '--out', 'never'], want: /--max-description/ }],
    ['--max-description not a number', { given: [PETSTORE, '--max-description', 'ten', '--out', 'never'], want: /--max-description/ }],
    ['--check with --dry-run', { given: [PETSTORE, '--check', '--dry-run', '--out', 'never'], want: /--check and --dry-run/ }],
  ];
  it.each(usageErrors)('%s: exit 2, one line on stderr, nothing written', (_name, { given, want }) => {
    const cwd = freshPath('usage');
    mkdirSync(cwd);
    const r = cli(given, cwd);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(want);
    expect(r.stdout).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

// --- spec errors --------------------------------------------------------------------------

describe('a spec that cannot be used', () => {
  const cases: [string, { given: string; want: RegExp }][] = [
    ['invalid YAML', { given: BAD_YAML, want: /^mcp-gen: error: .*invalid\.yaml:9:6: invalid YAML\/JSON: bad indentation/ }],
    [
      'a file that does not exist',
      { given: join(ROOT, 'test/fixtures/bad/no-such-spec.yaml'), want: /^mcp-gen: error: .*no-such-spec\.yaml: file not found$/ },
    ],
    ['a broken $ref', { given: join(ROOT, 'test/fixtures/bad/broken-ref.yaml'), want: /#\/components\/schemas\/Missing/ }],
  ];
  it.each(cases)('%s: exit 1, exactly one stderr line, no stack trace, no folder left', (_name, { given, want }) => {
    // the runtime's files are written into a new --out folder while the spec is read: a failed run removes it, and the folders made on the way
    const made = freshPath('bad');
    const out = join(made, 'nested', 'out');
    const r = cli([given, '--out', out]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(want);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
    expect(existsSync(made)).toBe(false);
  });

  it('a scheme that would make the server read GITHUB_TOKEN: the variable moves to GITHUB_MCP_TOKEN, and the summary says why', () => {
    const out = freshPath('steals');
    const r = cli([join(ROOT, 'test/fixtures/bad/steals-github-token.yaml'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'warning: credential variables start with GITHUB_MCP_: with the default prefix, the credential variable would be GITHUB_TOKEN, a well-known secret of another tool',
    );
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as { auth: { token: { env: object } } };
    expect(table.auth.token.env).toEqual({ token: 'GITHUB_MCP_TOKEN' });
    expect(readFileSync(join(out, '.env.example'), 'utf8')).not.toMatch(/^GITHUB_TOKEN=/m);
  });

  it('--env-prefix names the credential variables: the user may choose a well-known name on purpose', () => {
    const out = freshPath('prefix');
    const r = cli([join(ROOT, 'test/fixtures/bad/steals-github-token.yaml'), '--out', out, '--env-prefix', 'GITHUB', '--quiet']);
    expect(r.code).toBe(0);
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as { auth: { token: { env: object } } };
    expect(table.auth.token.env).toEqual({ token: 'GITHUB_TOKEN' });
    expect(readFileSync(join(out, '.env.example'), 'utf8')).toContain('GITHUB_TOKEN=');
    const bad = cli([PETSTORE, '--out', freshPath('bad-prefix'), '--env-prefix', 'lower-case']);
    expect(bad.code).toBe(2);
    expect(lines(bad.stderr)).toHaveLength(1);
  });

  it('a spec path relative to the working directory that does not exist: "file not found"', () => {
    const cwd = freshPath('relative');
    mkdirSync(cwd);
    const r = cli(['nope.yaml', '--out', 'out'], cwd);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual(['mcp-gen: error: nope.yaml: file not found']);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe("a new user's first mistakes: one line that says what to do", () => {
  it('a folder given as the spec: named, with the spec file inside it suggested', () => {
    const cwd = freshPath('folder');
    mkdirSync(join(cwd, 'api'), { recursive: true });
    writeFileSync(join(cwd, 'api/openapi.yaml'), readFileSync(PETSTORE));
    const r = cli(['api'], cwd);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual(['mcp-gen: error: api: is a folder, not a spec file: did you mean api/openapi.yaml?']);
  });

  it('a JSON file that is no OpenAPI document: what it lacks and what it has', () => {
    const cwd = freshPath('hello');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'hello.json'), '{"hello":"world"}');
    const r = cli(['hello.json'], cwd);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      'mcp-gen: error: hello.json#/: not an OpenAPI document: no "openapi" or "swagger" version field (its top-level keys are "hello")',
    ]);
  });

  it('serve with a mistyped server option: the server option it resembles', () => {
    const r = cli(['serve', PETSTORE, '--trasnport', 'http']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual(["error: unknown option '--trasnport'", '(Did you mean --transport?)']);
  });

  it('serve on a port in use: names the port and --port, exits non-zero', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as AddressInfo).port;
      const r = cli(['serve', PETSTORE, '--transport', 'http', '--port', String(port)]);
      expect(r.code).not.toBe(0);
      expect(lines(r.stderr).at(-1)).toBe(
        `swagger-petstore-mcp: port ${port} is already in use on 127.0.0.1: choose another with --port (or PORT)`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

// --- generating ---------------------------------------------------------------------------

describe('generating the Petstore', () => {
  it('exit 0; the summary names 20 tools and the next commands; the project is there', () => {
    const out = freshPath('petstore');
    const r = cli([PETSTORE, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^mcp-gen: generated swagger-petstore-mcp in .*: 20 tools, each listed as itself\n/);
    expect(r.stdout).toContain('Next:');
    expect(r.stdout).toContain('npm install && npm run build');
    expect(r.stdout).toMatch(/node dist\/main\.js/);
    for (const file of [
      'package.json',
      'README.md',
      'tsconfig.json',
      '.gitignore',
      '.env.example',
      'tools.json',
      '.mcp-gen.json',
      'src/main.ts',
      'src/hooks.ts',
      'lib/runtime/mcp/server.js',
      'lib/runtime/hooks-api.d.ts',
    ]) {
      expect(existsSync(join(out, file)), file).toBe(true);
    }
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as { tools: { name: string }[] };
    expect(table.tools).toHaveLength(20);
    const manifest = JSON.parse(readFileSync(join(out, '.mcp-gen.json'), 'utf8')) as {
      generator: string;
      spec: string;
      files: Record<string, string>;
    };
    expect(manifest.generator).toBe(`mcp-gen@${VERSION}`);
    expect(manifest.spec).toBe('openapi.json');
    expect(Object.keys(manifest.files)).toContain('tools.json');
    expect(Object.keys(manifest.files)).not.toContain('src/hooks.ts');
  });

  it('without --out: a folder named after the API in the working directory', () => {
    const cwd = freshPath('cwd');
    mkdirSync(cwd);
    const r = cli([PETSTORE], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual(['swagger-petstore-mcp']);
    expect(existsSync(join(cwd, 'swagger-petstore-mcp/tools.json'))).toBe(true);
  });

  it('--name sets the package name', () => {
    const out = freshPath('named');
    const r = cli([PETSTORE, '--out', out, '--name', 'my-pets']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')) as { name: string }).name).toBe('my-pets');
  });

  it('--quiet prints nothing', () => {
    const r = cli([PETSTORE, '--out', freshPath('quiet'), '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
  });

  it('regenerating gives byte-identical files', () => {
    const out = generated('again');
    const before = hashes(out);
    const r = cli([PETSTORE, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/files: 0 new, 0 updated, \d+ unchanged, 0 removed/);
    expect(hashes(out)).toEqual(before);
  });
});

// --- the output folder belongs to the user too --------------------------------------------

describe('protecting the user’s files', () => {
  it('refuses a non-empty folder it did not generate, touching nothing; --force writes beside the user’s file', () => {
    const out = freshPath('foreign');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'my notes\n');
    const refused = cli([PETSTORE, '--out', out]);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toHaveLength(1);
    expect(refused.stderr).toMatch(/not empty/);
    expect(refused.stderr).toMatch(/--force/);
    expect(readdirSync(out)).toEqual(['notes.txt']);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('my notes\n');

    const forced = cli([PETSTORE, '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('my notes\n');
    expect(existsSync(join(out, 'tools.json'))).toBe(true);

    // from now on the folder is mcp-gen's: no --force needed, and the user's file stays
    const again = cli([PETSTORE, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('my notes\n');
  });

  it('src/hooks.ts edited by the user survives regeneration, even with --force', () => {
    const out = generated('hooks');
    const mine = '// my hooks\nexport default {};\n';
    writeFileSync(join(out, 'src/hooks.ts'), mine);
    const r = cli([PETSTORE, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('kept src/hooks.ts');
    expect(readFileSync(join(out, 'src/hooks.ts'), 'utf8')).toBe(mine);
    const forced = cli([PETSTORE, '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, 'src/hooks.ts'), 'utf8')).toBe(mine);
  });

  it('a generated file edited by hand: exit 1 naming it, nothing written; --force overwrites it', () => {
    const out = generated('edited');
    const original = readFileSync(join(out, 'README.md'), 'utf8');
    const edited = original + '\nMy own notes.\n';
    writeFileSync(join(out, 'README.md'), edited);
    const before = hashes(out);

    const r = cli([PETSTORE, '--out', out]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/edited by hand: README\.md;/);
    expect(r.stderr).toMatch(/--force/);
    expect(hashes(out)).toEqual(before);

    const forced = cli([PETSTORE, '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toBe(original);
  });

  it('a hand edit is caught even when the spec changed too', () => {
    const out = generated('edited-and-changed');
    writeFileSync(join(out, 'tools.json'), '{}\n');
    const r = cli([petstoreWithout([['/user/logout', 'get']]), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/tools\.json/);
    expect(readFileSync(join(out, 'tools.json'), 'utf8')).toBe('{}\n');
  });
});

// --- --check and --dry-run ----------------------------------------------------------------

describe('--check', () => {
  it('exit 0 when the folder is up to date', () => {
    const out = generated('check-ok');
    const r = cli([PETSTORE, '--out', out, '--check']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/is up to date \(20 tools\)/);
  });

  it('exit 1 listing the files a spec change would touch, writing nothing', () => {
    const out = generated('check-drift');
    const before = hashes(out);
    const r = cli([petstoreWithout([['/user/logout', 'get']]), '--out', out, '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/is out of date/);
    expect(lines(r.stdout)).toContain('  ~ tools.json');
    expect(lines(r.stdout)).toContain('  ~ README.md');
    expect(hashes(out)).toEqual(before);
  });

  it('exit 1 listing a generated file edited by hand', () => {
    const out = generated('check-edit');
    writeFileSync(join(out, 'lib/runtime/mcp/server.js'), '// changed\n');
    const r = cli([PETSTORE, '--out', out, '--check']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toContain('  ~ lib/runtime/mcp/server.js');
    expect(readFileSync(join(out, 'lib/runtime/mcp/server.js'), 'utf8')).toBe('// changed\n');
  });

  it('exit 1 listing a deleted generated file', () => {
    const out = generated('check-deleted');
    rmSync(join(out, 'tsconfig.json'));
    const r = cli([PETSTORE, '--out', out, '--check']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toContain('  + tsconfig.json');
    expect(existsSync(join(out, 'tsconfig.json'))).toBe(false);
  });

  it('an edited src/hooks.ts is no drift', () => {
    const out = generated('check-hooks');
    writeFileSync(join(out, 'src/hooks.ts'), '// mine\n');
    expect(cli([PETSTORE, '--out', out, '--check']).code).toBe(0);
  });
});

describe('--dry-run', () => {
  it('writes nothing into a new folder', () => {
    const out = freshPath('dry');
    const r = cli([PETSTORE, '--out', out, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/would generate swagger-petstore-mcp in .*: 20 tools,/);
    expect(r.stdout).not.toContain('Next:');
    expect(existsSync(out)).toBe(false);
  });

  it('writes nothing into an existing project when the spec changed', () => {
    const out = generated('dry-existing');
    const before = hashes(out);
    const r = cli([petstoreWithout([['/user/logout', 'get']]), '--out', out, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/would generate swagger-petstore-mcp in .*: 19 tools,/);
    expect(hashes(out)).toEqual(before);
  });
});

// --- stale files --------------------------------------------------------------------------

describe('stale generated files', () => {
  /** Pretends an earlier generation wrote `path` (listed in the manifest with this content's hash). */
  function plantGenerated(out: string, path: string, contents: string, recorded = contents): void {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), contents);
    const manifestPath = join(out, '.mcp-gen.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { files: Record<string, string> };
    manifest.files[path] = createHash('sha256').update(recorded).digest('hex');
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  }

  it('after the spec loses an operation: the tool is gone and files no longer generated are removed', () => {
    const out = generated('stale');
    plantGenerated(out, 'src/legacy/old-tool.ts', '// generated by an earlier run\n');
    const r = cli([petstoreWithout([['/user/logout', 'get']]), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 19 tools, /);
    expect(r.stdout).toMatch(/, 1 removed/);
    expect(existsSync(join(out, 'src/legacy/old-tool.ts'))).toBe(false);
    expect(existsSync(join(out, 'src/legacy'))).toBe(false);
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as { tools: { name: string }[] };
    expect(table.tools.map((t) => t.name)).not.toContain('logoutUser');
    expect(table.tools).toHaveLength(19);
    const manifest = JSON.parse(readFileSync(join(out, '.mcp-gen.json'), 'utf8')) as { files: Record<string, string> };
    expect(Object.keys(manifest.files)).not.toContain('src/legacy/old-tool.ts');
    // and the result is what a fresh generation from the new spec gives
    const fresh = join(freshPath('stale-fresh'), basename(out)); // the README names the folder
    expect(cli([petstoreWithout([['/user/logout', 'get']]), '--out', fresh]).code).toBe(0);
    expect(hashes(out)).toEqual(hashes(fresh));
  });

  it('a project from before the runtime moved to lib/: its own src/hooks.ts is kept, and the CLI says which import to change', () => {
    const out = generated('hooks-before-lib');
    const hooks = join(out, 'src/hooks.ts');
    const before = readFileSync(hooks, 'utf8').replace("'../lib/runtime/hooks-api.js'", "'./runtime/hooks-api.js'");
    writeFileSync(hooks, before);
    const r = cli([PETSTORE, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "kept src/hooks.ts: yours, but it imports ./runtime/, which moved to lib/: change './runtime/hooks-api.js' to '../lib/runtime/hooks-api.js'",
    );
    expect(readFileSync(hooks, 'utf8')).toBe(before);
  });

  it('a stale file the user edited since is kept, and said so', () => {
    const out = generated('stale-edited');
    plantGenerated(out, 'lib/runtime/old.js', '// edited by the user\n', '// as generated\n');
    const r = cli([PETSTORE, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('kept lib/runtime/old.js');
    expect(readFileSync(join(out, 'lib/runtime/old.js'), 'utf8')).toBe('// edited by the user\n');
  });

  it('--check reports a stale file as drift', () => {
    const out = generated('stale-check');
    plantGenerated(out, 'src/legacy.ts', '// old\n');
    const r = cli([PETSTORE, '--out', out, '--check']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toContain('  - src/legacy.ts');
    expect(existsSync(join(out, 'src/legacy.ts'))).toBe(true);
  });
});

describe('diff under a config file', () => {
  it("diff and generate agree on tool names: the config file's names and selection apply to both", () => {
    const dir = freshPath('diff-config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'mcp-gen.config.json'),
      JSON.stringify({ excludeTags: ['store'], tools: { getPetById: { name: 'fetch_pet' }, logoutUser: { name: 'sign_out' } } }),
    );
    const newer = petstoreWithout([
      ['/user/logout', 'get'],
      ['/pet/{petId}', 'get'],
      ['/store/inventory', 'get'],
    ]);
    const r = cli(['diff', PETSTORE, newer, '--json'], dir);
    expect(r.code, r.stderr).toBe(0);
    const { changes } = JSON.parse(r.stdout) as { changes: { tool: string; what: string }[] };
    // Renamed as the config says, and nothing about the store tools the config leaves out.
    expect(changes.map((c) => c.tool).sort()).toEqual(['fetch_pet', 'sign_out']);
    const generated = join(dir, 'server');
    expect(cli([PETSTORE, '--out', generated], dir).code).toBe(0);
    const names = (JSON.parse(readFileSync(join(generated, 'tools.json'), 'utf8')) as { tools: { name: string }[] }).tools.map(
      (t) => t.name,
    );
    expect(names).toContain('fetch_pet');
    expect(names).toContain('sign_out');
    expect(names).not.toContain('getInventory');
  });

  it('--config names the file; a bad one is a one-line usage error', () => {
    const dir = freshPath('diff-bad-config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bad.json'), '{"includeTags": 5}');
    const r = cli(['diff', PETSTORE, PETSTORE, '--config', join(dir, 'bad.json')], dir);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('includeTags');
  });
});

// --- server URLs ---------------------------------------------------------------------------

describe('a server URL with a {variable} it does not define (a common spec mistake)', () => {
  const spec = () => {
    const file = join(freshPath('undefined-variable'), 'openapi.json');
    mkdirSync(dirname(file), { recursive: true });
    const ok = { '200': { description: 'ok' } };
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Regional', version: '1' },
        servers: [{ url: 'https://{region}.example.com/v1' }],
        paths: {
          '/things': { get: { operationId: 'listThings', responses: ok } },
          '/other': {
            get: {
              operationId: 'getOther',
              servers: [{ url: 'https://{tenant}.example.com/{v}', variables: { v: { default: '2' } } }],
              responses: ok,
            },
          },
        },
      }),
    );
    return file;
  };

  it('generates: exit 0, a warning naming each pointer, and the server is left out so --base-url is asked for', () => {
    const out = freshPath('undefined-variable-out');
    const r = cli([spec(), '--out', out]);
    expect(r.stderr).not.toContain('bug in mcp-gen');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'warning: #/servers/0/url: server URL https://{region}.example.com/v1 uses {region}, which its variables do not define: left out (give the URL with --base-url or API_BASE_URL)',
    );
    expect(r.stdout).toContain('warning: #/paths/~1other/get/servers/0/url: server URL https://{tenant}.example.com/{v} uses {tenant}');
    expect(r.stdout).toContain('--base-url https://your.api');
    const table = JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as ToolTable;
    expect(table.servers).toEqual([]);
    expect(table.tools.map((t) => t.http.servers)).toEqual([undefined, undefined]);
  });

  it('mcp-gen serve calls --base-url; without it a call answers isError naming --base-url and sends nothing', async () => {
    const upstream = await startUpstream(() => ({ body: '{"ok":true}' }));
    const file = spec();
    const argv = (...more: string[]) => [BIN, 'serve', file, '--log-level', 'error', ...more];
    const withBase = await connect('stdio', scratch, { argv: argv('--base-url', upstream.url) });
    const without = await connect('stdio', scratch, { argv: argv() });
    try {
      const sent = await withBase.callTool({ name: 'listThings', arguments: {} });
      expect(sent.isError).toBeFalsy();
      expect(upstream.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /things']);
      upstream.clear();
      const refused = await without.callTool({ name: 'getOther', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain(
        'getOther: no upstream base URL; start the server with --base-url or set API_BASE_URL',
      );
      expect(upstream.requests).toEqual([]);
    } finally {
      await Promise.all([withBase.close(), without.close()]);
      await upstream.close();
    }
  });
});
