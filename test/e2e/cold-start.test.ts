// Cold start (#30): a generated stdio server answers initialize from tools-summary.json, before it
// reads tools.json or loads the modules that serve it (the executor, ajv, the features' modules);
// they load on the first request that needs the table, and tools/list and tools/call work as
// ever. Watched from inside the server's process by an --import hook, as a profile would see it:
// every module resolved and every read of tools.json, up to the moment the first answer is written.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildProject, connect, generateProject } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

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

/** The runtime's modules (dist/runtime/<name>.js) and the packages (node_modules/<name>) among `urls`. */
function loaded(lines: string[]): { runtime: Set<string>; packages: Set<string> } {
  const urls = lines.filter((l) => l.startsWith('load ')).map((l) => l.slice('load '.length));
  const runtime = new Set(urls.flatMap((u) => /\/dist\/runtime\/([\w-]+)\.js$/.exec(u)?.[1] ?? []));
  const packages = new Set(urls.flatMap((u) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
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
    expect(tools.map((t) => t.name)).toEqual(['getItem']);
    const called = await client.callTool({ name: 'getItem', arguments: { id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69' } });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toEqual({ id: '0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69', size: 3 });
    // ajv checks the arguments too: a malformed uuid never reaches the upstream
    const refused = await client.callTool({ name: 'getItem', arguments: { id: 'not-a-uuid' } });
    expect(refused.isError).toBe(true);
    expect(upstream.requests.map((r) => r.path)).toEqual(['/items/0b8c4a0e-9c1b-4f5e-8a57-2f1d3c4b5a69']);
    await client.close();

    const lines = stderr
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('[cold-start] '))
      .map((l) => l.slice('[cold-start] '.length));
    const answered = lines.indexOf('answered');
    expect(answered).toBeGreaterThan(0);
    const before = lines.slice(0, answered);
    const after = lines.slice(answered);

    expect(before).not.toContain('read tools.json');
    const early = loaded(before);
    // what initialize needs: the settings, the summary's server instances, the transport
    expect([...early.runtime].sort()).toEqual(['config', 'instances', 'log', 'main', 'stdio']);
    expect([...early.packages].sort()).toEqual(['@modelcontextprotocol/core', '@modelcontextprotocol/server', 'zod']);

    expect(after.filter((l) => l === 'read tools.json')).toHaveLength(1);
    const late = loaded(after);
    for (const module of ['service', 'server', 'executor', 'checks']) expect(late.runtime).toContain(module);
    expect(late.packages).toContain('ajv');
    // features that are off load nothing, even with the table
    for (const module of ['sandbox', 'telemetry', 'oauth', 'token-store', 'token-store-redis', 'http', 'sse'])
      expect(late.runtime).not.toContain(module);
    for (const name of ['jose', 'quickjs-emscripten', 'redis', '@opentelemetry/api', '@modelcontextprotocol/server-legacy'])
      expect(late.packages).not.toContain(name);
  });
});
