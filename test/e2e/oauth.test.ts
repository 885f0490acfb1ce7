// A generated server behind a real authorization server (oidc-provider on 127.0.0.1): the SDK
// client's own OAuth support signs in (401 → metadata → registration → code with PKCE →
// token) over every transport and both protocol eras, two users call tools with their own
// scopes, and every bad token, header or session is refused with the right status and challenge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { buildProject, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import type { OAuthClientProvider as V1Provider } from '@modelcontextprotocol/sdk/client/auth.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import { send } from '../harness/http-steps.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const READ = 'mcp:read';
const WRITE = 'mcp:write';
const REDIRECT = 'http://127.0.0.1:1/callback';
let dir: string;
let upstream: Upstream;
let as: AuthorizationServer;
let server: RunningServer;
/** The same project with --stateless: every request served on its own, as replicas do. */
let stateless: RunningServer;
/** The MCP server's resource identifier, as its metadata publishes it. */
let resource: string;
/** Per user, the scopes the authorization server grants at most; changed by the step-up test. */
const userScopes: Record<string, string[]> = { alice: [READ], bob: [READ, WRITE] };
const children = new Children();

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    const id = Number(/^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1] ?? 1);
    return { body: JSON.stringify({ id, name: `pet-${id}`, photoUrls: [] }) };
  });
  as = await startAuthorizationServer({ format: 'jwt', resources: {}, userScopes });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth', ['--resources', 'get']);
  await buildProject(dir);
  server = await startServer(dir, 'http+sse', ['--oauth-issuer', as.issuer, '--base-url', `${upstream.url}/v2`], {
    SWAGGER_PETSTORE_API_KEY: 'server-own-key',
    SWAGGER_PETSTORE_AUTH_TOKEN: 'server-own-oauth-token',
  });
  children.track(server.process);
  resource = `${server.url}/`;
  // The root's identifier, and each endpoint's: clients sign in for the one its metadata names.
  for (const id of [resource, `${server.url}/mcp`, `${server.url}/sse`]) as.addResource(id, [READ, WRITE]);
  stateless = await startServer(dir, 'http', ['--stateless', '--oauth-issuer', as.issuer, '--base-url', `${upstream.url}/v2`], {
    SWAGGER_PETSTORE_API_KEY: 'server-own-key',
    SWAGGER_PETSTORE_AUTH_TOKEN: 'server-own-oauth-token',
  });
  children.track(stateless.process);
  for (const id of [`${stateless.url}/`, `${stateless.url}/mcp`]) as.addResource(id, [READ, WRITE]);
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await as?.close();
  await upstream?.close();
});

/** An in-memory OAuthClientProvider that signs `user` in headlessly when the SDK redirects. */
function signInAs(user: string) {
  let info: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0] | undefined;
  let tokens: Parameters<OAuthClientProvider['saveTokens']>[0] | undefined;
  let verifier = '';
  let pending: Promise<{ code: string; iss?: string }> | undefined;
  let asked: URL | undefined;
  const provider: OAuthClientProvider = {
    redirectUrl: REDIRECT,
    clientMetadata: { redirect_uris: [REDIRECT], client_name: `e2e ${user}`, token_endpoint_auth_method: 'none' },
    clientInformation: () => info,
    saveClientInformation: (saved) => void (info = saved),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    redirectToAuthorization: (url) => {
      asked = url;
      pending = as.signIn(url, user);
    },
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
  return {
    provider,
    /** The code of the sign-in the last redirect started. */
    code: async () => {
      const found = await pending;
      pending = undefined;
      if (found === undefined) throw new Error('the client never redirected to sign in');
      return found;
    },
    accessToken: () => tokens?.access_token,
    /** The scope the last authorization request asked for. */
    askedScope: () => asked?.searchParams.get('scope'),
  };
}

type Kind = 'http' | 'http-2026' | 'sse' | 'http-stateless' | 'http-2026-stateless';

