// An upstream that quotes what it was sent: the API key in a successful answer, the request URL
// (its query key percent-encoded) in an error, the Authorization header (HTTP basic: base64 of
// user:password) in a refusal. The generated server, called over stdio with the official SDK
// client, returns none of the credentials in any form the upstream quoted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, TMP } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

// characters that percent-encoding changes, so that the encoded key differs from the key
const KEY = 'k3y/with+special=chars';
const USER = 'api-user';
const PASSWORD = 'pa55/word+x';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
let upstream: Upstream;
let client: Client;

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    if (req.path.endsWith('/me')) return { body: JSON.stringify({ user: 'rex', yourKey: req.headers['x-key'] }) };
    if (req.path.endsWith('/search')) return { status: 404, headers: { 'content-type': 'text/plain' }, body: `no page at ${req.url}` };
    return { status: 401, headers: { 'content-type': 'text/plain' }, body: `refused: ${String(req.headers.authorization)}` };
  });
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Echoed secrets', version: '1' },
    servers: [{ url: `${upstream.url}/api` }],
    components: {
      securitySchemes: {
        headerKey: { type: 'apiKey', in: 'header', name: 'X-Key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'key' },
        basic: { type: 'http', scheme: 'basic' },
      },
    },
    paths: {
      '/me': { get: { operationId: 'me', security: [{ headerKey: [] }], responses: ok } },
      '/search': {
        get: {
          operationId: 'search',
          security: [{ queryKey: [] }],
          parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
          responses: ok,
        },
      },
      '/admin': { get: { operationId: 'admin', security: [{ basic: [] }], responses: ok } },
    },
  };
  const specDir = join(TMP, 'echoed-secrets-spec');
  mkdirSync(specDir, { recursive: true });
  writeFileSync(join(specDir, 'openapi.json'), JSON.stringify(spec));
  const dir = generateProject(join(specDir, 'openapi.json'), 'e2e-echoed-secrets', ['--env-prefix', 'ECHO', '--resources', 'get']);
  await buildProject(dir);
  client = await connect('stdio', dir, {
    env: { ECHO_HEADER_KEY: KEY, ECHO_QUERY_KEY: KEY, ECHO_BASIC_USERNAME: USER, ECHO_BASIC_PASSWORD: PASSWORD },
  });
});

afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

/** Everything a result carries, as one text: its contents and its structured content. */
const everything = (result: unknown) => JSON.stringify(result);

describe('credentials an upstream quotes back', () => {
  it('are taken out of a successful answer, text and structured content alike', async () => {
    const result = await client.callTool({ name: 'me', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.at(-1)?.headers['x-key']).toBe(KEY);
    expect(everything(result)).toContain('rex');
    expect(everything(result)).not.toContain(KEY);
    expect(result.structuredContent).toEqual({ user: 'rex', yourKey: '***' });
  });

  it('are taken out of a resource read as text', async () => {
    const { resources } = await client.listResources();
    const uri = resources.find((r) => r.uri.endsWith('://me'))?.uri ?? '';
    const { contents } = await client.readResource({ uri });
    expect(upstream.requests.at(-1)?.headers['x-key']).toBe(KEY);
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual({ user: 'rex', yourKey: '***' });
  });

  it('are taken out percent-encoded, as a query key is sent and an error quotes the URL', async () => {
    const result = await client.callTool({ name: 'search', arguments: { q: 'pets' } });
    expect(result.isError).toBe(true);
    expect(upstream.requests.at(-1)?.query.get('key')).toBe(KEY);
    expect(everything(result)).toContain('no page at /api/search?q=pets&key=***');
    expect(everything(result)).not.toContain(encodeURIComponent(KEY));
  });

  it('are taken out as the Basic authorization carries them (base64 of user:password)', async () => {
    const result = await client.callTool({ name: 'admin', arguments: {} });
    expect(result.isError).toBe(true);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(everything(result)).toContain('refused: Basic ***');
    expect(everything(result)).not.toContain(BASIC);
  });
});
