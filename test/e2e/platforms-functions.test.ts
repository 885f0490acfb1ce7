// The function targets (issue #40): the Petstore project generated with --target lambda,vercel.
// Lambda: its handler (src/targets/lambda.ts) answers Function URL events of payload format 2.0
// through a local stand-in for the Function URL (test/harness/lambda-adapter.mts: bodies
// base64-encoded, as AWS sends them). Vercel: its function (api/mcp.ts) is called by method
// with web Requests (test/harness/vercel-adapter.mts), as Vercel Functions call a web handler.
// Each driven by the official SDK client over Streamable HTTP in both eras.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { startLambda, startVercel, type PlatformServer } from '../harness/platforms.js';

const TOKEN = 'lambda-token-1';
const API_KEY = 'key-lambda';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let dir: string | undefined;
let upstream: Upstream;
const servers: Partial<Record<'lambda' | 'vercel', PlatformServer>> = {};

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    const id = /^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1];
    if (req.method === 'GET' && id) return { body: JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }) };
    return { status: 404, body: JSON.stringify({ code: 404, message: `unexpected ${req.method} ${req.path}` }) };
  });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, join(tmpdir(), 'mcp-gen-e2e-functions'), ['--target', 'lambda,vercel']);
  await buildProject(dir);
  const vars = { API_BASE_URL: `${upstream.url}/v2`, SWAGGER_PETSTORE_API_KEY: API_KEY, MCP_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'warn' };
  [servers.lambda, servers.vercel] = await Promise.all([
    startLambda(dir, await freePort(), vars),
    startVercel(dir, await freePort(), vars),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([servers.lambda?.stop(), servers.vercel?.stop()]);
  await upstream?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

it('generates the handler and a SAM template with a Function URL', () => {
  const template = readFileSync(join(dir as string, 'template.yaml'), 'utf8');
  expect(template).toContain('FunctionUrlConfig:');
  expect(template).toContain('- src/targets/lambda.ts');
  expect(template).not.toContain(API_KEY);
});

it('generates the Vercel function and its routes', () => {
  const config = JSON.parse(readFileSync(join(dir as string, 'vercel.json'), 'utf8')) as {
    rewrites: { source: string; destination: string }[];
  };
  expect(config.rewrites).toContainEqual({ source: '/mcp', destination: '/api/mcp' });
  expect(readFileSync(join(dir as string, 'api/mcp.ts'), 'utf8')).toContain('serve as POST');
});

describe.each(['lambda', 'vercel'] as const)('on %s', (platform) => {
  const server = () => servers[platform] as PlatformServer;

  it.each([
    ['2025-11-25', false],
    ['2026-07-28', true],
  ])('the SDK client (%s) lists the tools and a call reaches the API with its credential', async (_era, negotiate) => {
    const client = await connect('http', server().url, { negotiate, headers: AUTH });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('getPetById');
      upstream.clear();
      const id = negotiate ? 12 : 11;
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: id } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toEqual({ id, name: `pet-${id}`, photoUrls: [] });
      expect(upstream.requests.map((r) => [r.path, r.headers.api_key])).toEqual([[`/v2/pet/${id}`, API_KEY]]);
      const wrong = await client.callTool({ name: 'getPetById', arguments: { petId: 'nine' } });
      expect(wrong.isError).toBe(true);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('refuses a request without the token', async () => {
    const refused = await fetch(`${server().url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Bearer');
  });
});
