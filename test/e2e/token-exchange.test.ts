// Each user's own upstream token, end to end: `mcp-gen serve` runs as an OAuth resource server
// (--oauth-issuer) in front of a recording upstream, with a small authorization server of this
// test's own (discovery, a JWKS, ES256 access tokens, and a token endpoint that performs the
// RFC 8693 exchange). Official SDK clients call as alice and bob; the upstream must see the
// token issued for each of them for the API, and never the token they sent the MCP server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, createLocalJWKSet, type JWK } from 'jose';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO, startNode, TMP, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Recorded, type Upstream } from '../harness/upstream.js';

const CLI = join(REPO, 'bin/mcp-gen.js');
const CLIENT_ID = 'mcp-server';
const CLIENT_SECRET = 'mcp-server-secret';
const API = 'https://api.example';
/** The server's own credentials (serve reads them in mcp-gen's namespace). */
const SERVER_CREDENTIALS = { MCPGEN_USER_AUTH_TOKEN: 'server-own-oauth-token', MCPGEN_API_KEY: 'server-api-key' };

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Orders', version: '1.0.0' },
  servers: [{ url: 'https://orders.example' }],
  components: {
    securitySchemes: {
      user_auth: {
        type: 'oauth2',
        flows: { authorizationCode: { authorizationUrl: 'https://as.example/a', tokenUrl: 'https://as.example/t', scopes: {} } },
      },
      api_key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
    },
  },
  paths: {
    '/me': { get: { operationId: 'get_me', security: [{ api_key: [] }, { user_auth: [] }], responses: { 200: { description: 'ok' } } } },
    '/public': { get: { operationId: 'get_public', responses: { 200: { description: 'ok' } } } },
    '/keyed': { get: { operationId: 'get_keyed', security: [{ api_key: [] }], responses: { 200: { description: 'ok' } } } },
  },
};

interface Exchange {
  subject: string;
  form: Record<string, string>;
  authorization: string | undefined;
}