/** Connects an SDK client as `user` through the whole flow: refused, signed in, connected again. */
async function connectAs(
  user: string,
  kind: Kind,
  login = signInAs(user),
  base = kind.endsWith('-stateless') ? stateless.url : server.url,
): Promise<{ client: Client; login: ReturnType<typeof signInAs>; transport: StreamableHTTPClientTransport | SSEClientTransport }> {
  const transport = () =>
    kind === 'sse'
      ? new SSEClientTransport(new URL(`${base}/sse`), { authProvider: login.provider })
      : new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: login.provider });
  const options = kind.startsWith('http-2026') ? { versionNegotiation: { mode: 'auto' as const } } : {};
  let client = new Client({ name: `e2e-${user}`, version: '1.0.0' }, options);
  const first = transport();
  try {
    await client.connect(first);
    return { client, login, transport: first };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const { code, iss } = await login.code();
  await first.finishAuth(code, iss);
  client = new Client({ name: `e2e-${user}`, version: '1.0.0' }, options);
  const second = transport();
  await client.connect(second);
  return { client, login, transport: second };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('the SDK client signs in and calls tools, as two users with their own scopes', () => {
  it.each<Kind>(['http', 'http-2026', 'sse', 'http-stateless', 'http-2026-stateless'])('over %s', async (kind) => {
    const alice = await connectAs('alice', kind);
    const bob = await connectAs('bob', kind);
    try {
      const aliceTools = await names(alice.client);
      const bobTools = await names(bob.client);
      // alice holds mcp:read only: read-only tools; bob holds both: every tool
      expect(aliceTools).toContain('getPetById');
      expect(aliceTools).not.toContain('addPet');
      expect(aliceTools).not.toContain('deletePet');
      expect(bobTools).toEqual(expect.arrayContaining(['getPetById', 'addPet', 'deletePet']));
      expect(bobTools.length).toBeGreaterThan(aliceTools.length);
      const before = upstream.requests.length;
      const answer = await alice.client.callTool({ name: 'getPetById', arguments: { petId: 7 } });
      expect(answer.isError).toBeFalsy();
      expect(textOf(answer)).toContain('pet-7');
      const sent = upstream.requests.slice(before);
      expect(sent.map((r) => r.path)).toEqual(['/v2/pet/7']);
      // the API gets the server's own key, never the caller's MCP token
      expect(sent[0]?.headers['api_key']).toBe('server-own-key');
      expect(JSON.stringify(sent)).not.toContain(alice.login.accessToken() as string);
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });
});

describe('what each token may do', () => {
  it('a call outside the token scopes is 403 insufficient_scope with the scope to ask for', async () => {
    const token = await as.issueToken({ user: 'alice', scopes: [READ], resource });
    const { status, challenge } = await callRaw(token, 'addPet', { name: 'x', photoUrls: [] });
    expect(status).toBe(403);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain(`scope="${WRITE}"`);
    expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('step-up: the SDK client asks for the missing scope, the user grants it, and the call goes through', async () => {
    userScopes.carol = [READ];
    const carol = await connectAs('carol', 'http');
    try {
      expect(await names(carol.client)).not.toContain('addPet');
      userScopes.carol = [READ, WRITE];
      const addPet = () => carol.client.callTool({ name: 'addPet', arguments: { body: { name: 'rex', photoUrls: [] } } });
      // the 403 sends the client to sign in again, asking for what it holds and the missing scope
      await expect(addPet()).rejects.toThrow(UnauthorizedError);
      expect(carol.login.askedScope()?.split(' ').sort()).toEqual([READ, WRITE]);
      const { code, iss } = await carol.login.code();
      await carol.transport.finishAuth(code, iss);
      const answer = await addPet();
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(await names(carol.client)).toContain('addPet');
    } finally {
      await carol.client.close();
    }
  });

  it('a session opened by one user is not found for another', async () => {
    const aliceToken = await as.issueToken({ user: 'alice', scopes: [READ], resource });
    const bobToken = await as.issueToken({ user: 'bob', scopes: [READ, WRITE], resource });
    const opened = await post(aliceToken, initialize());
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') as string;
    expect(session).toBeTruthy();
    const stolen = await post(bobToken, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session });
    expect(stolen.status).toBe(404);
    const own = await post(aliceToken, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session });
    expect(own.status).toBe(202);
  });
});

describe('every bad token fails closed', () => {
  const claims = () => ({ scope: `${READ} ${WRITE}`, sub: 'mallory', client_id: 'c' });
  it('a correctly signed token of the right issuer and audience passes (the control)', async () => {
    expect((await post(await sign(claims()), initialize())).status).toBe(200);
  });

  it.each([
    ['no token', async () => undefined],
    ['an expired token', async () => sign(claims(), { exp: Math.floor(Date.now() / 1000) - 120 })],
    ['a token not yet valid', async () => sign(claims(), { nbf: Math.floor(Date.now() / 1000) + 600 })],
    ['a token of another issuer', async () => sign(claims(), { iss: 'http://127.0.0.1:1' })],
    ['a token for another resource', async () => sign(claims(), { aud: 'http://127.0.0.1:1/' })],
    [
      'a real token issued for another resource',
      async () => {
        as.addResource('https://other.example/', [READ]);
        return as.issueToken({ user: 'alice', scopes: [READ], resource: 'https://other.example/' });
      },
    ],
    ['alg none', async () => unsigned({ ...claims(), iss: as.issuer, aud: resource, exp: Math.floor(Date.now() / 1000) + 300 })],
    [
      'HS256 signed with the public key',
      async () => hmacWithPublicKey({ ...claims(), iss: as.issuer, aud: resource, exp: Math.floor(Date.now() / 1000) + 300 }),
    ],
    [
      'a token signed by a stranger key with a known kid',
      async () => sign(claims(), { key: await strangerKey(), kid: as.signingKeys.at(-1)?.kid }),
    ],
    ['a token with a garbled signature', async () => (await sign(claims())).slice(0, -4) + 'AAAA'],
  ])('%s: 401 with the resource metadata and the scopes', async (_, token) => {
    const answer = await post(await token(), initialize());
    expect(answer.status).toBe(401);
    const challenge = answer.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain(`scope="${READ} ${WRITE}"`);
  });

  it('a header beyond what Node reads at all (16 KiB) is 431, unread', async () => {
    expect((await postWith({ authorization: `Bearer ${'a'.repeat(20_000)}` }, initialize())).status).toBe(431);
  });

  it.each([
    ['a header of 12,000 bytes', `Bearer ${'a'.repeat(12_000)}`],
    ['two tokens', 'Bearer abc def'],
    ['Basic credentials', `Basic ${Buffer.from('u:p').toString('base64')}`],
    ['Bearer without a token', 'Bearer '],
    ['a token with a space before it', 'Bearer  abc'],
  ])('%s: 401, unread', async (_, header) => {
    const answer = await postWith({ authorization: header }, initialize());
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('a flood of unknown kids costs at most one JWKS fetch, and each is 401', async () => {
    const stranger = await strangerKey();
    const before = as.jwksRequests;
    for (let i = 0; i < 20; i++) {
      expect((await post(await sign(claims(), { key: stranger, kid: `flood-${i}` }), initialize())).status).toBe(401);
    }
    expect(as.jwksRequests - before).toBeLessThanOrEqual(1);
  });

  it('the MCP token never reaches the API', async () => {
    const token = await as.issueToken({ user: 'bob', scopes: [READ, WRITE], resource });
    const before = upstream.requests.length;
    const { status } = await callRaw(token, 'getPetById', { petId: 3 });
    expect(status).toBe(200);
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent)).not.toContain(token);
    expect(sent[0]?.headers.authorization).toBeUndefined();
  });
});

describe('the protected-resource metadata', () => {
  it.each([
    ['/.well-known/oauth-protected-resource', '/'],
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource/sse', '/sse'],
  ])(
    '%s names the resource it is the metadata of (RFC 9728 §3.3), its authorization server and its scopes, for any origin',
    async (path, named) => {
      const answer = await fetch(`${server.url}${path}`, { headers: { origin: 'https://inspector.example' } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(await answer.json()).toMatchObject({
        resource: `${server.url}${named}`,
        authorization_servers: [as.issuer],
        scopes_supported: [READ, WRITE],
      });
    },
  );

  it.each([
    ['POST', '/mcp'],
    ['GET', '/sse'],
  ])('the 401 of %s %s points at metadata whose resource is the URL the client used (RFC 9728 §3.3)', async (method, path) => {
    const refused = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      ...(method === 'POST' ? { body: JSON.stringify(initialize()) } : {}),
    });
    expect(refused.status).toBe(401);
    const pointed = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1] as string;
    expect(pointed).toBe(`${server.url}/.well-known/oauth-protected-resource${path}`);
    expect(((await (await fetch(pointed)).json()) as { resource: string }).resource).toBe(`${server.url}${path}`);
  });

  it('a path that is no endpoint here has no metadata: it would name a resource no token is for', async () => {
    expect((await fetch(`${server.url}/.well-known/oauth-protected-resource/elsewhere`)).status).toBe(404);
  });

  it('a token for the root or for an endpoint is let in: clients differ in which they ask for (RFC 8707)', async () => {
    for (const id of [`${server.url}/`, `${server.url}/mcp`, `${server.url}/sse`]) {
      const token = await as.issueToken({ user: 'bob', scopes: [READ], resource: id });
      expect((await post(token, initialize())).status, id).toBe(200);
    }
  });
});

describe('a request without credentials (RFC 6750 §3.1)', () => {
  it('gets where to sign in and the scopes, but no error code; a bad token still gets invalid_token', async () => {
    const bare = await post(undefined, initialize());
    expect(bare.status).toBe(401);
    const challenge = bare.headers.get('www-authenticate') ?? '';
    expect(challenge).not.toContain('error');
    expect(challenge).toBe(
      `Bearer realm="mcp", scope="${READ} ${WRITE}", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    const bad = await post('not-a-token', initialize());
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('on loopback without --public-url, the audience is bound to the port the server listens on', () => {
  /** A tools/call of addPet, sent to `port` with `host` as the Host header (fetch cannot set it). */
  const addPetAt = (port: number, host: string, token: string) =>
    send(port, {
      method: 'POST',
      path: '/mcp',
      headers: {
        host,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'addPet', arguments: { body: { name: 'x', photoUrls: [] } } },
      }),
    });

  it("a token for another local server, sent here with that server's Host, is 401 and reaches no API", async () => {
    const here = new URL(stateless.url);
    const other = new URL(server.url);
    // the control: the same call with a token for this server reaches the API
    const own = await as.issueToken({ user: 'bob', scopes: [READ, WRITE], resource: `${stateless.url}/` });
    const before = upstream.requests.length;
    expect((await addPetAt(Number(here.port), here.host, own)).status).toBe(200);
    expect(upstream.requests.slice(before).map((r) => r.method)).toEqual(['POST']);
    const foreign = await as.issueToken({ user: 'bob', scopes: [READ, WRITE], resource: `${server.url}/` });
    const after = upstream.requests.length;
    const refused = await addPetAt(Number(here.port), other.host, foreign);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    // the metadata it points to is this server's, whatever port the Host header said
    expect(refused.headers['www-authenticate']).toContain(
      `resource_metadata="http://127.0.0.1:${here.port}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(upstream.requests.length).toBe(after);
  });
});

/** A token signed with the authorization server's own key, with the claims a test needs. */
const sign = async (
  payload: Record<string, unknown>,
  options: { key?: JWK; kid?: string; iss?: string; aud?: string; exp?: number; nbf?: number } = {},
) => {
  const key = options.key ?? (as.signingKeys.at(-1) as JWK);
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? (key.kid as string) })
    .setIssuer(options.iss ?? as.issuer)
    .setAudience(options.aud ?? resource)
    .setIssuedAt()
    .setExpirationTime(options.exp ?? now + 300);
  if (options.nbf !== undefined) jwt = jwt.setNotBefore(options.nbf);
  return jwt.sign(await importJWK(key, 'ES256'));
};

