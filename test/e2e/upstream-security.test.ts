// The upstream API is not trusted: a generated server against local upstreams that redirect
// to another origin, a token endpoint that never stops answering, and failures that would
// quote a secret. Credentials go only to the origin they were configured for; every answer is
// bounded; no error text carries a secret or URL userinfo.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, TMP } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SECRET = {
  header: 'HDR-SECRET-7f3a',
  query: 'QRY-SECRET-1b9c',
  cookie: 'CKE-SECRET-55d0',
  bearer: 'BRR-SECRET-c0de',
  client: 'CLIENT-SECRET-9e11',
};

let elsewhere: Upstream; // another origin: must never see a credential
let api: Upstream; // the configured upstream: redirects as the path asks
let endless: Server; // a token endpoint that answers without end
let endlessBytes = 0;
let dir: string;
let env: Record<string, string>;
let client: Client;

const op = (id: string, security: unknown[]) => ({ get: { operationId: id, security, responses: { '200': { description: 'ok' } } } });

beforeAll(async () => {
  elsewhere = await startUpstream();
  api = await startUpstream((req) => {
    if (req.path === '/api/cross-open') return { status: 302, headers: { location: `${elsewhere.url}/landing` } };
    if (req.path === '/api/cross') return { status: 302, headers: { location: `${elsewhere.url}/landing?${req.query.toString()}` } };
    if (req.path === '/api/same') return { status: 302, headers: { location: `/api/landing?${req.query.toString()}` } };
    if (req.path === '/api/post-307') return { status: 307, headers: { location: `${elsewhere.url}/landing` } };
    if (req.path === '/api/loop') return { status: 302, headers: { location: '/api/loop' } };
    return { body: JSON.stringify({ ok: true }) };
  });
  endless = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"access_token":"');
    const chunk = Buffer.alloc(256 * 1024, 'x');
    // Bounded: stops after 200 MB or when the client goes away.
    const pump = () => {
      while (endlessBytes < 200 * 1024 * 1024 && !res.destroyed) {
        endlessBytes += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
  const tokenUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/token`;

  const spec = {
    openapi: '3.0.3',
    info: { title: 'Upstream fixture', version: '1' },
    servers: [{ url: `${api.url}/api` }],
    components: {
      securitySchemes: {
        headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
        bearer: { type: 'http', scheme: 'bearer' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl, scopes: {} } } },
      },
    },
    paths: {
      '/cross': op('cross', [{ headerKey: [], queryKey: [], cookieKey: [], bearer: [] }]),
      '/same': op('same', [{ headerKey: [], queryKey: [], cookieKey: [], bearer: [] }]),
      '/loop': op('loop', [{ headerKey: [] }]),
      '/post-307': {
        post: {
          operationId: 'post307',
          security: [{ headerKey: [] }],
          requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/token-endless': op('tokenEndless', [{ oauth: [] }]),
      '/open': op('open', []),
      '/cross-open': op('crossOpen', []),
    },
  };
  const specDir = join(TMP, 'upstream-security-spec');
  mkdirSync(specDir, { recursive: true });
  writeFileSync(join(specDir, 'openapi.json'), JSON.stringify(spec));
  dir = generateProject(join(specDir, 'openapi.json'), 'e2e-upstream-security');
  await buildProject(dir);
  const auth = (JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as { auth: Record<string, { env: Record<string, string> }> })
    .auth;
  const v = (scheme: string, part: string) => auth[scheme]?.env[part] as string;
  env = {
    [v('headerKey', 'key')]: SECRET.header,
    [v('queryKey', 'key')]: SECRET.query,
    [v('cookieKey', 'key')]: SECRET.cookie,
    [v('bearer', 'token')]: SECRET.bearer,
    [v('oauth', 'clientId')]: 'client-1',
    [v('oauth', 'clientSecret')]: SECRET.client,
  };
  client = await connect('stdio', dir, { env });
});

afterAll(async () => {
  await client?.close();
  await Promise.all([api?.close(), elsewhere?.close()]);
  endless?.closeAllConnections();
  endless?.close();
});

const text = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
const wire = (r: { url: string; headers: Record<string, unknown> }) => JSON.stringify([r.url, r.headers]);

describe('redirects', () => {
  it('a redirect to another origin carries no credential: no apiKey header or query, no cookie, no Authorization', async () => {
    elsewhere.clear();
    const result = await client.callTool({ name: 'cross', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(elsewhere.requests).toHaveLength(1);
    const seen = wire(elsewhere.requests[0] as never);
    for (const secret of Object.values(SECRET)) expect(seen).not.toContain(secret);
    expect(elsewhere.requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(elsewhere.requests[0]?.query.has('api_key')).toBe(false);
  });

  it('a redirect within the origin keeps every credential (so the test above cannot pass by dropping them always)', async () => {
    api.clear();
    const result = await client.callTool({ name: 'same', arguments: {} });
    expect(result.isError).toBeFalsy();
    const landing = api.requests.find((r) => r.path === '/api/landing');
    expect(landing?.headers['x-api-key']).toBe(SECRET.header);
    expect(landing?.query.get('api_key')).toBe(SECRET.query);
    expect(landing?.headers.cookie).toContain(SECRET.cookie);
    expect(landing?.headers.authorization).toBe(`Bearer ${SECRET.bearer}`);
  });

  it('307 keeps method and body (RFC 9110 §15.4.8) but not the credential on another origin', async () => {
    elsewhere.clear();
    const result = await client.callTool({ name: 'post307', arguments: { body: { a: 1 } } });
    expect(result.isError).toBeFalsy();
    expect(elsewhere.requests[0]?.method).toBe('POST');
    expect(elsewhere.requests[0]?.body.toString()).toBe('{"a":1}');
    expect(elsewhere.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('a redirect loop ends with an error after a few hops', async () => {
    api.clear();
    const result = await client.callTool({ name: 'loop', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/not followed: more than 5 redirects/);
    expect(api.requests.length).toBe(6);
  });
});

describe('the OAuth token endpoint', () => {
  it('an endless token answer is cut at 64 KiB: the call fails naming the endpoint, and the server lives on', async () => {
    const result = await client.callTool({ name: 'tokenEndless', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/token request to http:\/\/127\.0\.0\.1:\d+\/token answered more than 65536 bytes/);
    expect(endlessBytes).toBeLessThan(64 * 1024 * 1024); // stopped reading long before the end
    const after = await client.callTool({ name: 'same', arguments: {} });
    expect(after.isError).toBeFalsy();
  });
});

describe('secrets never in error texts', () => {
  const start = (extraEnv: Record<string, string>, args: string[] = []) =>
    spawnSync(process.execPath, [join(dir, 'dist/main.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv },
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('a credential with a line break stops the server at start, naming the variable and not the value', () => {
    const variable = Object.entries(env).find(([, value]) => value === SECRET.header)?.[0] as string;
    const r = start({ [variable]: 'abc\nINJECTED-9z9z' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`upstream-fixture-mcp: ${variable} contains a line break or control character; fix the variable`);
    expect(r.stderr).not.toContain('INJECTED');
  });

  it('a base URL with user:password stops the server at start without printing the password', () => {
    const r = start({}, ['--base-url', 'http://ann:PASSWORD-8h8h@127.0.0.1:9/api']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/must not carry a user name or password/);
    expect(r.stderr).not.toContain('PASSWORD-8h8h');
  });

  it("a spec server with userinfo: fetch's refusal is redacted before it reaches the client", async () => {
    const specDir = join(TMP, 'upstream-userinfo-spec');
    mkdirSync(specDir, { recursive: true });
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Userinfo', version: '1' },
      servers: [{ url: `http://ann:USERINFO-SECRET-4q4q@127.0.0.1:${new URL(api.url).port}/api` }],
      paths: { '/ping': op('ping', []) },
    };
    writeFileSync(join(specDir, 'openapi.json'), JSON.stringify(spec));
    const userinfoDir = generateProject(join(specDir, 'openapi.json'), 'e2e-upstream-userinfo');
    await buildProject(userinfoDir);
    const c = await connect('stdio', userinfoDir);
    try {
      const result = await c.callTool({ name: 'ping', arguments: {} });
      expect(result.isError).toBe(true);
      expect(text(result)).not.toContain('USERINFO-SECRET');
      expect(text(result)).toMatch(/\*\*\*@/);
    } finally {
      await c.close();
    }
  });
});

