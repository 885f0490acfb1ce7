// The server as a client of the API's own OAuth (src/runtime/oauth/upstream-accounts/api-oauth.ts), against a real
// token endpoint on 127.0.0.1 that answers as GitHub, Google and RFC 6749 servers do: where the
// secret goes, how the answers are read, and which refusals end a user's sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, type Answer, type Upstream } from '../../../../harness/upstream.js';
import { apiOAuth, ApiSignInError } from '../../../../../src/runtime/oauth/upstream-accounts/api-oauth.js';
import type { SignInConfig } from '../../../../../src/runtime/start/config.js';
import type { ToolTable } from '../../../../../src/contract/table.js';

let answer: Answer = {};
let token: Upstream;
beforeAll(async () => {
  token = await startUpstream(() => answer);
});
afterAll(async () => token?.close());

const table = (flow?: { authorizationUrl: string; tokenUrl: string; scopes: string[] }): ToolTable =>
  ({
    name: 'acme',
    version: '1',
    servers: [],
    auth: flow ? { oauth: { type: 'oauth2', env: { token: 'T' }, authorizationCode: flow } } : {},
    tools: [
      { name: 'a', security: [{ oauth: ['repo'] }] },
      { name: 'b', security: [{ oauth: ['read:org', 'repo'] }] },
    ],
  }) as unknown as ToolTable;
const settings = (more: Partial<SignInConfig> = {}): SignInConfig => ({
  clientId: 'app id',
  clientSecret: 's3cr:et',
  clientAuth: 'post',
  store: { location: 'file', dataDir: '.', keys: '' },
  tokenUrl: `${token.url}/token`,
  authorizationUrl: 'https://login.example/authorize?access_type=offline&prompt=consent',
  ...more,
});

describe("the API's sign-in URL", () => {
  it('carries the app, the callback, PKCE S256, the state and the scopes the tools declare, and keeps the query the setting gives', () => {
    const flow = {
      authorizationUrl: 'https://acme.example/oauth/authorize',
      tokenUrl: 'https://acme.example/oauth/token',
      scopes: ['repo'],
    };
    const url = new URL(
      apiOAuth(table(flow), settings({ authorizationUrl: undefined as never })).signInUrl('st', 'ch', 'https://mcp.example/oauth/callback'),
    );
    expect(url.origin + url.pathname).toBe('https://acme.example/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'app id',
      redirect_uri: 'https://mcp.example/oauth/callback',
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
      scope: 'read:org repo',
    });
    const google = new URL(apiOAuth(table(), settings({ scopes: ['email'] })).signInUrl('st', 'ch', 'https://mcp.example/cb'));
    expect(google.searchParams.get('access_type')).toBe('offline');
    expect(google.searchParams.get('prompt')).toBe('consent');
    expect(google.searchParams.get('scope')).toBe('email');
  });

  it('without a flow in the spec or the settings, start-up says which settings to give', () => {
    expect(() => apiOAuth(table(), settings({ authorizationUrl: undefined as never, tokenUrl: undefined as never }))).toThrow(
      /set --oauth-api-authorization-url and --oauth-api-token-url/,
    );
  });
});

describe("the API's token requests", () => {
  it('post: the secret in the form, JSON asked for; the lifetime becomes an expiry', async () => {
    answer = { body: JSON.stringify({ access_token: 'at', refresh_token: 'rt', expires_in: 3600, token_type: 'bearer' }) };
    const before = Date.now();
    const tokens = await apiOAuth(table(), settings()).redeem('code', 'verifier', 'https://mcp.example/cb');
    const sent = token.requests.at(-1)!;
    expect(Object.fromEntries(new URLSearchParams(sent.body.toString()))).toEqual({
      grant_type: 'authorization_code',
      code: 'code',
      redirect_uri: 'https://mcp.example/cb',
      code_verifier: 'verifier',
      client_id: 'app id',
      client_secret: 's3cr:et',
    });
    expect(sent.headers.accept).toBe('application/json');
    expect(sent.headers.authorization).toBeUndefined();
    expect(tokens).toMatchObject({ accessToken: 'at', refreshToken: 'rt' });
    expect(tokens.expiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
  });

  it('basic: the secret in the Authorization header (form-encoded first), not in the form', async () => {
    answer = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'access_token=at2&scope=repo' };
    const tokens = await apiOAuth(table(), settings({ clientAuth: 'basic' })).refresh('old-rt');
    const sent = token.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from('app+id:s3cr%3Aet').toString('base64')}`);
    expect(new URLSearchParams(sent.body.toString()).get('client_secret')).toBeNull();
    // an API that does not rotate keeps the refresh token it gave
    expect(tokens).toEqual({ accessToken: 'at2', refreshToken: 'old-rt' });
  });

  it.each([
    ['GitHub: 200 with bad_refresh_token', { body: '{"error":"bad_refresh_token","error_description":"x"}' }, true],
    ['GitHub: 200 with bad_verification_code', { body: '{"error":"bad_verification_code"}' }, true],
    ['RFC 6749: 400 invalid_grant', { status: 400, body: '{"error":"invalid_grant"}' }, true],
    ['a 503', { status: 503, body: 'busy' }, false],
    ['no access_token', { body: '{"token_type":"bearer"}' }, false],
  ])('%s: refused = %s, and the message names neither secret nor token', async (_label, given, refused) => {
    answer = given;
    const error = await apiOAuth(table(), settings())
      .refresh('the-refresh-token')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiSignInError);
    expect((error as ApiSignInError).refused).toBe(refused);
    expect((error as Error).message).toContain(`${token.url}/token`);
    expect((error as Error).message).not.toMatch(/s3cr|the-refresh-token/);
  });
});
