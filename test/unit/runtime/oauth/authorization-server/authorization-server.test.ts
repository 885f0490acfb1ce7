// The tests' authorization server (test/harness/authorization-server.ts) checked over real HTTP:
// discovery, the MCP SDK's own registration + authorization code + PKCE helpers against it, the
// tokens it issues (JWT verified with jose against its JWKS; opaque through introspection), token
// exchange, revocation, key rotation and per-user scope limits.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auth,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  type AuthorizationServerMetadata,
  type OAuthClientInformationFull,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_TYPE,
  TOKEN_EXCHANGE_GRANT,
  startAuthorizationServer,
  type AuthorizationServer,
  type AuthorizationServerOptions,
} from '../../../../harness/authorization-server.js';

const MCP = 'http://127.0.0.1:4567/mcp';
const API = 'http://127.0.0.1:4568/api';
const REDIRECT = 'http://127.0.0.1:9999/callback';
const RS = { clientId: 'mcp-server', clientSecret: 'mcp-server-secret' };

const servers: AuthorizationServer[] = [];
async function start(options: Partial<AuthorizationServerOptions> = {}): Promise<AuthorizationServer> {
  const as = await startAuthorizationServer({
    resources: { [MCP]: { scopes: ['mcp:read', 'mcp:write'] }, [API]: { scopes: ['api:read'] } },
    ...options,
  });
  servers.push(as);
  await as.registerClient(RS);
  return as;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** What an MCP client does: discover, register itself, authorize with PKCE, redeem the code. */
async function codeFlow(as: AuthorizationServer, user: string, scope = 'mcp:read mcp:write', resource = MCP) {
  const metadata = (await discoverAuthorizationServerMetadata(as.issuer)) as AuthorizationServerMetadata;
  // with the scope, as the SDK's auth() does when the resource advertises scopes
  const clientInformation: OAuthClientInformationFull = await registerClient(as.issuer, {
    metadata,
    scope,
    clientMetadata: {
      redirect_uris: [REDIRECT],
      client_name: 'test client',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  });
  const { authorizationUrl, codeVerifier } = await startAuthorization(as.issuer, {
    metadata,
    clientInformation,
    redirectUrl: REDIRECT,
    scope,
    state: 'st4te',
    resource: new URL(resource),
  });
  const signedIn = await as.signIn(authorizationUrl, user);
  const tokens = await exchangeAuthorization(as.issuer, {
    metadata,
    clientInformation,
    authorizationCode: signedIn.code,
    iss: signedIn.iss,
    codeVerifier,
    redirectUri: signedIn.redirectUri,
    resource: new URL(resource),
  });
  return { metadata, clientInformation, signedIn, tokens, authorizationUrl };
}

function basic({ clientId, clientSecret }: { clientId: string; clientSecret: string }) {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

async function postForm(url: string, form: Record<string, string>, client = RS) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const introspect = (as: AuthorizationServer, token: string) => postForm(`${as.issuer}/token/introspection`, { token }).then((r) => r.body);

const exchangeForm = (subjectToken: string, extra: Record<string, string> = { resource: API }) => ({
  grant_type: TOKEN_EXCHANGE_GRANT,
  subject_token: subjectToken,
  subject_token_type: ACCESS_TOKEN_TYPE,
  ...extra,
});

const exchange = (as: AuthorizationServer, subjectToken: string, extra?: Record<string, string>) =>
  postForm(`${as.issuer}/token`, exchangeForm(subjectToken, extra));

async function verify(as: AuthorizationServer, token: string, audience: string) {
  const jwks = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
  return jwtVerify(token, jwks, { issuer: as.issuer, audience, algorithms: ['ES256'], typ: 'at+jwt' });
}

describe('discovery', () => {
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await start();
  });

  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
    '%s lists every endpoint and capability the tests rely on',
    async (path) => {
      const res = await fetch(`${as.issuer}${path}`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(doc).toMatchObject({
        issuer: as.issuer,
        jwks_uri: `${as.issuer}/jwks`,
        authorization_endpoint: `${as.issuer}/auth`,
        token_endpoint: `${as.issuer}/token`,
        introspection_endpoint: `${as.issuer}/token/introspection`,
        revocation_endpoint: `${as.issuer}/token/revocation`,
        registration_endpoint: `${as.issuer}/reg`,
        code_challenge_methods_supported: ['S256'],
      });
      expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT]));
    },
  );
});