describe('static headers (--header, API_HEADERS) for specs that declare no security scheme', () => {
  const HEADERS = 'Authorization: Bearer STATIC-SECRET-3e3e\nX-Team: red';

  it('go with every request, and not to another origin on a redirect', async () => {
    const c = await connect('stdio', dir, { env: { ...env, API_HEADERS: HEADERS } });
    try {
      api.clear();
      elsewhere.clear();
      expect((await c.callTool({ name: 'open', arguments: {} })).isError).toBeFalsy();
      expect(api.requests[0]?.headers.authorization).toBe('Bearer STATIC-SECRET-3e3e');
      expect(api.requests[0]?.headers['x-team']).toBe('red');
      expect((await c.callTool({ name: 'crossOpen', arguments: {} })).isError).toBeFalsy();
      expect(elsewhere.requests).toHaveLength(1);
      expect(elsewhere.requests[0]?.headers.authorization).toBeUndefined();
      expect(elsewhere.requests[0]?.headers['x-team']).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('a malformed line stops the server at start, naming the line and not the value', () => {
    const r = spawnSync(process.execPath, [join(dir, 'dist/main.js')], {
      env: { PATH: process.env.PATH ?? '', API_HEADERS: 'X-Ok: 1\nAuthorization: Bearer SECRET-\u0007-x' },
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('API_HEADERS line 2: the value contains a control character');
    expect(r.stderr).not.toContain('SECRET-');
  });
});
