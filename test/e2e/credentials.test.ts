// Credentials through a generated server: every security scheme against a local upstream,
// a local OAuth token endpoint that counts token requests, per-request credentials over
// HTTP, the MCP endpoint's own bearer token, and a grep for leaked secrets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { summarize } from '../../src/contract/summary.js';
import type { ToolTable } from '../../src/contract/table.js';

const S = {
  key: 'SENTINEL-KEY-9f8e7d',
  query: 'SENTINEL-QUERY-1a2b',
  cookie: 'SENTINEL-COOKIE-3c4d',
  bearer: 'SENTINEL-BEARER-5e6f',
  password: 'SENTINEL-PASS-7a8b',
  clientSecret: 'SENTINEL-SECRET-9c0d',
  accessToken: 'SENTINEL-ACCESS-1e2f',
};
const ENV = {
  AUTH_FIXTURE_HEADER_KEY: S.key,
  AUTH_FIXTURE_QUERY_KEY: S.query,
  AUTH_FIXTURE_COOKIE_KEY: S.cookie,
  AUTH_FIXTURE_BEARER_TOKEN: S.bearer,
  AUTH_FIXTURE_BASIC_USERNAME: 'ann',
  AUTH_FIXTURE_BASIC_PASSWORD: S.password,
  AUTH_FIXTURE_OAUTH_CLIENT_ID: 'client-1',
  AUTH_FIXTURE_OAUTH_CLIENT_SECRET: S.clientSecret,
};

const op = (id: string, security?: unknown) => ({
  get: { operationId: id, ...(security !== undefined ? { security } : {}), responses: { '200': { description: 'ok' } } },
});
function spec(tokenUrl: string) {
  return {
    openapi: '3.0.3',
    info: { title: 'Auth fixture', version: '1' },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
        bearer: { type: 'http', scheme: 'bearer' },
        basic: { type: 'http', scheme: 'basic' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl, scopes: { 'read:x': 'read', 'write:x': 'write' } } } },
      },
    },
    paths: {
      '/header': op('header', [{ headerKey: [] }]),
      '/query': op('query', [{ queryKey: [] }]),
      '/cookie': op('cookie', [{ cookieKey: [] }]),
      '/bearer': op('bearer'), // root security applies
      '/basic': op('basic', [{ basic: [] }]),
      '/oauth': op('oauth', [{ oauth: ['read:x', 'write:x'] }]),
      '/either': op('either', [{ missing: [] }, { headerKey: [] }]),
      '/both': op('both', [{ headerKey: [], bearer: [] }]),
      '/optional': op('optional', [{}, { headerKey: [] }]),
      '/open': op('open', []),
    },
  };
}

let upstream: Upstream;
let tokenServer: Server;
let tokenRequests: { body: string; authorization?: string }[] = [];
let tokenStatus = 200;
let dir: string;
let client: Client;
let rejectNext401 = false;
const seen: string[] = []; // everything a user could read: results, logs, files, CLI output

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    if (req.path === '/oauth' && rejectNext401) {
      rejectNext401 = false;
      return { status: 401, body: '{"error":"expired"}' };
    }
    return { body: '{}' };
  });
  tokenServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      tokenRequests.push({ body, authorization: req.headers.authorization });
      res.writeHead(tokenStatus, { 'content-type': 'application/json' });
      res.end(
        tokenStatus === 200
          ? JSON.stringify({ access_token: `${S.accessToken}-${tokenRequests.length}`, expires_in: 3600 })
          : '{"error":"boom"}',
      );
    });
  });
  await new Promise<void>((r) => tokenServer.listen(0, '127.0.0.1', r));
  const tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
  mkdirSync(TMP, { recursive: true });
  const file = join(TMP, 'auth-spec.json');
  writeFileSync(file, JSON.stringify(spec(tokenUrl)));
  dir = generateProject(file, 'e2e-auth');
  await buildProject(dir);
  client = await connect('stdio', dir, { env: ENV, args: ['--base-url', upstream.url] });
});

afterAll(async () => {
  await client?.close();
  await upstream?.close();
  tokenServer?.close();
});

async function call(c: Client, name: string) {
  upstream.clear();
  const result = await c.callTool({ name, arguments: {} });
  seen.push(JSON.stringify(result));
  return { result, req: upstream.requests[0], count: upstream.requests.length };
}