describe('authorization code + PKCE with a resource indicator, JWT access tokens', () => {
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await start({ userScopes: { bob: ['mcp:read'] } });
  });

  it('issues a signed JWT for the resource, with the user, scopes and client', async () => {
    const { tokens, signedIn, clientInformation } = await codeFlow(as, 'alice');
    expect(signedIn.state).toBe('st4te');
    expect(signedIn.redirectUri).toBe(REDIRECT);
    const { payload, protectedHeader } = await verify(as, tokens.access_token, MCP);
    expect(protectedHeader.kid).toBe(as.signingKeys[0]!.kid);
    expect(payload).toMatchObject({ iss: as.issuer, sub: 'alice', aud: MCP, client_id: clientInformation.client_id });
    expect(String(payload.scope).split(' ').sort()).toEqual(['mcp:read', 'mcp:write']);
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
  });

  it('needs PKCE: an authorization request without a code_challenge is refused', async () => {
    const { authorizationUrl } = await codeFlow(as, 'alice');
    const url = new URL(authorizationUrl);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    await expect(as.signIn(url, 'alice')).rejects.toThrow(/invalid_request.*requires PKCE/);
  });

  it('refuses a resource it does not know', async () => {
    await expect(codeFlow(as, 'alice', 'mcp:read', 'http://127.0.0.1:1/elsewhere')).rejects.toThrow(/invalid_target/);
  });

  it('issues a refresh token that yields a new access token for the same resource', async () => {
    const { tokens, metadata, clientInformation } = await codeFlow(as, 'alice');
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await refreshAuthorization(as.issuer, {
      metadata,
      clientInformation,
      refreshToken: tokens.refresh_token!,
      resource: new URL(MCP),
    });
    const { payload } = await verify(as, refreshed.access_token, MCP);
    expect(payload.sub).toBe('alice');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });

  it('grants a user listed in userScopes no more than those', async () => {
    const { tokens } = await codeFlow(as, 'bob');
    const { payload } = await verify(as, tokens.access_token, MCP);
    expect(payload).toMatchObject({ sub: 'bob', scope: 'mcp:read' });
  });

  it('issueToken mints the same kind of token without the flow', async () => {
    const token = await as.issueToken({ user: 'carol', scopes: ['mcp:write'], resource: MCP });
    const { payload } = await verify(as, token, MCP);
    expect(payload).toMatchObject({ iss: as.issuer, sub: 'carol', aud: MCP, scope: 'mcp:write' });
  });

  it('a resource added after start is accepted from then on', async () => {
    const late = 'http://127.0.0.1:4569/mcp';
    await expect(as.issueToken({ user: 'alice', scopes: ['x'], resource: late })).rejects.toThrow();
    as.addResource(late, ['x']);
    const { tokens } = await codeFlow(as, 'alice', 'x', late);
    expect((await verify(as, tokens.access_token, late)).payload.scope).toBe('x');
  });

  it('signingKeys hold the private key the tokens verify with, so a test can forge a well-signed token', async () => {
    const key = as.signingKeys.at(-1)!;
    const forged = await new SignJWT({ scope: 'mcp:read', client_id: 'x' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid!, typ: 'at+jwt' })
      .setIssuer(as.issuer)
      .setSubject('mallory')
      .setAudience('http://127.0.0.1:1/wrong')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(await importJWK(key, 'ES256'));
    await expect(verify(as, forged, MCP)).rejects.toThrow(/aud/);
    expect((await verify(as, forged, 'http://127.0.0.1:1/wrong')).payload.sub).toBe('mallory');
  });
});

describe("the MCP SDK's own auth() against it", () => {
  it('discovers it through protected resource metadata, registers, signs in and gets a token for the resource', async () => {
    const as = await start();
    // a real HTTP server standing in for the MCP server's RFC 9728 metadata, nothing else
    const prm = createServer((req, res) => {
      res.writeHead(req.url?.startsWith('/.well-known/oauth-protected-resource') ? 200 : 404, {
        'content-type': 'application/json',
      });
      res.end(JSON.stringify({ resource, authorization_servers: [as.issuer], scopes_supported: ['mcp:read', 'mcp:write'] }));
    });
    await new Promise<void>((resolve) => prm.listen(0, '127.0.0.1', resolve));
    const resource = `http://127.0.0.1:${(prm.address() as AddressInfo).port}/mcp`;
    as.addResource(resource, ['mcp:read', 'mcp:write']);
    try {
      const client = memoryClientProvider();
      expect(await auth(client.provider, { serverUrl: resource })).toBe('REDIRECT');
      const { code, iss } = await as.signIn(client.authorizationUrl(), 'alice');
      expect(await auth(client.provider, { serverUrl: resource, authorizationCode: code, iss })).toBe('AUTHORIZED');
      const { payload } = await verify(as, client.accessToken(), resource);
      expect(payload).toMatchObject({ sub: 'alice', aud: resource, scope: 'mcp:read mcp:write' });
    } finally {
      prm.closeAllConnections();
      prm.close();
    }
  });
});