/** A small authorization server: metadata, JWKS, and a token endpoint that exchanges its own access tokens. */
async function startAuthorizationServer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const keys = createLocalJWKSet({ keys: [jwk] });
  const exchanges: Exchange[] = [];
  /** Subjects whose token the server will not exchange (revoked). */
  const revoked = new Set<string>();
  let issuer = '';
  let audience = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/.well-known/oauth-authorization-server') {
        json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'],
        });
        return;
      }
      if (req.url === '/jwks') return json(200, { keys: [jwk] });
      if (req.url !== '/token' || req.method !== 'POST') return json(404, { error: 'not_found' });
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}`) return json(401, { error: 'invalid_client' });
      if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:token-exchange') return json(400, { error: 'unsupported_grant_type' });
      // The subject token must be one this server issued for the MCP server.
      jwtVerify(form.subject_token ?? '', keys, { issuer, audience: [audience, `${audience}/`] }).then(
        ({ payload }) => {
          const subject = payload.sub as string;
          exchanges.push({ subject, form, authorization: req.headers.authorization });
          if (revoked.has(subject)) return json(400, { error: 'invalid_grant', error_description: `subject token of ${subject} revoked` });
          // A second exchange of the same token gets a new token for the API.
          const times = exchanges.filter((e) => e.form.subject_token === form.subject_token).length;
          json(200, {
            access_token: `api-token-for-${subject}${times > 1 ? `-${times}` : ''}`,
            issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            token_type: 'Bearer',
            expires_in: 3600,
          });
        },
        () => json(400, { error: 'invalid_grant', error_description: 'subject token not valid' }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    exchanges,
    revoked,
    /** The resource the MCP server is, once its port is known: the audience of the tokens it accepts. */
    serve: (resource: string) => void (audience = resource),
    /** An access token for the MCP server, as a client would get it by signing in as `subject`. */
    token: (subject: string, resource: string) =>
      new SignJWT({ scope: 'mcp:read mcp:write', client_id: 'mcp-client' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(`${resource}/`)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let as: Awaited<ReturnType<typeof startAuthorizationServer>>;
let upstream: Upstream;
let spec: string;
const servers: RunningServer[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  buildCli();
  const dir = join(TMP, 'token-exchange');
  mkdirSync(dir, { recursive: true });
  spec = join(dir, 'openapi.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  as = await startAuthorizationServer();
  upstream = await startUpstream((request) => {
    const authorization = request.headers.authorization;
    // The API revoked dave's first token; it quotes what erin sent in its refusal.
    if (authorization === 'Bearer api-token-for-dave') return { status: 401, body: '{"error":"token revoked"}' };
    if (authorization === 'Bearer api-token-for-erin') return { status: 403, body: `{"error":"forbidden: ${authorization}"}` };
    // frank's request is sent on to another origin (localhost for 127.0.0.1).
    if (request.headers['x-caller'] === 'frank' && String(request.headers.host).startsWith('127.0.0.1')) {
      return { status: 307, headers: { location: `${upstream.url.replace('127.0.0.1', 'localhost')}/elsewhere` } };
    }
    return { body: '{"ok":true}' };
  });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const server of servers) await server.stop();
  await upstream?.close();
  await as?.close();
});

async function serve(...flags: string[]): Promise<RunningServer> {
  const argv = [CLI, 'serve', spec, '--base-url', upstream.url, '--log-level', 'warn', '--transport', 'http', '--port', '0'];
  const server = await startNode([...argv, '--oauth-issuer', as.issuer, ...flags], REPO, {
    ...SERVER_CREDENTIALS,
    MCP_OAUTH_CLIENT_ID: CLIENT_ID,
    MCP_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
  });
  servers.push(server);
  as.serve(server.url);
  return server;
}

/** An SDK client signed in as `subject`, and its MCP token. */
async function signIn(server: RunningServer, subject: string): Promise<{ client: Client; mcpToken: string }> {
  const mcpToken = await as.token(subject, server.url);
  const client = await connect('http', server.url, { headers: { authorization: `Bearer ${mcpToken}` } });
  clients.push(client);
  return { client, mcpToken };
}

/** Calls the tool and answers what the upstream received for it. */
async function call(client: Client, name: string): Promise<Recorded> {
  const before = upstream.requests.length;
  const result = await client.callTool({ name, arguments: {} });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(upstream.requests).toHaveLength(before + 1);
  return upstream.requests[before] as Recorded;
}

const everythingSent = () => upstream.requests.map((r) => JSON.stringify([r.url, r.headers, r.body.toString()])).join('\n');

describe('token exchange (RFC 8693) through mcp-gen serve', () => {
  let server: RunningServer;
  beforeAll(async () => {
    upstream.clear();
    as.exchanges.splice(0);
    server = await serve('--token-exchange-audience', API);
  });

  it("each caller's call reaches the API with the token issued for that caller, never the MCP token", async () => {
    const alice = await signIn(server, 'alice');
    const bob = await signIn(server, 'bob');
    expect((await call(alice.client, 'get_me')).headers.authorization).toBe('Bearer api-token-for-alice');
    expect((await call(bob.client, 'get_me')).headers.authorization).toBe('Bearer api-token-for-bob');
    // No security declared: the caller's API token as Authorization.
    expect((await call(alice.client, 'get_public')).headers.authorization).toBe('Bearer api-token-for-alice');
    // An apiKey scheme keeps the server's own key, and gets no token of the caller.
    const keyed = await call(bob.client, 'get_keyed');
    expect(keyed.headers['x-api-key']).toBe('server-api-key');
    expect(keyed.headers.authorization).toBeUndefined();
    // The bearer alternative went first, ahead of the server's key: the API sees the user.
    expect((await call(alice.client, 'get_me')).headers['x-api-key']).toBeUndefined();

    const sent = everythingSent();
    for (const secret of [alice.mcpToken, bob.mcpToken, 'server-own-oauth-token', CLIENT_SECRET]) expect(sent).not.toContain(secret);
    // One exchange per caller: alice's later calls used the cached token.
    expect(as.exchanges.map((e) => e.subject)).toEqual(['alice', 'bob']);
    expect(as.exchanges[0]?.form).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: alice.mcpToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: API,
      resource: API,
    });
  });

  it('the API refuses an exchanged token (401): one fresh exchange and one more try', async () => {
    const dave = await signIn(server, 'dave');
    const before = upstream.requests.length;
    const result = await dave.client.callTool({ name: 'get_me', arguments: {} });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(upstream.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      'Bearer api-token-for-dave',
      'Bearer api-token-for-dave-2',
    ]);
    expect(as.exchanges.filter((e) => e.subject === 'dave')).toHaveLength(2);
  });

  it("the exchanged token is taken out of what the API's refusal quotes", async () => {
    const erin = await signIn(server, 'erin');
    const result = await erin.client.callTool({ name: 'get_me', arguments: {} });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain('forbidden: Bearer ***');
    expect(text).not.toContain('api-token-for-erin');
  });

  it('a refused exchange is the tool error, in one line without the token', async () => {
    as.revoked.add('carol');
    const carol = await signIn(server, 'carol');
    const before = upstream.requests.length;
    const result = await carol.client.callTool({ name: 'get_me', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(text).toBe(
      "get_me: the authorization server would not exchange the caller's token (invalid_grant: subject token of carol revoked): it may have expired or been revoked; sign in again",
    );
    expect(upstream.requests).toHaveLength(before);
  });
});

describe('the identity header through mcp-gen serve', () => {
  it("sends the caller's subject, and without token exchange no Authorization of the caller's", async () => {
    upstream.clear();
    const server = await serve('--upstream-identity-header', 'X-Caller');
    const alice = await signIn(server, 'alice');
    const bob = await signIn(server, 'bob');
    const fromAlice = await call(alice.client, 'get_public');
    expect(fromAlice.headers['x-caller']).toBe('alice');
    expect(fromAlice.headers.authorization).toBeUndefined();
    expect((await call(bob.client, 'get_keyed')).headers['x-caller']).toBe('bob');
    // get_me: the server's own OAuth token, as without OAuth in front.
    expect((await call(alice.client, 'get_me')).headers).toMatchObject({ 'x-caller': 'alice', 'x-api-key': 'server-api-key' });
    const sent = everythingSent();
    for (const secret of [alice.mcpToken, bob.mcpToken]) expect(sent).not.toContain(secret);
  });

  it('with token exchange too: both the API token and the subject', async () => {
    upstream.clear();
    const server = await serve('--token-exchange-audience', API, '--upstream-identity-header', 'X-Caller');
    const alice = await signIn(server, 'alice');
    expect((await call(alice.client, 'get_me')).headers).toMatchObject({
      authorization: 'Bearer api-token-for-alice',
      'x-caller': 'alice',
    });
    // A redirect to another origin: the caller's token and identity stay behind, as static headers do.
    const frank = await signIn(server, 'frank');
    const before = upstream.requests.length;
    const result = await frank.client.callTool({ name: 'get_me', arguments: {} });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const [first, second] = upstream.requests.slice(before) as [Recorded, Recorded];
    expect(first.headers).toMatchObject({ authorization: 'Bearer api-token-for-frank', 'x-caller': 'frank' });
    expect(second.path).toBe('/elsewhere');
    expect(second.headers.authorization).toBeUndefined();
    expect(second.headers['x-caller']).toBeUndefined();
  });
});
