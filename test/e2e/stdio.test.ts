// stdio as desktop clients use it: stdout carries only JSON-RPC, a garbage line does not
// kill the server, and closing stdin ends it.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProject, generateProject, REPO } from '../../harness/project.js';
import { exitOf } from '../harness/children.js';

let dir: string;
beforeAll(async () => {
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-stdio');
  await buildProject(dir);
});

describe('stdio', () => {
  it('survives a garbage line, answers on stdout in JSON-RPC only, and exits when stdin closes', async () => {
    const child = spawn('node', [join(dir, 'dist/main.js')], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = exitOf(child).then((exit) => exit.code);
    const send = (message: object | string) => child.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    const waitFor = async (id: number) => {
      for (let i = 0; i < 100 && !stdout.includes(`"id":${id}`); i++) await new Promise((r) => setTimeout(r, 50));
    };

    send('this is not json {');
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await waitFor(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await waitFor(2);
    send({ jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'error' } });
    await waitFor(3);

    const lines = stdout.trim().split('\n');
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    const byId = new Map(lines.map((l) => JSON.parse(l) as { id?: number; result?: { tools?: unknown[] } }).map((m) => [m.id, m]));
    expect(byId.get(1)?.result).toBeDefined();
    expect(byId.get(2)?.result?.tools).toHaveLength(20);
    expect(byId.get(3)?.result).toEqual({});

    child.stdin.end();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 5_000))]);
    expect(code).toBe(0);
  });
});

describe('the bin', () => {
  it.each([['--version'], ['-v']])('%s prints the package name and version from its package.json and exits 0', (flag) => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
    const r = spawnSync('node', [join(dir, 'dist/main.js'), flag], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.name} ${pkg.version}\n`);
  });

  it('--help lists --version', () => {
    const r = spawnSync('node', [join(dir, 'dist/main.js'), '--help'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {2}--version +show the server's package name and version \(also -v\)$/m);
  });

  it("--clients prints each client's line with the real path of this dist/main.js and the credentials to fill in", () => {
    const r = spawnSync('node', [join(dir, 'dist/main.js'), '--clients'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const entry = realpathSync(join(dir, 'dist/main.js'));
    expect(r.stdout).toContain(
      `claude mcp add swagger-petstore -e 'SWAGGER_PETSTORE_API_KEY=<SWAGGER_PETSTORE_API_KEY>' -e 'SWAGGER_PETSTORE_AUTH_TOKEN=<SWAGGER_PETSTORE_AUTH_TOKEN>' -- node ${entry}`,
    );
    // the JSON blocks name the same entry, and every block is JSON as printed
    const blocks = r.stdout.split('\n\n').filter((block) => block.includes('\n{'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks)
      expect(JSON.stringify(JSON.parse(block.slice(block.indexOf('\n') + 1)))).toContain(JSON.stringify(entry).slice(1, -1));
  });
});
