// A real OAuth 2.1 authorization server for the tests: oidc-provider on 127.0.0.1, random port.
// It is what a generated MCP server (the resource server, RFC 9728 / RFC 8707) and the MCP SDK
// client talk to in end-to-end tests: discovery, open dynamic client registration, authorization
// code + PKCE (S256), refresh tokens, resource indicators, JWT or opaque access tokens,
// introspection, revocation and RFC 8693 token exchange. Nothing here is mocked; the helpers only
// drive the parts a browser would (signIn) or shortcut the code flow through the provider's own
// models (issueToken).
//
// oidc-provider prints "Unsupported runtime" on Node 20 (it checks for the v22 LTS codename);
// everything used here works on Node 20.20. What it really needs beyond older Node 20 releases is
// crypto.hash (20.12) and URL.parse, both present in 20.20.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
// @ts-expect-error oidc-provider 9 ships no type declarations and @types/oidc-provider is not a dependency; the shapes used are typed below
import Provider, { errors } from 'oidc-provider';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const SIGNING_ALG = 'ES256';
const OIDC_SCOPES = ['openid', 'offline_access'];
const HOUR = 3600;
const DAY = 24 * HOUR;
/** Keys made at start; rotateKey publishes the next one. Plenty for any test. */
const KEY_POOL_SIZE = 8;

export interface AuthorizationServerOptions {
  /** Access token format; default 'jwt'. */
  format?: 'jwt' | 'opaque';
  /** Resource indicator (URL) or token-exchange audience name → the scopes it accepts. */
  resources: Record<string, { scopes: string[] }>;
  /** Per user, the most the server grants; users not listed get every scope they ask for. */
  userScopes?: Record<string, string[]>;
  /** Access token lifetime in seconds; default 3600. */
  accessTokenTtl?: number;
  /** A refresh_token request waits this long before the provider answers it (a slow API under load). */
  refreshDelayMs?: number;
  /** The resource of an authorization request that names none (an API's own OAuth, which knows nothing of RFC 8707). */
  defaultResource?: string;
}

interface SignInResult {
  code: string;
  state?: string;
  /** RFC 9207 issuer identifier, as sent on the redirect. */
  iss?: string;
  /** The client's redirect_uri the code was sent to (not fetched). */
  redirectUri: string;
}

interface ConfidentialClient {
  clientId: string;
  clientSecret: string;
  grantTypes?: string[];
  /**
   * The resource this client serves: token exchange then accepts only subject tokens issued for
   * it (aud), as an AS would for a resource server. Unset: any subject token of this server.
   */
  resource?: string;
  /** For an authorization code client: where codes may go. */
  redirectUris?: string[];
  /** Default client_secret_basic. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

interface Exchange {
  clientId: string;
  subject: string;
  resource?: string;
  audience?: string;
  scope?: string;
}

interface IssueTokenOptions {
  user: string;
  scopes: string[];
  resource: string;
  /** The client the token is issued to; default a built-in public test client. */
  client?: string;
}

export interface AuthorizationServer {
  /** e.g. http://127.0.0.1:PORT (no trailing slash). */
  issuer: string;
  /** Accept a resource (URL or audience name) after start, e.g. once the MCP server listens. */
  addResource(resource: string, scopes: string[]): void;
  /** Drive the browser part of the authorization code flow over HTTP as `user`. */
  signIn(authorizationUrl: string | URL, user: string): Promise<SignInResult>;
  /** A confidential (client_secret_basic) client, e.g. the resource server for introspection and token exchange. */
  registerClient(client: ConfidentialClient): Promise<ConfidentialClient>;
  /** A real access token for `user`, minted by the provider's own models (no HTTP round-trips). */
  issueToken(options: IssueTokenOptions): Promise<string>;
  /** RFC 7009 revocation; JWT access tokens are also refused from then on by token exchange. */
  revoke(token: string): Promise<void>;
  /** The user revokes every client's access (refresh tokens, grants); answers how many records went. */
  revokeUser(user: string): number;
  /** Publish a new signing key (new kid) and sign access tokens with it from now on. */
  rotateKey(): JWK;
  /** Private JWKs published so far, oldest first; the last one signs new access tokens. */
  readonly signingKeys: JWK[];
  /** How many times the JWKS endpoint was fetched. */
  readonly jwksRequests: number;
  /** How many introspection requests (RFC 7662) arrived. */
  readonly introspectionRequests: number;
  /** Token requests by grant_type, as they arrived (answered or refused). */
  readonly tokenRequests: Readonly<Record<string, number>>;
  /** Every successful token exchange, in order. */
  readonly exchanges: Exchange[];
  close(): Promise<void>;
}

