// A generated server as the MCP clients' authorization server, delegating each user's sign-in
// to the API's own OAuth (--oauth-api-client-id): oidc-provider on 127.0.0.1 plays the API's
// authorization server, and the recording upstream accepts only the JWTs it issues for the API.
// The official SDK client runs the whole flow (discovery, registration by client ID metadata
// document or RFC 7591, /authorize, consent, the API's sign-in, callback, token) over every
// transport and both protocol eras; two users never cross; a restart keeps them signed in; and
// every attack of the issue fails closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildProject, generateProject, REPO, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { Children } from '../harness/children.js';
import {
  answerConsent,
  connectSigningIn,
  delegatedSignIn,
  headlessLogin,
  initializeWith,
  newBrowser,
  openConsent,
  signInAtApiArgs,
  startApiUpstream,
} from '../harness/delegated-sign-in.js';
import type { Upstream } from '../harness/upstream.js';
import { selfSignedCertificate } from '../harness/tls.js';

/** The API as its authorization server names it: the audience of the API tokens. */
const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-mcp-app', clientSecret: `app-secret-${randomBytes(8).toString('hex')}` };
const STORE_KEY = randomBytes(32).toString('base64');
const REDIRECT = 'http://127.0.0.1:1/callback';

let as: AuthorizationServer;
let upstream: Upstream;
let dir: string;
let main: RunningServer;
let stateless: RunningServer;
let mainUrl: string;
let statelessUrl: string;
let mainData: string;
let cert: { key: string; cert: string; path: string };
let documents: HttpsServer;
let documentRequests = 0;
/** Subjects whose API access the upstream refuses from now on (the user revoked the app at the API). */
const revokedAtApi = new Set<string>();
const children = new Children();

function serverArgs(url: string, data: string): string[] {
  return [
    '--port',
    new URL(url).port,
    '--public-url',
    url,
    ...signInAtApiArgs(as, APP.clientId),
    '--data-dir',
    data,
    '--base-url',
    `${upstream.url}/v2`,
  ];
}

function serverEnv(): Record<string, string> {
  return {
    MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret,
    MCP_TOKEN_STORE_KEY: STORE_KEY,
    SWAGGER_PETSTORE_API_KEY: 'server-own-key',
    // the test's client ID metadata documents are served over https with a certificate of its own
    NODE_EXTRA_CA_CERTS: cert.path,
  };
}