// ---- raw HTTP, for answers the SDK client would hide ----

const initialize = () => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function post(token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return postWith({ ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...headers }, body);
}

async function postWith(headers: Record<string, string>, body: unknown): Promise<Response> {
  const answer = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  await answer.clone().text();
  return answer;
}

/** A tools/call in a fresh session: its status and challenge (403) or 200. */
async function callRaw(token: string, name: string, args: Record<string, unknown>): Promise<{ status: number; challenge: string }> {
  const opened = await post(token, initialize());
  const session = opened.headers.get('mcp-session-id') as string;
  await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session });
  const answer = await post(
    token,
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
    { 'mcp-session-id': session },
  );
  return { status: answer.status, challenge: answer.headers.get('www-authenticate') ?? '' };
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function unsigned(payload: object): string {
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`;
}

/** The confused-deputy forgery: HMAC keyed with the issuer's public key, which anyone can read. */
async function hmacWithPublicKey(payload: object): Promise<string> {
  const privateJwk = as.signingKeys.at(-1) as JWK;
  const pem = createPublicKey(createPrivateKey({ key: privateJwk as never, format: 'jwk' })).export({ type: 'spki', format: 'pem' });
  return new SignJWT(payload as Record<string, unknown>)
    .setProtectedHeader({ alg: 'HS256', kid: privateJwk.kid as string })
    .sign(new TextEncoder().encode(pem.toString()));
}

async function strangerKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: 'stranger' };
}

describe('opaque tokens, checked by introspection through the server', () => {
  let opaque: AuthorizationServer;
  let introspecting: RunningServer;
  beforeAll(async () => {
    opaque = await startAuthorizationServer({ format: 'opaque', resources: {} });
    await opaque.registerClient({ clientId: 'mcp-server', clientSecret: 'introspection-secret' });
    introspecting = await startServer(
      dir,
      'http',
      [
        '--oauth-issuer',
        opaque.issuer,
        '--oauth-token-check',
        'introspection',
        '--oauth-introspection-cache-ms',
        '0',
        '--base-url',
        `${upstream.url}/v2`,
      ],
      { MCP_OAUTH_CLIENT_ID: 'mcp-server', MCP_OAUTH_CLIENT_SECRET: 'introspection-secret' },
    );
    children.track(introspecting.process);
    opaque.addResource(`${introspecting.url}/`, [READ, WRITE]);
  }, 60_000);
  afterAll(() => opaque?.close());

  it('an active token is let in, the same token once revoked is 401, and the secret is never logged', async () => {
    const token = await opaque.issueToken({ user: 'alice', scopes: [READ], resource: `${introspecting.url}/` });
    const at = (t: string) =>
      fetch(`${introspecting.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize()),
      });
    expect((await at(token)).status).toBe(200);
    await opaque.revoke(token);
    const refused = await at(token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(introspecting.stderr()).not.toContain('introspection-secret');
  });
});

