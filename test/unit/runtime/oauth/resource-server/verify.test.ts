// The two token checks against a real authorization server (oidc-provider): JWTs by its JWKS,
// refreshed once on a rotated key and never more often than the cooldown; opaque tokens by
// introspection, with the cache's trade-off against revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError, verifyBearerToken } from '@modelcontextprotocol/server';
import { importJWK, SignJWT, type JWK } from 'jose';
import { discoverAuthorizationServer } from '../../../../../src/runtime/oauth/resource-server/discovery.js';
import { introspectionVerifier, jwtVerifier } from '../../../../../src/runtime/oauth/resource-server/verify.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../../harness/authorization-server.js';

const MCP = 'http://127.0.0.1:4999/';
const audience = { audiences: [MCP], resource: MCP };
const refusal = async (check: Promise<unknown>): Promise<string> => {
  const error = await check.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  return (error as OAuthError).code;
};

describe('JWT access tokens by the JWKS', () => {
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await startAuthorizationServer({ resources: { [MCP]: { scopes: ['mcp:read', 'mcp:write'] } } });
  });
  afterAll(() => as?.close());

  it('accepts a token of the issuer for this resource, with its subject, client and scopes', async () => {
    const verify = jwtVerifier(await discoverAuthorizationServer(as.issuer))(audience);
    const token = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    const info = await verify.verifyAccessToken(token);
    expect(info).toMatchObject({ scopes: ['mcp:read'], resource: new URL(MCP), extra: { subject: 'alice', issuer: as.issuer } });
    expect(info.clientId).not.toBe('');
    expect(info.expiresAt).toBeGreaterThan(Date.now() / 1000);
    // the same token for an audience this server does not accept
    expect(
      await refusal(
        jwtVerifier(await discoverAuthorizationServer(as.issuer))({ audiences: ['https://else/'], resource: MCP }).verifyAccessToken(token),
      ),
    ).toBe('invalid_token');
  });

  it('a remembered token still stops at its exp', async () => {
    const verifier = jwtVerifier(await discoverAuthorizationServer(as.issuer))(audience);
    const key = as.signingKeys.at(-1) as JWK;
    const token = await new SignJWT({ sub: 'alice', scope: 'mcp:read' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid as string })
      .setIssuer(as.issuer)
      .setAudience(MCP)
      .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
      .sign(await importJWK(key, 'ES256'));
    const check = () => verifyBearerToken(`Bearer ${token}`, { verifier, expectedResource: new URL(MCP) });
    expect((await check()).extra?.subject).toBe('alice');
    expect((await check()).extra?.subject).toBe('alice');
    await new Promise((r) => setTimeout(r, 2_100));
    expect(await refusal(check())).toBe('invalid_token');
  });

  it('a rotated key costs one JWKS fetch; unknown kids within the cooldown cost none', async () => {
    const verify = jwtVerifier(await discoverAuthorizationServer(as.issuer), 300)(audience);
    await verify.verifyAccessToken(await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP }));
    const fetched = as.jwksRequests;
    as.rotateKey();
    const rotated = await as.issueToken({ user: 'bob', scopes: ['mcp:read'], resource: MCP });
    // within the cooldown the new kid is not fetched: refused, no request
    expect(await refusal(verify.verifyAccessToken(rotated))).toBe('invalid_token');
    expect(as.jwksRequests).toBe(fetched);
    await new Promise((r) => setTimeout(r, 350));
    expect((await verify.verifyAccessToken(rotated)).extra?.subject).toBe('bob');
    expect(as.jwksRequests).toBe(fetched + 1);
  });
});

describe('opaque tokens by introspection', () => {
  let as: AuthorizationServer;
  const client = { clientId: 'mcp-server', clientSecret: 'introspection-secret' };
  beforeAll(async () => {
    as = await startAuthorizationServer({ format: 'opaque', resources: { [MCP]: { scopes: ['mcp:read'] } } });
    await as.registerClient({ ...client, resource: MCP });
  });
  afterAll(() => as?.close());

  it('accepts an active token and refuses a revoked one at once without a cache', async () => {
    const verify = introspectionVerifier(await discoverAuthorizationServer(as.issuer), { ...client, cacheMs: 0 })(audience);
    const token = await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP });
    expect((await verify.verifyAccessToken(token)).extra?.subject).toBe('alice');
    await as.revoke(token);
    expect(await refusal(verify.verifyAccessToken(token))).toBe('invalid_token');
    expect(await refusal(verify.verifyAccessToken('not-a-token'))).toBe('invalid_token');
  });

  it('with a cache, a revoked token still works until the cache forgets it: the documented trade-off', async () => {
    const verify = introspectionVerifier(await discoverAuthorizationServer(as.issuer), { ...client, cacheMs: 60_000 })(audience);
    const token = await as.issueToken({ user: 'bob', scopes: ['mcp:read'], resource: MCP });
    await verify.verifyAccessToken(token);
    await as.revoke(token);
    expect((await verify.verifyAccessToken(token)).extra?.subject).toBe('bob');
  });

  it('a burst with one token asks the authorization server once; an inactive answer is remembered too', async () => {
    const verify = introspectionVerifier(await discoverAuthorizationServer(as.issuer), { ...client, cacheMs: 60_000 })(audience);
    const token = await as.issueToken({ user: 'carol', scopes: ['mcp:read'], resource: MCP });
    let before = as.introspectionRequests;
    const burst = await Promise.all(Array.from({ length: 10 }, () => verify.verifyAccessToken(token)));
    expect(burst.every((info) => info.extra?.subject === 'carol')).toBe(true);
    expect(as.introspectionRequests - before).toBe(1);
    before = as.introspectionRequests;
    for (let i = 0; i < 5; i++) expect(await refusal(verify.verifyAccessToken('never-issued'))).toBe('invalid_token');
    expect(as.introspectionRequests - before).toBe(1);
  });

  it('a token for another audience is refused', async () => {
    const verify = introspectionVerifier(await discoverAuthorizationServer(as.issuer), { ...client, cacheMs: 0 })({
      audiences: ['https://someone-else/'],
      resource: MCP,
    });
    expect(await refusal(verify.verifyAccessToken(await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP })))).toBe(
      'invalid_token',
    );
  });

  it("wrong client credentials are the server's problem (500), not the token's", async () => {
    const verify = introspectionVerifier(await discoverAuthorizationServer(as.issuer), {
      clientId: 'mcp-server',
      clientSecret: 'wrong',
      cacheMs: 0,
    })(audience);
    expect(await refusal(verify.verifyAccessToken(await as.issueToken({ user: 'alice', scopes: ['mcp:read'], resource: MCP })))).toBe(
      'server_error',
    );
  });
});

describe('discovery', () => {
  it('a dead issuer is one line naming what was tried', async () => {
    await expect(discoverAuthorizationServer('http://127.0.0.1:1/realms/x')).rejects.toThrow(
      /^cannot discover the authorization server http:\/\/127\.0\.0\.1:1\/realms\/x \(http:\/\/127\.0\.0\.1:1\/\.well-known\/oauth-authorization-server\/realms\/x: unreachable/,
    );
  });
});
