// Code mode on Cloudflare Workers (issue #40 item 5): the Petstore project generated with
// --target cloudflare --tools code, served by workerd through `wrangler dev` and driven by the
// official SDK client. Its QuickJS is the entry's imported WebAssembly module (workerd compiles
// none at run time), and programs run in the isolate itself: no worker thread can be ended there,
// so the CPU limit rests on QuickJS's interrupt handler alone.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { startWrangler, type PlatformServer } from '../harness/platforms.js';

const API_KEY = 'key-workers-code';
const TIME_MS = 1_000;
const MEMORY_MB = 16;

let dir: string | undefined;
let upstream: Upstream;
let server: PlatformServer | undefined;

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    const id = /^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1];
    if (req.method === 'GET' && id) return { body: JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }) };
    return { status: 404, body: JSON.stringify({ code: 404, message: `unexpected ${req.method} ${req.path}` }) };
  });
  // Outside this repository, as a user's project is.
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, join(tmpdir(), 'mcp-gen-e2e-workers-code'), [
    '--target',
    'cloudflare',
    '--tools',
    'code',
  ]);
  await buildProject(dir);
  const variables = [
    `API_BASE_URL=${upstream.url}/v2`,
    `SWAGGER_PETSTORE_API_KEY=${API_KEY}`,
    `MCP_CODE_TIME_MS=${TIME_MS}`,
    `MCP_CODE_MEMORY_MB=${MEMORY_MB}`,
    'LOG_LEVEL=warn',
  ];
  writeFileSync(join(dir, '.dev.vars'), `${variables.join('\n')}\n`);
  server = await startWrangler(dir, await freePort());
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function execute(code: string, negotiate = false) {
  const client = await connect('http', (server as PlatformServer).url, { negotiate });
  try {
    const started = Date.now();
    const result = await client.callTool({ name: 'execute', arguments: { code } });
    const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');
    return { result, text, ms: Date.now() - started };
  } finally {
    await client.close();
  }
}

describe.each([false, true])('code mode on workerd (negotiate: %s)', (negotiate) => {
  it('a program makes two calls in the sandbox, each reaching the API with the credential', async () => {
    upstream.clear();
    const code = 'const a = await api.getPetById({ petId: 4 }); const b = await api.getPetById({ petId: 5 }); return [a.name, b.name];';
    const { result, text } = await execute(code, negotiate);
    expect(result.isError, text).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: ['pet-4', 'pet-5'], calls: 2 });
    expect(upstream.requests.map((r) => [r.path, r.headers.api_key])).toEqual([
      ['/v2/pet/4', API_KEY],
      ['/v2/pet/5', API_KEY],
    ]);
  });
});

it('a program that loops forever is stopped by the CPU limit (the interrupt handler alone), and the server answers the next call', async () => {
  const { result, text, ms } = await execute('for (;;) {}');
  expect(result.isError).toBe(true);
  expect(text).toContain(`the program ran longer than its time limit of ${TIME_MS} ms`);
  // the limit, with the engine's start and the request's way there and back: no worker is ended here
  expect(ms).toBeLessThan(TIME_MS + 5_000);
  const next = await execute('return 1 + 1;');
  expect(next.result.isError, next.text).toBeFalsy();
  expect(next.result.structuredContent).toEqual({ result: 2, calls: 0 });
});

it('a program that allocates without end is stopped by the memory limit, and the server answers the next call', async () => {
  const { result, text } = await execute('const kept = []; for (;;) kept.push("x".repeat(1 << 16) + kept.length);');
  expect(result.isError).toBe(true);
  expect(text).toContain(`the program ran out of memory: its limit is ${MEMORY_MB} MiB`);
  const next = await execute('return "still here";');
  expect(next.result.structuredContent).toEqual({ result: 'still here', calls: 0 });
});

it('programs sent at once to one isolate each get their own answer: a loop stopped, a call made', async () => {
  upstream.clear();
  const [looping, calling] = await Promise.all([
    execute('for (;;) {}'),
    execute('const pet = await api.getPetById({ petId: 7 }); return pet.name;', true),
  ]);
  expect(looping.text).toContain(`the program ran longer than its time limit of ${TIME_MS} ms`);
  expect(calling.result.structuredContent, calling.text).toEqual({ result: 'pet-7', calls: 1 });
  expect(upstream.requests.map((r) => [r.path, r.headers.api_key])).toEqual([['/v2/pet/7', API_KEY]]);
});
