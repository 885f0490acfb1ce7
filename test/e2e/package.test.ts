// The package as a user installs it: `npm pack`, the tarball installed into an empty folder
// outside the clone, then `mcp-gen` from there generates a project that builds and serves, and
// `mcp-gen serve` runs. Proves the `files` field and that runtime dependencies are dependencies.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, connect, REPO } from '../../harness/project.js';

const run = promisify(execFile);
// Outside the clone, so that nothing resolves from the clone's node_modules.
const HOME = join(tmpdir(), `mcp-gen-package-test-${process.pid}`);
const pack = join(HOME, 'pack');
const user = join(HOME, 'user');

describe('npm pack, installed into an empty folder', () => {
  let tarball: string;
  let files: string[];

  beforeAll(async () => {
    rmSync(HOME, { recursive: true, force: true });
    mkdirSync(pack, { recursive: true });
    mkdirSync(user, { recursive: true });
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', pack, '--loglevel=error'], {
      cwd: REPO,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    tarball = join(pack, packed?.filename ?? '');
    files = (packed?.files ?? []).map((f) => f.path);
    writeFileSync(join(user, 'package.json'), JSON.stringify({ name: 'user', private: true }));
    await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: user });
    copyFileSync(join(REPO, 'samples/petstore/openapi.json'), join(user, 'petstore.json'));
  }, 300_000);
  afterAll(() => {
    rmSync(HOME, { recursive: true, force: true });
  });

  it('is published as @mcp-gen/cli, with the CLI (bundled), the compiled generator, the prebuilt runtime and the templates, and no sources, tests or samples', () => {
    expect(tarball).toMatch(/mcp-gen-cli-\d+\.\d+\.\d+\.tgz$/);
    expect(files).toContain('bin/mcp-gen.js');
    // what bin/mcp-gen.js runs: the CLI bundled, and the compiler worker's bundle beside it
    expect(files).toContain('dist/bundle/cli.mjs');
    expect(files).toContain('dist/bundle/types-worker.mjs');
    expect(files).toContain('dist/src/cli.js');
    expect(files).toContain('dist/src/runtime/call/request/request.js');
    expect(files).toContain('dist/src/runtime/hooks-api.d.ts');
    expect(files).toContain('dist/src/contract/table.d.ts');
    expect(files).toContain('templates/project/package.json.hbs');
    expect(files.filter((f) => /^(src|test|samples|scripts|bench)\//.test(f))).toEqual([]);
  });

  it("`mcp-gen <spec>` from the user's folder writes a project there, which builds and answers tools/list", async () => {
    const { stdout } = await run(join(user, 'node_modules/.bin/mcp-gen'), ['petstore.json', '--out', 'petstore-mcp'], { cwd: user });
    expect(stdout).toContain('generated swagger-petstore-mcp in petstore-mcp: 20 tools, each listed as itself');
    expect(readdirSync(join(user, 'petstore-mcp'))).toContain('tools.json');
    await buildProject(join(user, 'petstore-mcp'));
    const client = await connect('stdio', join(user, 'petstore-mcp'), {
      args: ['--base-url', 'http://127.0.0.1:9'],
      env: { SWAGGER_PETSTORE_API_KEY: 'k', SWAGGER_PETSTORE_AUTH_TOKEN: 't' },
    });
    expect((await client.listTools()).tools).toHaveLength(20);
    await client.close();
  }, 120_000);

  it('`mcp-gen serve` runs from the installed package alone', async () => {
    const client = await connect('stdio', user, {
      argv: [join(user, 'node_modules/@mcp-gen/cli/bin/mcp-gen.js'), 'serve', 'petstore.json', '--base-url', 'http://127.0.0.1:9'],
      env: { SWAGGER_PETSTORE_API_KEY: 'k', SWAGGER_PETSTORE_AUTH_TOKEN: 't' },
    });
    expect((await client.listTools()).tools).toHaveLength(20);
    await client.close();
    expect(existsSync(join(user, 'node_modules/@modelcontextprotocol/server'))).toBe(true);
  }, 60_000);
});