/** The smallest OAuthClientProvider: everything in memory, the redirect captured instead of opened. */
function memoryClientProvider() {
  let info: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0] | undefined;
  let tokens: Parameters<OAuthClientProvider['saveTokens']>[0] | undefined;
  let verifier = '';
  let redirect: URL | undefined;
  const provider: OAuthClientProvider = {
    redirectUrl: REDIRECT,
    clientMetadata: { redirect_uris: [REDIRECT], client_name: 'sdk auth() test', token_endpoint_auth_method: 'none' },
    clientInformation: () => info,
    saveClientInformation: (saved) => void (info = saved),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    redirectToAuthorization: (url) => void (redirect = url),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
  return {
    provider,
    authorizationUrl: () => redirect!,
    accessToken: () => tokens!.access_token,
  };
}

describe('opaque access tokens and introspection', () => {
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await start({ format: 'opaque', accessTokenTtl: 600 });
  });

  it('issues an opaque token that introspection describes', async () => {
    const { tokens, clientInformation } = await codeFlow(as, 'alice', 'mcp:read');
    expect(tokens.access_token.split('.')).toHaveLength(1);
    const info = await introspect(as, tokens.access_token);
    expect(info).toMatchObject({
      active: true,
      scope: 'mcp:read',
      aud: MCP,
      sub: 'alice',
      client_id: clientInformation.client_id,
      iss: as.issuer,
    });
    expect(Number(info.exp) - Math.floor(Date.now() / 1000)).toBeGreaterThan(590);
  });

  it('reports a revoked or unknown token inactive', async () => {
    const token = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    expect((await introspect(as, token)).active).toBe(true);
    await as.revoke(token);
    expect(await introspect(as, token)).toEqual({ active: false });
    expect(await introspect(as, 'not-a-token')).toEqual({ active: false });
  });

  it('exchanges an opaque subject token for an opaque token aimed at the API', async () => {
    const subject = await as.issueToken({ user: 'dave', scopes: ['mcp:read'], resource: MCP });
    const { status, body } = await exchange(as, subject);
    expect(status).toBe(200);
    expect(await introspect(as, String(body.access_token))).toMatchObject({
      active: true,
      sub: 'dave',
      aud: API,
      client_id: RS.clientId,
      scope: 'api:read',
    });
  });
});