beforeAll(async () => {
  const work = join(TMP, `oauth-server-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cert = selfSignedCertificate(work);
  as = await startAuthorizationServer({
    format: 'jwt',
    resources: { [API]: { scopes: ['read:pets', 'write:pets'] } },
    defaultResource: API,
  });
  upstream = await startApiUpstream(as, API, revokedAtApi);
  documents = createHttpsServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    documentRequests += 1;
    const url = `https://127.0.0.1:${(documents.address() as AddressInfo).port}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        client_id: url,
        client_name: 'Metadata Document Client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  mainUrl = `http://127.0.0.1:${await freePort()}`;
  statelessUrl = `http://127.0.0.1:${await freePort()}`;
  await as.registerClient({
    ...APP,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [`${mainUrl}/oauth/callback`, `${statelessUrl}/oauth/callback`],
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-server');
  await buildProject(dir);
  mainData = join(work, 'main-data');
  main = await startServer(dir, 'http+sse', serverArgs(mainUrl, mainData), serverEnv());
  children.track(main.process);
  stateless = await startServer(dir, 'http', ['--stateless', ...serverArgs(statelessUrl, join(work, 'stateless-data'))], serverEnv());
  children.track(stateless.process);
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await as?.close();
  await upstream?.close();
  documents?.close();
});

/** The SDK client's provider; the user's browser part runs headlessly when the SDK redirects. */
const signInAs = (user: string, options: { clientMetadataUrl?: string } = {}) => headlessLogin(as, user, REDIRECT, options);

type Kind = 'http' | 'http-2026' | 'sse' | 'http-stateless' | 'http-2026-stateless';

async function connectAs(user: string, kind: Kind, login = signInAs(user)) {
  const base = kind.endsWith('-stateless') ? statelessUrl : mainUrl;
  const transport = () =>
    kind === 'sse'
      ? new SSEClientTransport(new URL(`${base}/sse`), { authProvider: login.provider })
      : new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: login.provider });
  const options = kind.startsWith('http-2026') ? { versionNegotiation: { mode: 'auto' as const } } : {};
  return { login, ...(await connectSigningIn(`e2e-${user}`, login, transport, options)) };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const findPets = (client: Client) => client.callTool({ name: 'findPetsByStatus', arguments: { status: ['available'] } });

/** The subject of the API token the upstream received last. */
async function lastApiSubject(): Promise<string | undefined> {
  const last = upstream.requests.at(-1);
  const token = /^Bearer (.+)$/.exec(String(last?.headers.authorization ?? ''))?.[1];
  if (token === undefined) return undefined;
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).sub as string;
}

describe('the SDK client signs in at the API through the server, and calls with its own API token', () => {
  it.each<Kind>(['http', 'http-2026', 'sse', 'http-stateless', 'http-2026-stateless'])(
    'over %s, two users never crossed',
    async (kind) => {
      const alice = await connectAs('alice', kind);
      const bob = await connectAs('bob', kind);
      try {
        // dynamic registration: the SDK registered, then came back with its client_id
        expect(alice.login.clientId()).toMatch(/^mcp_/);
        expect(alice.login.asked()?.searchParams.get('code_challenge_method')).toBe('S256');
        for (const [who, session] of [
          ['alice', alice],
          ['bob', bob],
          ['alice', alice],
        ] as const) {
          const result = await findPets(session.client);
          expect(result.isError, textOf(result)).toBeFalsy();
          expect(textOf(result)).toContain(`pet of ${who}`);
          expect(await lastApiSubject()).toBe(who);
          // the MCP token never goes upstream, nor the server's own API key
          const sent = upstream.requests.at(-1) as (typeof upstream.requests)[number];
          expect(String(sent.headers.authorization)).not.toContain(session.login.tokens()?.access_token as string);
        }
      } finally {
        await alice.client.close();
        await bob.client.close();
      }
    },
    60_000,
  );

  it('a client ID metadata document is the registration the SDK uses when the server offers it', async () => {
    const url = `https://127.0.0.1:${(documents.address() as AddressInfo).port}/clients/e2e.json`;
    const before = documentRequests;
    const login = signInAs('carol', { clientMetadataUrl: url });
    const carol = await connectAs('carol', 'http', login);
    try {
      expect(login.asked()?.searchParams.get('client_id')).toBe(url);
      expect(documentRequests).toBeGreaterThan(before);
      const result = await findPets(carol.client);
      expect(textOf(result)).toContain('pet of carol');
    } finally {
      await carol.client.close();
    }
  }, 60_000);

  it('the consent page names the client, its redirect, the tools and scopes, and cannot be framed', async () => {
    const url = `https://127.0.0.1:${(documents.address() as AddressInfo).port}/clients/page.json`;
    const authorize = authorizeUrl(url, REDIRECT);
    const res = await fetch(authorize);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('Metadata Document Client');
    expect(html).toContain(REDIRECT);
    expect(html).toContain('findPetsByStatus');
    expect(html).toMatch(/mcp:read/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('set-cookie')).toMatch(/^mcp_consent=[^;]+;.*HttpOnly; SameSite=Strict/);
  });
});

const VERIFIER = randomBytes(32).toString('base64url');

/** An authorization request as a client makes it, with the test's PKCE pair. */
function authorizeUrl(clientId: string, redirectUri: string, extra: Record<string, string> = {}) {
  const url = new URL(`${mainUrl}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    state: 'client-state-1',
    code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return url;
}

async function registerClient(redirectUris = [REDIRECT]): Promise<string> {
  const res = await fetch(`${mainUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: redirectUris, client_name: 'attack test', token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

async function tokenRequest(fields: Record<string, string>) {
  const res = await fetch(`${mainUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** A code for `user` by the whole browser way, for the attack tests' token requests. */
async function codeFor(clientId: string, user: string): Promise<string> {
  const back = await delegatedSignIn(as, authorizeUrl(clientId, REDIRECT), user);
  expect(back.searchParams.get('state')).toBe('client-state-1');
  expect(back.searchParams.get('iss')).toBe(mainUrl);
  return back.searchParams.get('code') as string;
}

const listTools = (token: string) => initializeWith(`${mainUrl}/mcp`, token);

/** POST /register from another loopback address (all of 127/8 is this machine): to the server, another client. */
function registerFrom(localAddress: string): Promise<{ status: number; retryAfter?: string; body: Record<string, unknown> }> {
  const body = JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'flood', token_endpoint_auth_method: 'none' });
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const req = httpRequest(`${mainUrl}/register`, { method: 'POST', localAddress, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode as number,
          ...(res.headers['retry-after'] !== undefined ? { retryAfter: res.headers['retry-after'] } : {}),
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('attacks fail closed', () => {
  it('a redirect URI that differs by one character gets a page, never a redirect', async () => {
    const clientId = await registerClient();
    for (const uri of [`${REDIRECT}x`, REDIRECT.replace('callback', 'callbacK'), 'https://evil.example/callback']) {
      const res = await fetch(authorizeUrl(clientId, uri), { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    // a loopback redirect on another port is the same redirect (RFC 8252 §7.3)
    const other = await fetch(authorizeUrl(clientId, 'http://127.0.0.1:5555/callback'), { redirect: 'manual' });
    expect(other.status).toBe(200);
  });

  it('an unknown client cannot use /authorize as an open redirect', async () => {
    const res = await fetch(authorizeUrl('no-such-client', 'https://evil.example/'), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it.each<[string, Record<string, string>]>([
    ['no PKCE', { code_challenge: '', code_challenge_method: '' }],
    ['plain PKCE', { code_challenge_method: 'plain' }],
    ['response_type token', { response_type: 'token' }],
  ])('%s is refused back at the client, with its state', async (_label, extra) => {
    const clientId = await registerClient();
    const url = authorizeUrl(clientId, REDIRECT, extra);
    if (extra.code_challenge === '') {
      url.searchParams.delete('code_challenge');
      url.searchParams.delete('code_challenge_method');
    }
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location') as string);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toMatch(/invalid_request|unsupported_response_type/);
    expect(back.searchParams.get('state')).toBe('client-state-1');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('a code works once, with its verifier and redirect URI; used twice, what it gave is revoked', async () => {
    const clientId = await registerClient();
    const wrongVerifier = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: await codeFor(clientId, 'dave'),
      redirect_uri: REDIRECT,
      code_verifier: 'x'.repeat(43),
    });
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrongRedirect = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: await codeFor(clientId, 'dave'),
      redirect_uri: `${REDIRECT}2`,
      code_verifier: VERIFIER,
    });
    expect(wrongRedirect).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const code = await codeFor(clientId, 'dave');
    const first = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect((await listTools(first.body.access_token as string)).status).toBe(200);
    const second = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    });
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await listTools(first.body.access_token as string)).status).toBe(401);
  }, 60_000);

  it('a refresh token is rotated; reused after rotation, the whole family is revoked', async () => {
    const clientId = await registerClient();
    const code = await codeFor(clientId, 'erin');
    const issued = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    });
    const rotated = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token as string,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(issued.body.refresh_token);
    expect((await listTools(rotated.body.access_token as string)).status).toBe(200);
    const reused = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token as string,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await listTools(rotated.body.access_token as string)).status).toBe(401);
    const next = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: rotated.body.refresh_token as string,
    });
    expect(next).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  }, 60_000);

  it("the API's sign-in must come back to the browser that started it, with its own state", async () => {
    const clientId = await registerClient();
    const victim = newBrowser();
    const attacker = newBrowser();
    const form = await openConsent(attacker, authorizeUrl(clientId, REDIRECT));
    const toApi = (await answerConsent(attacker, form, 'allow')).headers.get('location') as string;
    const fromApi = await as.signIn(toApi, 'victim');
    const callback = new URL(fromApi.redirectUri);
    callback.searchParams.set('code', fromApi.code);
    callback.searchParams.set('state', fromApi.state as string);
    // the victim's browser lacks the sign-in cookie: refused
    expect((await victim.fetch(callback)).status).toBe(400);
    // a state that is not this sign-in's: refused
    const tampered = new URL(callback);
    tampered.searchParams.set('state', `${fromApi.state}x`);
    expect((await attacker.fetch(tampered)).status).toBe(400);
  }, 60_000);

  it('the consent form refuses a post from another site, without the cookie, or twice', async () => {
    const clientId = await registerClient();
    const browser = newBrowser();
    const form = await openConsent(browser, authorizeUrl(clientId, REDIRECT));
    expect((await answerConsent(browser, form, 'allow', 'https://evil.example')).status).toBe(403);
    expect((await answerConsent(newBrowser(), form, 'allow')).status).toBe(403);
    const denied = await answerConsent(browser, form, 'deny');
    expect(denied.status).toBe(302);
    expect(new URL(denied.headers.get('location') as string).searchParams.get('error')).toBe('access_denied');
    expect((await answerConsent(browser, form, 'allow')).status).toBe(403);
  });

  it("a token of one user cannot use another user's session", async () => {
    const alice = await connectAs('alice', 'http');
    const bob = await connectAs('bob', 'http');
    try {
      const res = await fetch(`${mainUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${alice.login.tokens()?.access_token}`,
          'mcp-session-id': (bob.transport as StreamableHTTPClientTransport).sessionId as string,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(res.status).toBe(404);
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  }, 60_000);

  it('a registration flood from one address is slowed down (429, Retry-After) and signs no one out', async () => {
    const clientId = await registerClient();
    const issued = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: await codeFor(clientId, 'hana'),
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    });
    expect(issued.status).toBe(200);
    const answers = [];
    for (let i = 0; i < 60; i++) answers.push(await registerFrom('127.0.0.2'));
    expect(answers.filter((answer) => answer.status === 201).length).toBeLessThanOrEqual(30);
    const refused = answers.at(-1)!;
    expect(refused).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable' } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // the signed-in user still refreshes; another address still registers and authorizes
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token as string,
    });
    expect(refreshed.status).toBe(200);
    expect((await listTools(refreshed.body.access_token as string)).status).toBe(200);
    const other = await registerClient();
    expect((await fetch(authorizeUrl(other, REDIRECT), { redirect: 'manual' })).status).toBe(200);
  }, 60_000);

  it('a state of 15 KB is refused back at the client with invalid_request, neither kept nor echoed', async () => {
    const clientId = await registerClient();
    const res = await fetch(authorizeUrl(clientId, REDIRECT, { state: 'x'.repeat(15_000) }), { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location') as string);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/state/);
    expect(back.searchParams.get('state')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('the store file holds no token and no API token; read without the key it gives nothing', async () => {
    const alice = await connectAs('alice', 'http');
    await findPets(alice.client);
    await alice.client.close();
    const files = readdirSync(mainData);
    expect(files).toContain('tokens.jsonl');
    const bytes = readFileSync(join(mainData, 'tokens.jsonl'), 'utf8');
    expect(bytes).not.toContain(alice.login.tokens()?.access_token as string);
    expect(bytes).not.toContain(alice.login.tokens()?.refresh_token as string);
    // no JWT of the API (header.payload.): a bare 'eyJ' also turns up by chance in ~40 KB of base64url ciphertext
    expect(bytes).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
    expect(bytes).not.toContain(APP.clientSecret);
  }, 60_000);
});

describe('a server bound beyond loopback', () => {
  let exposedUrl: string;
  beforeAll(async () => {
    exposedUrl = `http://127.0.0.1:${await freePort()}`;
    const data = join(TMP, `oauth-server-${process.pid}`, 'exposed-data');
    const exposed = await startServer(dir, 'http', ['--host', '0.0.0.0', ...serverArgs(exposedUrl, data)], serverEnv());
    children.track(exposed.process);
  }, 60_000);

  it('fetches no client ID metadata document from an internal address, and tells the caller only that it could not', async () => {
    const port = (documents.address() as AddressInfo).port;
    const before = documentRequests;
    const internal = ['127.0.0.1', '[::1]'].map((host) => `https://${host}:${port}/clients/internal.json`);
    for (const clientId of [...internal, `https://127.0.0.1:${await freePort()}/clients/closed.json`]) {
      const asked = authorizeUrl(clientId, REDIRECT);
      const res = await fetch(new URL(asked.pathname + asked.search, exposedUrl), { redirect: 'manual' });
      const html = await res.text();
      expect(res.status, clientId).toBe(400);
      expect(html).toContain('could not be fetched');
      expect(html).not.toMatch(/ECONNREFUSED|certificate|socket|internal address|HTTP \d/i);
    }
    expect(documentRequests).toBe(before);
  });
});

describe('sign-ins that last, and end', () => {
  it('a restart keeps users signed in (the embedded store)', async () => {
    const alice = await connectAs('alice', 'http');
    const saved = alice.login;
    await alice.client.close();
    await main.stop();
    main = await startServer(dir, 'http+sse', serverArgs(mainUrl, mainData), serverEnv());
    children.track(main.process);
    let redirected = false;
    const provider = { ...saved.provider, redirectToAuthorization: () => void (redirected = true) };
    const client = new Client({ name: 'after-restart', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mainUrl}/mcp`), { authProvider: provider }));
    try {
      expect(textOf(await findPets(client))).toContain('pet of alice');
      expect(redirected).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('an API that revokes access ends the sign-in: one clear tool error, then 401 that restarts sign-in', async () => {
    const frank = await connectAs('frank', 'http');
    try {
      expect(textOf(await findPets(frank.client))).toContain('pet of frank');
      revokedAtApi.add('frank');
      expect(as.revokeUser('frank')).toBeGreaterThan(0);
      const refused = await findPets(frank.client);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/sign in again/);
      const again = await listTools(frank.login.tokens()?.access_token as string);
      expect(again.status).toBe(401);
      expect(again.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata=/);
    } finally {
      revokedAtApi.delete('frank');
      await frank.client.close().catch(() => undefined);
    }
  }, 60_000);

  it('an API that refuses the refresh: a 2025 client that set level error is told so in its log, without a secret', async () => {
    const ivy = await connectAs('ivy', 'http');
    const messages: { level: string; data: unknown }[] = [];
    ivy.client.setNotificationHandler('notifications/message', (n) => void messages.push({ level: n.params.level, data: n.params.data }));
    try {
      await ivy.client.setLoggingLevel('error');
      expect(textOf(await findPets(ivy.client))).toContain('pet of ivy');
      revokedAtApi.add('ivy');
      expect(as.revokeUser('ivy')).toBeGreaterThan(0);
      expect((await findPets(ivy.client)).isError).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(messages).toEqual([{ level: 'error', data: "the API refused to refresh the user's sign-in, which has ended" }]);
    } finally {
      revokedAtApi.delete('ivy');
      await ivy.client.close().catch(() => undefined);
    }
  }, 60_000);

  it('RFC 7009: revoking the refresh token ends the access token too', async () => {
    const clientId = await registerClient();
    const issued = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: await codeFor(clientId, 'gina'),
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    });
    const res = await fetch(`${mainUrl}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.body.refresh_token as string, client_id: clientId }),
    });
    expect(res.status).toBe(200);
    expect((await listTools(issued.body.access_token as string)).status).toBe(401);
  }, 60_000);

  it('publishes RFC 8414 and RFC 9728 metadata that name this server as the authorization server', async () => {
    const asMeta = (await (await fetch(`${mainUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(asMeta).toMatchObject({
      issuer: mainUrl,
      authorization_endpoint: `${mainUrl}/authorize`,
      token_endpoint: `${mainUrl}/token`,
      registration_endpoint: `${mainUrl}/register`,
      revocation_endpoint: `${mainUrl}/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    const prm = (await (await fetch(`${mainUrl}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(prm.authorization_servers).toEqual([mainUrl]);
  });

  it('RFC 9728 §3.3: the 401 of /mcp points at metadata naming <issuer>/mcp, and a token asked for that resource is let in', async () => {
    const refused = await fetch(`${mainUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    const pointed = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1];
    expect(pointed).toBe(`${mainUrl}/.well-known/oauth-protected-resource/mcp`);
    const prm = (await (await fetch(pointed as string)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${mainUrl}/mcp`, authorization_servers: [mainUrl] });
    // /authorize takes that resource, and refuses one that is not this server's
    const other = await fetch(`${mainUrl}/authorize?${new URLSearchParams({ resource: 'https://elsewhere.example/mcp' })}`, {
      redirect: 'manual',
    });
    expect(other.status).not.toBe(200);
  });
});
