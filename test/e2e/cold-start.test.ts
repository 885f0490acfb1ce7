// Cold start (#30): a generated stdio server answers initialize from tools-summary.json, before it
// reads tools.json or loads the modules that serve it (the executor, ajv, the features' modules);
// they load on the first request that needs the table, and tools/list and tools/call work as
// ever. Watched from inside the server's process by an --import hook, as a profile would see it:
// every module resolved and every read of tools.json, up to the moment the first answer is written.
// The server is the project's bundle: a file loaded stands for the modules its build put in it.
// With each feature off, nothing of it is loaded even once the table is (#30): the modules of
// confirmations, long-running operations, tasks and account links load only with a table or
// settings that use them.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildProject, bundledSources, connect, generateProject, REPO, startNode } from '../../harness/project.js';
import { startUpstream, type Recorded, type Upstream } from '../harness/upstream.js';
import { JOBS_SPEC } from '../harness/specs.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-cold-start-'));
const json = (schema: object) => ({ 'application/json': { schema } });
const ITEM = { type: 'object', properties: { id: { type: 'string' }, size: { type: 'integer' } }, required: ['id'] };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Cold', version: '1' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { '200': { description: 'the item', content: json(ITEM) } },
      },
    },
    '/codes/{code}': {
      get: {
        operationId: 'getCode',
        parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Z]{3}$' } }],
        responses: { '200': { description: 'the code', content: json(ITEM) } },
      },
    },
  },
};

/** Writes `[cold-start] …` lines to stderr: each module resolved, each read of tools.json, and `answered` before the first answer. */
const HOOK = `
import { register, syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
const say = (line) => fs.writeSync(2, '[cold-start] ' + line + '\\n');
register('data:text/javascript,' + encodeURIComponent(\`
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:')) writeSync(2, '[cold-start] load ' + resolved.url + '\\\\n');
  return resolved;
}\`));
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (String(path).endsWith('/tools.json')) say('read tools.json');
  return read.call(this, path, ...rest);
};
syncBuiltinESMExports();
const write = process.stdout.write;
let answered = false;
process.stdout.write = function (...args) {
  if (!answered) say('answered');
  answered = true;
  return write.apply(this, args);
};
`;

/** The hook's lines in a server's stderr, without their prefix. */
const watched = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('[cold-start] '))
    .map((l) => l.slice('[cold-start] '.length));

/**
 * The runtime's modules (lib/runtime/<room>/<name>.js, as `<room>/<name>`) and the packages
 * (node_modules/<name>) in the files among `urls`: dist/main.js and its chunks are a bundle, so
 * each file loaded stands for the source modules the project's build put in it (bundle-meta.json).
 */