// ---- the slice of oidc-provider's API this file uses ----

interface OidcClient {
  clientId: string;
  clientAuthMethod: string;
}
interface ResourceServerInfo {
  scope: string;
  audience?: string;
  accessTokenTTL: number;
  accessTokenFormat: 'jwt' | 'opaque';
  jwt?: { sign: { alg: string; kid: string } };
}
interface OidcGrant {
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  rejectResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}
interface OidcAccessToken {
  accountId?: string;
  clientId: string;
  scope?: string;
  aud?: string;
  isExpired: boolean;
  /** Lifetime in seconds, as configured for the token's resource server. */
  expiration: number;
  save(): Promise<string>;
}
interface InteractionDetails {
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId: string };
  grantId?: string;
}
interface TokenContext {
  oidc: { params: Record<string, string | string[] | undefined>; client: OidcClient };
  body: unknown;
}
interface OidcProvider {
  issuer: string;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  registerGrantType(name: string, handler: (ctx: TokenContext) => Promise<void>, params: string[], dupes: string[]): void;
  Grant: {
    new (init: { accountId: string; clientId: string }): OidcGrant;
    find(id: string): Promise<OidcGrant | undefined>;
  };
  AccessToken: {
    new (init: Record<string, unknown>): OidcAccessToken;
    find(value: string): Promise<OidcAccessToken | undefined>;
  };
  Client: {
    find(id: string): Promise<OidcClient | undefined>;
    adapter: { upsert(id: string, metadata: Record<string, unknown>, ttl?: number): Promise<void> };
  };
  ResourceServer: new (identifier: string, info: ResourceServerInfo) => unknown;
}
type OidcErrorClass = new (description?: string) => Error;
const oidcErrors = errors as Record<
  'InvalidGrant' | 'InvalidRequest' | 'InvalidScope' | 'InvalidTarget' | 'UnauthorizedClient',
  OidcErrorClass
>;

/** The public client issueToken uses when the test names none. */
const TEST_CLIENT_ID = 'mcp-gen-test-client';