describe('credentials from the environment', () => {
  it('the generated README and .env.example name every variable', () => {
    for (const file of ['README.md', '.env.example']) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const name of [...Object.keys(ENV), 'AUTH_FIXTURE_OAUTH_TOKEN']) expect(text, `${file} lists ${name}`).toContain(name);
    }
  });

  const cases: [string, (r: NonNullable<Awaited<ReturnType<typeof call>>['req']>) => void][] = [
    ['header', (r) => expect(r.headers['x-api-key']).toBe(S.key)],
    ['query', (r) => expect(r.url).toBe(`/query?api_key=${S.query}`)],
    ['cookie', (r) => expect(r.headers.cookie).toBe(`session=${S.cookie}`)],
    ['bearer', (r) => expect(r.headers.authorization).toBe(`Bearer ${S.bearer}`)],
    ['basic', (r) => expect(r.headers.authorization).toBe(`Basic ${Buffer.from(`ann:${S.password}`).toString('base64')}`)],
    ['either', (r) => expect(r.headers['x-api-key']).toBe(S.key)],
    ['both', (r) => expect([r.headers['x-api-key'], r.headers.authorization]).toEqual([S.key, `Bearer ${S.bearer}`])],
    ['optional', (r) => expect(r.headers['x-api-key']).toBe(S.key)],
    ['open', (r) => expect([r.headers.authorization, r.headers['x-api-key']]).toEqual([undefined, undefined])],
  ];
  it.each(cases)('%s', async (name, check) => {
    const { result, req } = await call(client, name);
    expect(result.isError).toBeFalsy();
    check(req as NonNullable<typeof req>);
  });

  it('OAuth2 client credentials: one token for many calls, a fresh one after a 401', async () => {
    tokenRequests = [];
    for (let i = 0; i < 3; i++) expect((await call(client, 'oauth')).req?.headers.authorization).toBe(`Bearer ${S.accessToken}-1`);
    expect(tokenRequests).toHaveLength(1);
    const params = new URLSearchParams(tokenRequests[0]?.body);
    expect([params.get('grant_type'), params.get('scope')]).toEqual(['client_credentials', 'read:x write:x']);
    expect(tokenRequests[0]?.authorization).toBe(`Basic ${Buffer.from(`client-1:${S.clientSecret}`).toString('base64')}`);
    rejectNext401 = true;
    upstream.clear();
    const after = await client.callTool({ name: 'oauth', arguments: {} });
    expect(after.isError).toBeFalsy();
    expect(tokenRequests).toHaveLength(2);
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${S.accessToken}-1`, `Bearer ${S.accessToken}-2`]);
  });

  it('a missing credential names the variable and sends nothing', async () => {
    const bare = await connect('stdio', dir, { args: ['--base-url', upstream.url] });
    try {
      const { result, count } = await call(bare, 'header');
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]?.text).toContain('AUTH_FIXTURE_HEADER_KEY');
      expect(count).toBe(0);
      const optional = await call(bare, 'optional');
      expect(optional.result.isError).toBeFalsy();
      expect(optional.req?.headers['x-api-key']).toBeUndefined();
    } finally {
      await bare.close();
    }
  });

  it('a failing token endpoint is an error naming its URL, not a secret', async () => {
    tokenStatus = 500;
    const fresh = await connect('stdio', dir, { env: ENV, args: ['--base-url', upstream.url] });
    try {
      const { result, count } = await call(fresh, 'oauth');
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]?.text).toMatch(
        /token request to http:\/\/127\.0\.0\.1:\d+\/token answered HTTP 500/,
      );
      expect(count).toBe(0);
    } finally {
      tokenStatus = 200;
      await fresh.close();
    }
  });
});

describe('over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(dir, 'http', ['--base-url', upstream.url, '--auth-from-headers', 'X-Client-Key=headerKey'], {
      MCP_AUTH_TOKEN: 'mcp-token-1',
    });
  });
  afterAll(async () => {
    seen.push(server?.stderr() ?? '');
    await server?.stop();
  });

  it('the endpoint wants its bearer token: 401 with WWW-Authenticate; /healthz stays open', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: '{}',
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('each client brings its own key in a header; the client Authorization is never forwarded', async () => {
    const alice = await connect('http', server.url, { headers: { authorization: 'Bearer mcp-token-1', 'x-client-key': 'alice' } });
    const bob = await connect('http', server.url, { headers: { authorization: 'Bearer mcp-token-1', 'x-client-key': 'bob' } });
    const nobody = await connect('http', server.url, { headers: { authorization: 'Bearer mcp-token-1' } });
    try {
      expect((await call(alice, 'header')).req?.headers['x-api-key']).toBe('alice');
      expect((await call(bob, 'header')).req?.headers['x-api-key']).toBe('bob');
      const open = await call(alice, 'open');
      expect(open.req?.headers.authorization).toBeUndefined();
      const missing = await call(nobody, 'header');
      expect(missing.result.isError).toBe(true);
      expect(missing.count).toBe(0);
    } finally {
      await Promise.all([alice.close(), bob.close(), nobody.close()]);
    }
  });
});

describe('headers the HTTP client owns (Host, Transfer-Encoding, …) and names that are no token', () => {
  // With --auth-from-headers the client gives the value of the scheme's header: an apiKey
  // "in: header, name: Host" would let it retarget the request, one in Transfer-Encoding make
  // the upstream read the body as a second request.
  const owned = {
    openapi: '3.0.3',
    info: { title: 'Owned headers', version: '1' },
    components: {
      securitySchemes: {
        hostKey: { type: 'apiKey', in: 'header', name: 'Host' },
        teKey: { type: 'apiKey', in: 'header', name: 'Transfer-Encoding' },
        okKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
    paths: {
      '/retarget': op('retarget', [{ hostKey: [] }]),
      '/smuggle': {
        post: {
          operationId: 'smuggle',
          security: [{ teKey: [] }],
          parameters: [{ name: 'Content-Length', in: 'header', schema: { type: 'integer' } }],
          requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/fine': op('fine', [{ okKey: [] }]),
    },
  };
  let ownedDir: string;
  let server: RunningServer;

  beforeAll(async () => {
    const file = join(TMP, 'owned-headers-spec.json');
    writeFileSync(file, JSON.stringify(owned));
    ownedDir = generateProject(file, 'e2e-owned-headers');
    await buildProject(ownedDir);
    // A hand-edited tools.json (and its summary) puts the schemes back: the running server must still refuse them.
    const tablePath = join(ownedDir, 'tools.json');
    const table = JSON.parse(readFileSync(tablePath, 'utf8')) as {
      auth: Record<string, Record<string, unknown>>;
      tools: { name: string; security?: Record<string, string[]>[] }[];
    };
    const okKey = table.auth.okKey as Record<string, unknown>;
    table.auth.hostKey = { ...okKey, name: 'Host' };
    table.auth.teKey = { ...okKey, name: 'Transfer-Encoding' };
    table.auth.oddScheme = { type: 'http', scheme: 'Bearer\r\nX-Injected: 1', env: { token: 'OWNED_HEADERS_ODD_TOKEN' } };
    for (const tool of table.tools) {
      if (tool.name === 'retarget') tool.security = [{ hostKey: [] }];
      if (tool.name === 'smuggle') tool.security = [{ teKey: [] }];
      if (tool.name === 'fine') tool.security = [{ oddScheme: [] }];
    }
    writeFileSync(tablePath, JSON.stringify(table));
    writeFileSync(join(ownedDir, 'tools-summary.json'), JSON.stringify(summarize(table as unknown as ToolTable)));
    server = await startServer(
      ownedDir,
      'http',
      ['--base-url', upstream.url, '--auth-from-headers', 'X-Target=hostKey,X-Frame=teKey,X-Odd=oddScheme'],
      { MCP_AUTH_TOKEN: 'mcp-token-2' },
    );
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the generator leaves them out, each with a warning naming its place in the spec', () => {
    const file = join(TMP, 'owned-headers-spec.json');
    const out = execFileSync('node', [join(REPO, 'bin/mcp-gen.js'), file, '--out', join(TMP, 'owned-dry'), '--dry-run'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    const owns = 'cannot be sent: the HTTP client sets it itself (framing, routing or connection)';
    expect(out).toContain(`warning: #/components/securitySchemes/hostKey: header "Host" ${owns}; the scheme is left out`);
    expect(out).toContain(`warning: #/components/securitySchemes/teKey: header "Transfer-Encoding" ${owns}; the scheme is left out`);
    expect(out).toContain(`warning: #/paths/~1smuggle/post/parameters/0: header "Content-Length" ${owns}; left out of the arguments`);
  });

  it('through --auth-from-headers a client can neither change Host nor smuggle a second request: an error, and nothing is sent', async () => {
    const evil = await connect('http', server.url, {
      headers: {
        authorization: 'Bearer mcp-token-2',
        'x-target': 'evil.example',
        'x-frame': 'chunked',
        'x-odd': 'tok',
      },
    });
    try {
      upstream.clear();
      const retarget = await evil.callTool({ name: 'retarget', arguments: {} });
      const smuggle = await evil.callTool({
        name: 'smuggle',
        arguments: { body: '0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' },
      });
      const odd = await evil.callTool({ name: 'fine', arguments: {} });
      const texts = [retarget, smuggle, odd].map((r) => (r.content as { text: string }[])[0]?.text);
      expect([retarget.isError, smuggle.isError, odd.isError]).toEqual([true, true, true]);
      expect(texts).toEqual([
        'retarget: header "Host" cannot be sent: the HTTP client sets it itself (framing, routing or connection)',
        'smuggle: header "Transfer-Encoding" cannot be sent: the HTTP client sets it itself (framing, routing or connection)',
        'fine: header "Authorization" cannot be sent: its value contains CR, LF, NUL or other control characters',
      ]);
      expect(upstream.requests).toEqual([]);
    } finally {
      await evil.close();
    }
  });
});

describe('no secret leaks', () => {
  it('appears in no tool result, server log or generated file', () => {
    const files = (d: string): string[] =>
      readdirSync(d).flatMap((e) =>
        e === 'node_modules' ? [] : statSync(join(d, e)).isDirectory() ? files(join(d, e)) : [readFileSync(join(d, e), 'utf8')],
      );
    const haystack = [...seen, ...files(dir)].join('\n');
    expect(haystack.length).toBeGreaterThan(1000);
    for (const secret of Object.values(S)) expect(haystack).not.toContain(secret);
  });
});