function loaded(lines: string[]): { runtime: Set<string>; packages: Set<string> } {
  const urls = lines.filter((l) => l.startsWith('load ')).map((l) => l.slice('load '.length));
  const sources = urls.flatMap((url) => bundledSources(url));
  const runtime = new Set(sources.flatMap((u) => /\/?lib\/runtime\/([\w/-]+)\.js$/.exec(u)?.[1] ?? []));
  const packages = new Set(sources.flatMap((u) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
  return { runtime, packages };
}

let dir: string;
let hook: string;
let upstream: Upstream;
beforeAll(async () => {
  const spec = join(scratch, 'cold.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  dir = generateProject(spec, 'e2e-cold-start');
  await buildProject(dir);
  hook = join(scratch, 'watch.mjs');
  writeFileSync(hook, HOOK);
  upstream = await startUpstream(() => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69', size: 3 }),
  }));
});
afterAll(async () => upstream?.close());

describe('cold start over stdio', () => {
  it('answers initialize before reading tools.json or loading what serves it, then lists and calls tools', async () => {
    const client = await connect('stdio', dir, { argv: ['--import', hook, join(dir, 'dist/main.js'), '--base-url', upstream.url] });
    const stderr: string[] = [];
    (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    expect(client.getServerVersion()).toMatchObject({ name: 'cold-mcp', version: '1' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['getCode', 'getItem']);
    const called = await client.callTool({ name: 'getItem', arguments: { id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69' } });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toEqual({ id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69', size: 3 });
    // ajv checks the arguments too: a malformed uuid never reaches the upstream
    const refused = await client.callTool({ name: 'getItem', arguments: { id: 'not-a-uuid' } });
    expect(refused.isError).toBe(true);
    expect(upstream.requests.map((r) => r.path)).toEqual(['/items/0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69']);
    await client.close();

    const lines = watched(stderr.join(''));
    const answered = lines.indexOf('answered');
    expect(answered).toBeGreaterThan(0);
    const before = lines.slice(0, answered);
    const after = lines.slice(answered);

    expect(before).not.toContain('read tools.json');
    const early = loaded(before);
    // what initialize needs: the command line and the settings and their checks (serving, and each API's own
    // retries and rate limit: api-settings), the summary's
    // server instances (with the client log's logging/setLevel handler, registered on each), the transport,
    // and the mapping of stack traces (source-maps: a map is read only when a stack passes through its file)
    expect([...early.runtime].sort()).toEqual([
      'main',
      'mcp/server-instances',
      'observe/client-log',
      'start/api-settings',
      'start/command-line',
      'start/config',
      'start/lazy',
      'start/log',
      'start/serving',
      'start/source-maps',
      'transports/stdio',
    ]);
    // bundled, only what initialize runs: zod's schemas come with the table's modules
    expect([...early.packages].sort()).toEqual(['@modelcontextprotocol/core', '@modelcontextprotocol/server']);

    expect(after.filter((l) => l === 'read tools.json')).toHaveLength(1);
    const late = loaded(after);
    for (const module of ['start/service', 'mcp/server', 'call/executor', 'call/request/checks']) expect(late.runtime).toContain(module);
    // the checks' validator interprets schemas (validator.ts): ajv, which compiles them, is not loaded
    expect(late.packages).toContain('@cfworker/json-schema');
    expect(late.packages).not.toContain('ajv');
    // nor re2js, which runs spec patterns: getItem has none
    expect(late.packages).not.toContain('re2js');
    // features that are off load nothing, even with the table
    for (const module of [
      'code-mode/sandbox',
      'observe/telemetry',
      'oauth/resource-server/resource-server',
      'oauth/authorization-server/token-store',
      'oauth/authorization-server/token-store-redis',
      'http/node-web',
      'web/web-server',
      'transports/sse',
    ])
      expect(late.runtime).not.toContain(module);
    for (const name of ['jose', 'quickjs-emscripten', 'redis', '@opentelemetry/api', '@modelcontextprotocol/server-legacy'])
      expect(late.packages).not.toContain(name);
  });
});

describe('the pattern engine', () => {
  it('loads re2js with the first tool whose schemas have a pattern, which it then checks', async () => {
    const client = await connect('stdio', dir, { argv: ['--import', hook, join(dir, 'dist/main.js'), '--base-url', upstream.url] });
    const stderr: string[] = [];
    (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    try {
      const item = await client.callTool({ name: 'getItem', arguments: { id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69' } });
      expect(item.isError).toBeFalsy();
      expect(loaded(watched(stderr.join(''))).packages).not.toContain('re2js');
      const before = upstream.requests.length;
      const refused = await client.callTool({ name: 'getCode', arguments: { code: 'abcd' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('must match pattern');
      expect(upstream.requests.length).toBe(before);
      expect(loaded(watched(stderr.join(''))).packages).toContain('re2js');
      expect((await client.callTool({ name: 'getCode', arguments: { code: 'ABC' } })).isError).toBeFalsy();
      expect(upstream.requests.at(-1)?.path).toBe('/codes/ABC');
    } finally {
      await client.close();
    }
  }, 60_000);
});

/** V8's coverage of one process (NODE_V8_COVERAGE): per script, its functions' and blocks' ranges and how often each ran. */
type Coverage = { url: string; functions: { ranges: { startOffset: number; endOffset: number; count: number }[] }[] }[];

/** How often the innermost function or block of `url` around `offset` ran. */
function timesRun(coverage: Coverage, url: string, offset: number): number | undefined {
  const ranges = coverage.find((script) => script.url === url)?.functions.flatMap((f) => f.ranges) ?? [];
  const around = ranges.filter((r) => r.startOffset <= offset && offset < r.endOffset);
  return around.sort((a, b) => a.endOffset - a.startOffset - (b.endOffset - b.startOffset))[0]?.count;
}

describe('the SDK bundled lean', () => {
  it('runs none of the ajv bundled in the SDK and loads one copy of zod, through the first call', async () => {
    const coverageDir = mkdtempSync(join(scratch, 'coverage-'));
    const client = await connect('stdio', dir, {
      argv: ['--import', hook, join(dir, 'dist/main.js'), '--base-url', upstream.url],
      env: { NODE_V8_COVERAGE: coverageDir },
    });
    const stderr: string[] = [];
    (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    await client.listTools();
    expect((await client.callTool({ name: 'getItem', arguments: { id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69' } })).isError).toBeFalsy();
    await client.close();

    const files = watched(stderr.join('')).flatMap((l) => (l.startsWith('load ') ? [l.slice('load '.length)] : []));
    // zod as each of the SDK's packages installed it (a copy of its own under each): one is loaded
    const zods = new Set(files.flatMap((url) => bundledSources(url).flatMap((s) => /^(.*\/node_modules\/zod)\//.exec(s)?.[1] ?? [])));
    expect([...zods]).toHaveLength(1);
    // ajv, in the SDK's shims for its default validator, is in the bundle but never ran: the line
    // of ajv's code generator that runs when its module is evaluated, found in the file that holds it
    const ajvFile = files.find((url) => bundledSources(url).some((s) => s.includes('/ajvProvider-')));
    expect(ajvFile).toBeDefined();
    const code = readFileSync(new URL(ajvFile as string), 'utf8');
    const evaluated = code.indexOf('/^[a-z$_][a-z$_0-9]*$/i');
    expect(evaluated).toBeGreaterThan(0);
    const coverage = readdirSync(coverageDir).flatMap(
      (f) => (JSON.parse(readFileSync(join(coverageDir, f), 'utf8')) as { result: Coverage }).result,
    );
    expect(timesRun(coverage, ajvFile as string, evaluated)).toBe(0);
  }, 60_000);
});

// ── each feature's modules: none with the feature off, its own with it on

/** The modules of the features that wait for a setting, an operation or a caller that needs them. */
const FEATURES = ['confirm/confirm', 'long-running/long-running', 'long-running/tasks', 'oauth/upstream-accounts/link-required'];
const PETSTORE_ENV = { SWAGGER_PETSTORE_API_KEY: 'k-cold', SWAGGER_PETSTORE_AUTH_TOKEN: 't-cold' };

/** The pets and jobs the servers below call: a pet by id, its deletion, a job that has finished at its first status check. */
function answer(req: Recorded) {
  if (req.method === 'GET' && req.path === '/v2/pet/1') return { body: JSON.stringify({ id: 1, name: 'doggie', photoUrls: [] }) };
  if (req.method === 'DELETE' && req.path === '/v2/pet/1') return { body: '{}' };
  if (req.method === 'POST' && req.path === '/jobs')
    return { status: 202, headers: { 'operation-location': `${apis.url}/status/j1`, 'retry-after': '0' } };
  if (req.method === 'GET' && req.path === '/status/j1') return { body: JSON.stringify({ status: 'Succeeded', result: { rows: 42 } }) };
  return { status: 404, body: JSON.stringify({ error: `no ${req.method} ${req.path}` }) };
}

let petstore: string;
let jobs: string;
let apis: Upstream;
beforeAll(async () => {
  apis = await startUpstream(answer);
  const spec = join(scratch, 'jobs.json');
  writeFileSync(spec, JSON.stringify(JOBS_SPEC));
  petstore = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-cold-start-petstore');
  jobs = generateProject(spec, 'e2e-cold-start-jobs');
  await Promise.all([buildProject(petstore), buildProject(jobs)]);
}, 300_000);
afterAll(async () => apis?.close());

/** A stdio server of `dir` watched by the hook, and the runtime modules it has loaded so far. */
async function watchedStdio(dir: string, args: string[], env: Record<string, string>, options: Parameters<typeof connect>[2] = {}) {
  const client = await connect('stdio', dir, { ...options, env, argv: ['--import', hook, join(dir, 'dist/main.js'), ...args] });
  const stderr: string[] = [];
  (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return { client, runtime: () => loaded(watched(stderr.join(''))).runtime };
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

/** tools/list and a GET through the executor: the table, the call path and what serves it are all loaded. */
async function listAndCallGetPet(client: Client): Promise<void> {
  await client.listTools();
  const called = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
  expect(called.isError, text(called)).toBeFalsy();
  expect(text(called)).toContain('doggie');
}

describe('with each feature off, nothing of it is loaded', () => {
  it('over stdio: after tools/list and a tools/call on Petstore', async () => {
    const { client, runtime } = await watchedStdio(petstore, ['--base-url', `${apis.url}/v2`], PETSTORE_ENV);
    try {
      await listAndCallGetPet(client);
      const modules = runtime();
      // the control: the call path is watched, so an absence means something
      for (const module of [
        'call/executor',
        'call/request/checks',
        'call/send/retry',
        'call/send/pacing',
        'start/optional-features',
        'call/answer/link-mark',
      ])
        expect(modules).toContain(module);
      for (const module of FEATURES) expect(modules).not.toContain(module);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('over Streamable HTTP: after tools/list and a tools/call on Petstore', async () => {
    const main = join(petstore, 'dist/main.js');
    const argv = ['--import', hook, main, '--transport', 'http', '--port', '0', '--base-url', `${apis.url}/v2`];
    const server = await startNode(argv, petstore, PETSTORE_ENV);
    try {
      const client = await connect('http', server.url);
      await listAndCallGetPet(client);
      await client.close();
      const modules = loaded(watched(server.stderr())).runtime;
      for (const module of [
        'http/node-web',
        'web/web-server',
        'call/executor',
        'call/send/retry',
        'call/send/pacing',
        'start/optional-features',
        'call/answer/link-mark',
      ])
        expect(modules).toContain(module);
      for (const module of FEATURES) expect(modules).not.toContain(module);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('with a feature on, its module loads with the table, and it works', () => {
  it('--confirm destructive: confirm, and the DELETE waits for the yes', async () => {
    let asked = 0;
    const elicit = async () => (asked++, { action: 'accept' as const, content: { confirm: true } });
    const args = ['--base-url', `${apis.url}/v2`, '--confirm', 'destructive'];
    const { client, runtime } = await watchedStdio(petstore, args, PETSTORE_ENV, { elicit });
    try {
      await listAndCallGetPet(client);
      expect(asked).toBe(0);
      expect(runtime()).toContain('confirm/confirm');
      const deleted = await client.callTool({ name: 'deletePet', arguments: { petId: 1 } });
      expect(deleted.isError, text(deleted)).toBeFalsy();
      expect(asked).toBe(1);
      for (const module of ['long-running/long-running', 'long-running/tasks', 'oauth/upstream-accounts/link-required'])
        expect(runtime()).not.toContain(module);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a long-running operation: long-running and tasks, the tool offered as a task and its operation followed', async () => {
    const { client, runtime } = await watchedStdio(jobs, ['--base-url', apis.url], {});
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'startJob')?.execution?.taskSupport).toBe('optional');
      const result = await client.callTool({ name: 'startJob', arguments: {} });
      expect(result.isError, text(result)).toBeFalsy();
      for (const module of ['long-running/long-running', 'long-running/tasks']) expect(runtime()).toContain(module);
      expect(JSON.parse(text(result))).toEqual({ status: 'Succeeded', result: { rows: 42 } });
      expect(apis.requests.filter((r) => r.path === '/status/j1').map((r) => r.method)).toEqual(['GET']);
      for (const module of ['confirm/confirm', 'oauth/upstream-accounts/link-required']) expect(runtime()).not.toContain(module);
    } finally {
      await client.close();
    }
  }, 60_000);
});