export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const format = options.format ?? 'jwt';
  const ttl = options.accessTokenTtl ?? 3600;
  const resources = new Map(Object.entries(options.resources).map(([k, v]) => [k, [...v.scopes]]));
  const keys = makeKeyPool();
  let published = 1;
  let jwksRequests = 0;
  let introspectionRequests = 0;
  const tokenRequests: Record<string, number> = {};
  const exchanges: Exchange[] = [];
  const revokedJtis = new Set<string>();
  const servedResources = new Map<string, string>();

  const currentKey = () => keys[published - 1]!;
  const allowedFor = (user: string, scopes: string[]) => {
    const limit = options.userScopes?.[user];
    return limit ? scopes.filter((s) => limit.includes(s)) : scopes;
  };

  /** What oidc-provider asks for every resource indicator (RFC 8707); unknown ones are invalid_target. */
  function resourceServerInfo(resource: string): ResourceServerInfo {
    const scopes = resources.get(resource);
    if (!scopes) throw new oidcErrors.InvalidTarget(`unknown resource ${resource}`);
    return {
      scope: scopes.join(' '),
      audience: resource,
      accessTokenTTL: ttl,
      accessTokenFormat: format,
      // an explicit kid: the keystore holds the whole pool, and the newest published key signs
      ...(format === 'jwt' ? { jwt: { sign: { alg: SIGNING_ALG, kid: currentKey().kid! } } } : {}),
    };
  }

  // The issuer is known only once the port is: listen first, then build the provider.
  const server = createServer((req, res) => void route(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const adapter = memoryAdapter();
  const oidc = new Provider(issuer, {
    adapter,
    jwks: { keys },
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    ],
    clientDefaults: { id_token_signed_response_alg: SIGNING_ALG },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: OIDC_SCOPES,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: introspectionAllowed },
      revocation: { enabled: true, allowedPolicy: revocationAllowed },
      resourceIndicators: {
        enabled: true,
        // a code granted for one resource yields a token for it even if the token request omits `resource`
        useGrantedResource: async () => true,
        ...(options.defaultResource !== undefined ? { defaultResource: async () => options.defaultResource } : {}),
        getResourceServerInfo: async (_ctx: unknown, resource: string) => resourceServerInfo(resource),
      },
    },
    pkce: { required: () => true },
    // the default issues refresh tokens only with offline_access; MCP clients do not ask for it
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: async (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // every lifetime set, so that oidc-provider does not print a notice for each default used
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      Grant: DAY,
      Interaction: HOUR,
      RefreshToken: DAY,
      Session: DAY,
      IdToken: HOUR,
    },
  }) as OidcProvider;
  oidc.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    (ctx) => exchangeToken(ctx),
    ['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'audience', 'scope'],
    [],
  );
  const handle = oidc.callback();

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', issuer).pathname;
    try {
      if (path === '/jwks') return serveJwks(res);
      if (path.startsWith('/interaction/')) return await completeInteraction(req, res);
      if (path === '/reg' && req.method === 'POST') await dropResourceScopes(req);
      if (path === '/token' && req.method === 'POST') await countGrantType(req);
      if (path === '/token/introspection') introspectionRequests += 1;
      handle(req, res);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  }

  /**
   * oidc-provider checks a registering client's `scope` against its `scopes` setting, which is
   * copied at construction and cannot grow, while resources (and their scopes) are added later;
   * the MCP SDK registers with the scopes the resource advertises. So the resource scopes are
   * taken out of the registration (the client is then not limited to them, which also lets a
   * client step up to more scopes later); they are checked per resource indicator instead. The
   * body is read here and handed over as req.body, which oidc-provider accepts (with a one-time
   * "already parsed request body" warning).
   */
  async function dropResourceScopes(req: IncomingMessage): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // left as text: the provider answers invalid_request as it would for any unparsable body
    }
    if (isObject(body) && typeof body.scope === 'string') {
      const kept = body.scope.split(' ').filter((s) => OIDC_SCOPES.includes(s));
      if (kept.length) body.scope = kept.join(' ');
      else delete body.scope;
    }
    (req as IncomingMessage & { body?: unknown }).body = body;
  }

  /** Counts token requests by grant type; the form is handed over parsed, as for /reg. */
  async function countGrantType(req: IncomingMessage): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
    const type = form.grant_type ?? '';
    tokenRequests[type] = (tokenRequests[type] ?? 0) + 1;
    (req as IncomingMessage & { body?: unknown }).body = form;
    if (type === 'refresh_token' && options.refreshDelayMs) await new Promise((resolve) => setTimeout(resolve, options.refreshDelayMs));
  }

  /** Served here rather than by the provider so that only published keys appear (and fetches are counted). */
  function serveJwks(res: ServerResponse): void {
    jwksRequests += 1;
    res.writeHead(200, { 'content-type': 'application/jwk-set+json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ keys: keys.slice(0, published).map(publicJwk) }));
  }

  /**
   * The login and consent pages, without pages: signIn calls /interaction/:uid?user=NAME. Login
   * signs NAME in; consent grants what was asked for, limited by userScopes, and rejects the rest
   * (a rejected scope is not asked for again, so the flow ends instead of looping).
   */
  async function completeInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await oidc.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      const user = new URL(req.url ?? '/', issuer).searchParams.get('user');
      if (!user) throw new Error('interaction needs ?user=');
      await oidc.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false });
      return;
    }
    const grantId = await grantConsent(details);
    await oidc.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  async function grantConsent(details: InteractionDetails): Promise<string> {
    const accountId = details.session!.accountId;
    const clientId = String(details.params.client_id);
    const grant = (details.grantId && (await oidc.Grant.find(details.grantId))) || new oidc.Grant({ accountId, clientId });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      const allowed = allowedFor(accountId, scopes);
      grant.addResourceScope(resource, allowed.join(' '));
      const refused = scopes.filter((s) => !allowed.includes(s));
      if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
    }
    return grant.save();
  }

  /** RFC 8693: a confidential client trades an access token this server issued for one aimed elsewhere. */
  async function exchangeToken(ctx: TokenContext): Promise<void> {
    const { params, client } = ctx.oidc;
    if (client.clientAuthMethod === 'none') {
      throw new oidcErrors.UnauthorizedClient('token exchange needs a confidential client');
    }
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE) {
      throw new oidcErrors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    }
    const subject = await verifySubjectToken(String(params.subject_token ?? ''));
    const served = servedResources.get(client.clientId);
    if (served && subject.aud !== served) {
      throw invalidGrant(`subject_token was not issued for ${served}`);
    }
    const resource = single(params.resource, 'resource');
    const audience = single(params.audience, 'audience');
    const target = resource ?? audience;
    if (!target) throw new oidcErrors.InvalidTarget('resource or audience is required');
    const info = resourceServerInfo(target);
    const scope = exchangedScope(params.scope, info, subject.sub);

    const token = new oidc.AccessToken({
      accountId: subject.sub,
      client,
      gty: TOKEN_EXCHANGE_GRANT,
      scope: scope || undefined,
      // one aud only (oidc-provider's rule): the audience name if given, else the resource
      resourceServer: new oidc.ResourceServer(target, { ...info, audience: audience ?? resource }),
    });
    const value = await token.save();
    exchanges.push({ clientId: client.clientId, subject: subject.sub, resource, audience, scope: scope || undefined });
    ctx.body = {
      access_token: value,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: token.expiration,
      ...(scope ? { scope } : {}),
    };
  }

  /** The requested scopes must all belong to the target; none requested means all it accepts (within userScopes). */
  function exchangedScope(requested: unknown, info: ResourceServerInfo, user: string): string {
    const accepted = info.scope.split(' ').filter(Boolean);
    if (requested === undefined) return allowedFor(user, accepted).join(' ');
    const scopes = String(requested).split(' ').filter(Boolean);
    const unknown = scopes.filter((s) => !accepted.includes(s));
    if (unknown.length) throw new oidcErrors.InvalidScope(`not accepted by the target: ${unknown.join(' ')}`);
    const granted = allowedFor(user, scopes);
    if (granted.length < scopes.length) throw new oidcErrors.InvalidScope('scope not allowed for the subject');
    return granted.join(' ');
  }

  /** A JWT is checked against every key ever published and our own revocation list; an opaque token against the store. */
  async function verifySubjectToken(value: string): Promise<{ sub: string; aud?: string }> {
    const invalid = () => invalidGrant('subject_token is invalid, expired or revoked');
    if (!value) throw invalid();
    if (value.split('.').length === 3) {
      try {
        const jwks = createLocalJWKSet({ keys: keys.slice(0, published).map(publicJwk) });
        const { payload } = await jwtVerify(value, jwks, { issuer, typ: 'at+jwt', algorithms: [SIGNING_ALG] });
        if (!payload.sub || (payload.jti && revokedJtis.has(payload.jti))) throw invalid();
        return { sub: payload.sub, aud: typeof payload.aud === 'string' ? payload.aud : undefined };
      } catch {
        throw invalid();
      }
    }
    const token = await oidc.AccessToken.find(value);
    if (!token || token.isExpired || !token.accountId) throw invalid();
    return { sub: token.accountId, aud: token.aud };
  }

  /** Confidential clients (the resource server) introspect any token; a public client only its own. */
  async function introspectionAllowed(_ctx: unknown, client: OidcClient, token: { clientId: string }) {
    return token.clientId === client.clientId || client.clientAuthMethod !== 'none';
  }

  /** Lets a confidential client (the resource server) revoke tokens issued to other clients. */
  async function revocationAllowed(_ctx: unknown, client: OidcClient, token: { clientId: string }) {
    return token.clientId === client.clientId || client.clientAuthMethod !== 'none';
  }

  async function registerClient(client: ConfidentialClient): Promise<ConfidentialClient> {
    const grantTypes = client.grantTypes ?? ['client_credentials', TOKEN_EXCHANGE_GRANT];
    // stored the way dynamic registration stores clients, so the id and secret are the test's own
    await oidc.Client.adapter.upsert(client.clientId, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      grant_types: grantTypes,
      response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
      redirect_uris: client.redirectUris ?? [],
      token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
    });
    if (!(await oidc.Client.find(client.clientId))) throw new Error(`client ${client.clientId} was not accepted`);
    if (client.resource) servedResources.set(client.clientId, client.resource);
    return { ...client, grantTypes };
  }

  /**
   * Mints a token without the code flow, through the same models the flow ends in: a Grant for
   * (user, client) holding `scopes` on `resource`, then an AccessToken bound to that grant, the
   * client and the resource server, saved (opaque) or signed (JWT) by the provider itself. So `sub`
   * is the user, `aud` the resource, and introspection and revocation see it like any other token.
   * userScopes is not applied: negative tests ask for exactly what they want.
   */
  async function issueToken({ user, scopes, resource, client = TEST_CLIENT_ID }: IssueTokenOptions): Promise<string> {
    const oidcClient = await oidc.Client.find(client);
    if (!oidcClient) throw new Error(`unknown client ${client}`);
    const grant = new oidc.Grant({ accountId: user, clientId: client });
    grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    const token = new oidc.AccessToken({
      accountId: user,
      client: oidcClient,
      grantId,
      gty: 'authorization_code',
      scope: scopes.join(' ') || undefined,
      resourceServer: new oidc.ResourceServer(resource, resourceServerInfo(resource)),
    });
    return token.save();
  }

  /** A confidential client of its own, so that revoke() can revoke any opaque token over RFC 7009. */
  const revoker = await registerClient({
    clientId: `revoker-${randomUUID()}`,
    clientSecret: randomBytes(24).toString('base64url'),
    grantTypes: ['client_credentials'],
  });
  async function revoke(token: string): Promise<void> {
    // oidc-provider keeps no record of JWT access tokens, and its revocation endpoint answers
    // unsupported_token_type for them: remember the jti so token exchange refuses it
    if (token.split('.').length === 3) {
      const jti = jwtClaims(token).jti;
      if (typeof jti !== 'string') throw new Error('not an access token of this server');
      revokedJtis.add(jti);
      return;
    }
    const res = await fetch(`${issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(revoker.clientId, revoker.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    if (!res.ok) throw new Error(`revocation failed: ${res.status} ${await res.text()}`);
  }

  return {
    issuer,
    addResource: (resource, scopes) => void resources.set(resource, [...scopes]),
    signIn: (authorizationUrl, user) => signIn(issuer, authorizationUrl, user),
    registerClient,
    issueToken,
    revoke,
    revokeUser: (user) => adapter.dropAccount(user),
    rotateKey() {
      if (published === keys.length) throw new Error(`only ${KEY_POOL_SIZE - 1} rotations are available`);
      published += 1;
      return currentKey();
    },
    get signingKeys() {
      return keys.slice(0, published);
    },
    get jwksRequests() {
      return jwksRequests;
    },
    get introspectionRequests() {
      return introspectionRequests;
    },
    tokenRequests,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The provider's keystore is fixed at construction, so every key it may ever sign with is made now;
 * the JWKS endpoint publishes only the first `published` of them, and rotation publishes the next
 * and names its kid as the one access tokens are signed with. ID tokens (not used by MCP) stay on
 * the first key, which remains published.
 */
function makeKeyPool(): JWK[] {
  return Array.from({ length: KEY_POOL_SIZE }, () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomUUID(), alg: SIGNING_ALG, use: 'sig' };
  });
}

function publicJwk({ kty, crv, x, y, kid, alg, use }: JWK): JWK {
  return { kty, crv, x, y, kid, alg, use };
}

function single(value: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(value)) throw new oidcErrors.InvalidTarget(`only one ${name} is supported`);
  return value || undefined;
}

/** oidc-provider's InvalidGrant takes no description of its own (its argument is a log-only detail). */
function invalidGrant(description: string): Error {
  return Object.assign(new oidcErrors.InvalidGrant(), { error_description: description });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function basicAuth(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

function jwtClaims(token: string): Record<string, unknown> {
  decodeProtectedHeader(token); // throws on something that is not a JWS
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

// ---- headless sign-in ----

/**
 * Follows the authorization request through the provider's redirects the way a browser would
 * (cookies kept, each Location followed by hand), signing in as `user` when it reaches the
 * interaction route, and stops at the first redirect to the client's redirect_uri.
 */
async function signIn(issuer: string, authorizationUrl: string | URL, user: string): Promise<SignInResult> {
  let url = new URL(authorizationUrl);
  const redirectUri = url.searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('the authorization URL has no redirect_uri');
  const cookies = new Map<string, string>();
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.origin === issuer && url.pathname.startsWith('/interaction/')) url.searchParams.set('user', user);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: cookieHeader(cookies) } });
    keepCookies(cookies, res.headers.getSetCookie());
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`sign-in stopped at ${url.pathname} with ${res.status}: ${(await res.text()).slice(0, 500)}`);
    }
    await res.body?.cancel();
    url = new URL(location, url);
    if (isRedirectUri(url, redirectUri)) return codeFrom(url, redirectUri);
  }
  throw new Error('sign-in did not reach the redirect_uri within 20 redirects');
}

function isRedirectUri(url: URL, redirectUri: string): boolean {
  const expected = new URL(redirectUri);
  return url.origin === expected.origin && url.pathname === expected.pathname;
}

function codeFrom(url: URL, redirectUri: string): SignInResult {
  const error = url.searchParams.get('error');
  if (error) throw new Error(`authorization failed: ${error} ${url.searchParams.get('error_description') ?? ''}`);
  const code = url.searchParams.get('code');
  if (!code) throw new Error(`no code in ${url.href}`);
  return {
    code,
    state: url.searchParams.get('state') ?? undefined,
    iss: url.searchParams.get('iss') ?? undefined,
    redirectUri,
  };
}

/** One host, so names are enough; a cookie set to expire (or emptied) is dropped. */
function keepCookies(jar: Map<string, string>, setCookies: string[]): void {
  for (const header of setCookies) {
    const [pair = '', ...attributes] = header.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attributes.some((a) => {
      const [key = '', val = ''] = a.split('=');
      return key.trim().toLowerCase() === 'expires' && Date.parse(val) <= Date.now();
    });
    if (!value || expired) jar.delete(name);
    else jar.set(name, value);
  }
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

// ---- storage ----

interface Stored {
  payload: Record<string, unknown>;
  expiresAt?: number;
}

/**
 * oidc-provider's own in-memory adapter is one LRU (1000 entries) shared by every provider in the
 * process, and it warns on each start; this one is per server, unbounded, and honours expiry.
 */
function memoryAdapter() {
  const store = new Map<string, Stored>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) store.delete(key);
    return store.get(key)?.payload;
  };
  return class MemoryAdapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
      store.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
    }
    async find(id: string) {
      return live(this.key(id));
    }
    async findByUid(uid: string) {
      const hit = [...store.keys()].find((k) => k.startsWith(`${this.model}:`) && live(k)?.uid === uid);
      return hit ? live(hit) : undefined;
    }
    async findByUserCode(userCode: string) {
      const hit = [...store.keys()].find((k) => k.startsWith(`${this.model}:`) && live(k)?.userCode === userCode);
      return hit ? live(hit) : undefined;
    }
    async consume(id: string) {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    /** Revoking a grant (e.g. its refresh token) drops every token issued under it, in every model. */
    async revokeByGrantId(grantId: string) {
      for (const [key, { payload }] of store) if (payload.grantId === grantId) store.delete(key);
    }
    /** What a user's "revoke this app" does: every token and grant of the account is gone. */
    static dropAccount(accountId: string): number {
      let dropped = 0;
      for (const [key, { payload }] of store) {
        if (payload.accountId === accountId && !key.startsWith('Session:')) {
          store.delete(key);
          dropped += 1;
        }
      }
      return dropped;
    }
  };
}