describe('token exchange (RFC 8693)', () => {
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await start();
  });

  it('trades the user token for a new one with the API audience and the same subject', async () => {
    const { tokens } = await codeFlow(as, 'alice');
    const before = as.exchanges.length;
    const { status, body } = await exchange(as, tokens.access_token, { resource: API, scope: 'api:read' });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'api:read',
    });
    const { payload } = await verify(as, String(body.access_token), API);
    expect(payload).toMatchObject({ sub: 'alice', aud: API, scope: 'api:read', client_id: RS.clientId });
    expect(as.exchanges.slice(before)).toEqual([
      { clientId: RS.clientId, subject: 'alice', resource: API, audience: undefined, scope: 'api:read' },
    ]);
  });

  it('names a logical audience when asked to', async () => {
    as.addResource('billing', ['billing:read']);
    const subject = await as.issueToken({ user: 'erin', scopes: ['mcp:read'], resource: MCP });
    const { status, body } = await exchange(as, subject, { audience: 'billing' });
    expect(status).toBe(200);
    expect(decodeJwt(String(body.access_token))).toMatchObject({ sub: 'erin', aud: 'billing', scope: 'billing:read' });
  });

  it.each([
    ['garbage', () => 'garbage'],
    ['a JWT signed by someone else', () => forgeWithNewKey(as)],
    ['an expired token', () => forgeExpired(as)],
  ])('refuses %s as the subject token with invalid_grant', async (_name, subject) => {
    const before = as.exchanges.length;
    const { status, body } = await exchange(as, await subject());
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
    expect(as.exchanges.length).toBe(before);
  });

  it('refuses a revoked subject token', async () => {
    const subject = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    expect((await exchange(as, subject)).status).toBe(200);
    await as.revoke(subject);
    expect((await exchange(as, subject)).body.error).toBe('invalid_grant');
  });

  it('refuses a target it does not know, and scopes the target does not accept', async () => {
    const subject = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    expect((await exchange(as, subject, { resource: 'http://127.0.0.1:1/x' })).body.error).toBe('invalid_target');
    expect((await exchange(as, subject, { resource: API, scope: 'mcp:write' })).body.error).toBe('invalid_scope');
  });

  it('is for confidential clients that registered the grant, authenticated', async () => {
    const subject = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    const wrongSecret = await postForm(
      `${as.issuer}/token`,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: API },
      { clientId: RS.clientId, clientSecret: 'wrong' },
    );
    expect(wrongSecret.body.error).toBe('invalid_client');
    await as.registerClient({ clientId: 'no-exchange', clientSecret: 's3cret', grantTypes: ['client_credentials'] });
    const notAllowed = await postForm(
      `${as.issuer}/token`,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: API },
      { clientId: 'no-exchange', clientSecret: 's3cret' },
    );
    expect(notAllowed.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/not allowed/) });
  });

  it('for a client registered with its resource, takes only subject tokens issued for that resource', async () => {
    const bound = { clientId: 'bound-rs', clientSecret: 'bound-secret', resource: MCP };
    await as.registerClient(bound);
    const forMcp = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    const forApi = await as.issueToken({ user: 'alice', scopes: ['api:read'], resource: API });
    expect((await postForm(`${as.issuer}/token`, exchangeForm(forMcp), bound)).status).toBe(200);
    const refused = await postForm(`${as.issuer}/token`, exchangeForm(forApi, { resource: MCP }), bound);
    expect(refused.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/not issued for/) });
  });

  it('refuses a public client even if it registered the grant', async () => {
    const registered = await fetch(`${as.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const subject = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    const res = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id,
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: subject,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: API,
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('unauthorized_client');
  });
});

describe('signing key rotation', () => {
  it('publishes a new kid, signs with it, and counts JWKS fetches', async () => {
    const as = await start();
    const first = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    const oldKid = decodeProtectedHeader(first).kid;
    expect(as.jwksRequests).toBe(0);
    const jwks = async () => ((await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: { kid: string; d?: string }[] }).keys;
    expect((await jwks()).map((k) => k.kid)).toEqual([oldKid]);
    expect(as.jwksRequests).toBe(1);

    const added = as.rotateKey();
    expect(added.kid).not.toBe(oldKid);
    const second = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    expect(decodeProtectedHeader(second).kid).toBe(added.kid);
    const published = await jwks();
    expect(published.map((k) => k.kid)).toEqual([oldKid, added.kid]);
    expect(published.every((k) => k.d === undefined)).toBe(true);
    expect(as.jwksRequests).toBe(2);
    // both verify against the published set; the old one still does
    expect((await verify(as, first, MCP)).payload.sub).toBe('alice');
    expect((await verify(as, second, MCP)).protectedHeader.kid).toBe(added.kid);
    expect(as.signingKeys.map((k) => k.kid)).toEqual([oldKid, added.kid]);
  });
});

/** A well-formed access token signed with a key the server never had. */
async function forgeWithNewKey(as: AuthorizationServer): Promise<string> {
  const { generateKeyPair } = await import('jose');
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ scope: 'mcp:read', client_id: 'x' })
    .setProtectedHeader({ alg: 'ES256', kid: as.signingKeys[0]!.kid!, typ: 'at+jwt' })
    .setIssuer(as.issuer)
    .setSubject('alice')
    .setAudience(MCP)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
}

/** Correctly signed but expired an hour ago. */
async function forgeExpired(as: AuthorizationServer): Promise<string> {
  const key = as.signingKeys[0]!;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'mcp:read', client_id: 'x' })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid!, typ: 'at+jwt' })
    .setIssuer(as.issuer)
    .setSubject('alice')
    .setAudience(MCP)
    .setIssuedAt(now - 7200)
    .setExpirationTime(now - 3600)
    .sign(await importJWK(key, 'ES256'));
}