describe('Entra-style scope names: asked for with a prefix, held without it', () => {
  let prefixed: RunningServer;
  beforeAll(async () => {
    prefixed = await startServer(dir, 'http', [
      '--oauth-issuer',
      as.issuer,
      '--oauth-scope-prefix',
      'api://petstore/',
      '--base-url',
      `${upstream.url}/v2`,
    ]);
    children.track(prefixed.process);
  }, 60_000);

  it('the metadata and the challenges name the prefixed scopes; a token with bare or prefixed names is read by them', async () => {
    const own = `${prefixed.url}/`;
    const metadata = (await (await fetch(`${prefixed.url}/.well-known/oauth-protected-resource`)).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual(['api://petstore/mcp:read', 'api://petstore/mcp:write']);
    const refused = await fetch(`${prefixed.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.headers.get('www-authenticate')).toContain('scope="api://petstore/mcp:read api://petstore/mcp:write"');
    for (const scope of ['mcp:read', 'api://petstore/mcp:read']) {
      const token = await sign({ scope, sub: 'erin', client_id: 'c' }, { aud: own });
      const client = new Client({ name: 'prefix', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${prefixed.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const tools = await names(client);
      await client.close();
      expect(tools, scope).toContain('getPetById');
      expect(tools, scope).not.toContain('addPet');
    }
  });
});

describe("each user's own API token, exchanged at the authorization server (RFC 8693)", () => {
  const API = 'https://api.example/';
  let exchanging: RunningServer;
  beforeAll(async () => {
    as.addResource(API, ['pets:read']);
    // what each user may hold of the API, as the authorization server's policy says
    userScopes.alice = [READ, 'pets:read'];
    userScopes.bob = [READ, WRITE, 'pets:read'];
    exchanging = await startServer(
      dir,
      'http',
      [
        '--oauth-issuer',
        as.issuer,
        '--token-exchange-audience',
        API,
        '--token-exchange-scope',
        'pets:read',
        '--base-url',
        `${upstream.url}/v2`,
      ],
      { MCP_OAUTH_CLIENT_ID: 'mcp-exchange', MCP_OAUTH_CLIENT_SECRET: 'exchange-secret', SWAGGER_PETSTORE_API_KEY: 'server-own-key' },
    );
    children.track(exchanging.process);
    as.addResource(`${exchanging.url}/mcp`, [READ, WRITE]);
    // The AS lets this client exchange only tokens issued for this server (the SDK client signs in for its /mcp).
    await as.registerClient({ clientId: 'mcp-exchange', clientSecret: 'exchange-secret', resource: `${exchanging.url}/mcp` });
  }, 60_000);

  it("alice and bob sign in with the SDK client; each call reaches the API with that user's own token, exchanged once", async () => {
    const users = ['alice', 'bob'];
    const sessions = await Promise.all(users.map((user) => connectAs(user, 'http', signInAs(user), exchanging.url)));
    try {
      const exchangedBefore = as.exchanges.length;
      const sentTokens: string[] = [];
      for (const [i, { client, login }] of sessions.entries()) {
        for (let call = 0; call < 2; call++) {
          const before = upstream.requests.length;
          const answer = await client.callTool({ name: 'getOrderById', arguments: { orderId: 1 + i } });
          expect(answer.isError, textOf(answer)).toBeFalsy();
          const [sent] = upstream.requests.slice(before);
          const bearer = /^Bearer (.+)$/.exec(String(sent?.headers.authorization))?.[1] as string;
          expect(bearer).toBeTruthy();
          const claims = JSON.parse(Buffer.from(bearer.split('.')[1] as string, 'base64url').toString('utf8')) as {
            sub: string;
            aud: string;
          };
          expect(claims).toMatchObject({ sub: users[i], aud: API });
          // the API never sees the token issued for the MCP server, nor the server's own key
          expect(bearer).not.toBe(login.accessToken());
          expect(JSON.stringify(sent)).not.toContain(login.accessToken() as string);
          expect(sent?.headers['api_key']).toBeUndefined();
          sentTokens.push(bearer);
        }
      }
      // one exchange per user: the second call of each used the cached token
      expect(as.exchanges.slice(exchangedBefore).map((e) => e.subject)).toEqual(users);
      expect(new Set(sentTokens).size).toBe(2);
    } finally {
      await Promise.all(sessions.map((s) => s.client.close()));
    }
  });
});

describe("toolsets on demand count what the caller's scopes reach", () => {
  let onDemand: RunningServer;
  beforeAll(async () => {
    onDemand = await startServer(dir, 'http', ['--tools', 'toolsets', '--oauth-issuer', as.issuer, '--base-url', `${upstream.url}/v2`]);
    children.track(onDemand.process);
  }, 60_000);

  it('list_toolsets and enable_toolset give the number of tools tools/list then shows to a read-only caller', async () => {
    const token = await sign({ scope: READ, sub: 'henry', client_id: 'c' }, { aud: `${onDemand.url}/` });
    const client = new Client({ name: 'toolsets', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${onDemand.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      const listed = await client.callTool({ name: 'list_toolsets', arguments: {} });
      const before = await names(client);
      const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'pet' } });
      const added = (await names(client)).filter((name) => !before.includes(name));
      expect(added).toContain('getPetById');
      expect(added).not.toContain('addPet');
      const toolsets = (listed.structuredContent as { toolsets: { name: string; tools: number; enabled: boolean }[] }).toolsets;
      expect(toolsets).toContainEqual({ name: 'pet', tools: added.length, enabled: false });
      expect(textOf(listed)).toContain(`pet: ${added.length} tools\n`);
      expect(textOf(enabled)).toBe(`Toolset pet is enabled: ${added.length} tools; the tool list has changed.`);
    } finally {
      await client.close();
    }
  });
});

describe('resources follow the same scopes as the operations behind them', () => {
  const clientWith = async (scope: string) => {
    const token = await sign({ scope, sub: 'frank', client_id: 'c' });
    const client = new Client({ name: 'resources', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return client;
  };

  it('a token without the read scope lists no operation resources and reads none; with it, it does', async () => {
    const writer = await clientWith(WRITE);
    const reader = await clientWith(READ);
    try {
      const uris = async (client: Client) => (await client.listResources()).resources.map((r) => r.uri);
      expect(await uris(reader)).toContain('swagger-petstore://store/inventory');
      expect(await uris(writer)).not.toContain('swagger-petstore://store/inventory');
      // the documentation stays readable to any signed-in caller
      expect((await uris(writer)).length).toBeGreaterThan(0);
      expect((await reader.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
      expect((await writer.listResourceTemplates()).resourceTemplates).toEqual([]);
      const before = upstream.requests.length;
      await expect(writer.readResource({ uri: 'swagger-petstore://pet/4' })).rejects.toThrow(/not found/i);
      expect(upstream.requests.length).toBe(before);
      expect((await reader.readResource({ uri: 'swagger-petstore://pet/4' })).contents[0]).toMatchObject({
        uri: 'swagger-petstore://pet/4',
      });
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});

describe('the SDK v1 client, which most clients in the field still run, signs in the same way', () => {
  it.each(['http', 'sse'] as const)('over %s', async (kind) => {
    const { Client: V1Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport: V1Http } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { SSEClientTransport: V1Sse } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const { UnauthorizedError: V1Unauthorized } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const login = signInAs('gina');
    userScopes.gina = [READ];
    // The v1 interface is the same shape: the one provider serves both SDKs.
    const provider = login.provider as unknown as V1Provider;
    const transport = () =>
      kind === 'sse'
        ? new V1Sse(new URL(`${server.url}/sse`), { authProvider: provider })
        : new V1Http(new URL(`${server.url}/mcp`), { authProvider: provider });
    let client = new V1Client({ name: 'v1', version: '1' });
    const first = transport();
    await expect(client.connect(first)).rejects.toBeInstanceOf(V1Unauthorized);
    const { code } = await login.code();
    await first.finishAuth(code);
    client = new V1Client({ name: 'v1', version: '1' });
    await client.connect(transport());
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('getPetById');
      expect(tools).not.toContain('addPet');
      const answer = (await client.callTool({ name: 'getPetById', arguments: { petId: 21 } })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      expect(answer.isError).toBeFalsy();
      expect(answer.content.map((c) => c.text ?? '').join('')).toContain('pet-21');
    } finally {
      await client.close();
    }
  });
});
