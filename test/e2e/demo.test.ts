// The README's first command, as a new user runs it: `npm run demo` (scripts/demo.js) generates,
// installs, builds and starts the Petstore server against a local Petstore API, and the command
// it prints makes a real tool call. Nothing here reaches beyond 127.0.0.1, which is what makes
// the demo work on a machine without internet.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, TMP } from '../../harness/project.js';
import { freePort, stopChild } from '../../harness/process.js';

const run = promisify(execFile);

describe('npm run demo', () => {
  let demo: ChildProcess;
  let output = '';
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    demo = spawn('node', [join(REPO, 'scripts/demo.js')], {
      cwd: REPO,
      env: { ...process.env, PORT: String(port), DEMO_DIR: join(TMP, 'demo-petstore') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    demo.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Ready once the server says where it listens (after npm install and the build).
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo not ready in 240 s:\n${output}`)), 240_000);
      const check = () => {
        if (new RegExp(`on http://127\\.0\\.0\\.1:${port}`).test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      demo.stdout?.on('data', check);
      demo.stderr?.on('data', check);
      demo.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`demo exited with ${code}:\n${output}`));
      });
    });
  }, 250_000);

  afterAll(async () => {
    if (demo) await stopChild(demo);
  });

  it('serves against a local Petstore API and prints the command for a tool call', () => {
    expect(output).toMatch(/Petstore API \(local, in memory\): http:\/\/127\.0\.0\.1:\d+\/v2/);
    expect(output).toContain(`PORT=${port} node scripts/demo-call.js getPetById '{"petId":1}'`);
    expect(output).not.toMatch(/Next:/);
  });

  it('the printed command makes a real tool call that the local API answers', async () => {
    const { stdout } = await run('node', [join(REPO, 'scripts/demo-call.js'), 'getPetById', '{"petId":1}'], {
      cwd: REPO,
      env: { ...process.env, PORT: String(port) },
    });
    expect(stdout).toContain(`http://127.0.0.1:${port}/mcp: 20 tools`);
    expect(JSON.parse(stdout.split('\n').find((line) => line.startsWith('{')) ?? '{}')).toMatchObject({
      id: 1,
      name: 'doggie',
      status: 'available',
    });
  });

  it('state lives in the local API: a pet added by one call is found by the next', async () => {
    const env = { ...process.env, PORT: String(port) };
    await run(
      'node',
      [join(REPO, 'scripts/demo-call.js'), 'addPet', '{"body":{"id":42,"name":"Nemo","photoUrls":[],"status":"pending"}}'],
      { cwd: REPO, env },
    );
    const { stdout } = await run('node', [join(REPO, 'scripts/demo-call.js'), 'findPetsByStatus', '{"status":["pending"]}'], {
      cwd: REPO,
      env,
    });
    expect(stdout).toContain('"name":"Nemo"');
    expect(stdout).toContain('"name":"Kitty"');
  });

  it('an upstream 404 is a tool error, and demo-call exits non-zero', async () => {
    const failed = await run('node', [join(REPO, 'scripts/demo-call.js'), 'getPetById', '{"petId":999}'], {
      cwd: REPO,
      env: { ...process.env, PORT: String(port) },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toContain('HTTP 404');
    expect(failed?.stdout).toContain('Pet not found');
  });
});
