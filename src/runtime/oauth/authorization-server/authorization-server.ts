// The server as the authorization server MCP clients see (--oauth-api-client-id without
// --oauth-issuer), for an API that knows nothing of MCP: RFC 8414 metadata, /authorize with a
// consent page, the user's sign-in delegated to the API's own OAuth, /token (codes with PKCE
// S256, rotated refresh tokens), RFC 7591 registration, client ID metadata documents and RFC
// 7009 revocation. The tokens it issues are opaque, kept in the token store, and checked by the
// resource server's gate like any other (storeVerifier).

import { OAuthError, OAuthErrorCode, type AuthorizationServerMetadata } from '@modelcontextprotocol/server';
import { isLoopback, type OAuthConfig, type ServerConfig, type SignInConfig } from '../../start/config.js';
import { ownHostNames } from '../../http/host-names.js';
import type { WebEndpoints } from '../../web/web-steps.js';
import type { Logger } from '../../start/log.js';
import { accountsOf, type Accounts } from '../upstream-accounts/accounts.js';
import { ApiSignInError, pkcePair } from '../upstream-accounts/api-oauth.js';
import { createClients, hashOf, redirectAllowed, type Client, type Clients } from './clients.js';
import {
  accessOf,
  GrantError,
  issueCode,
  newSecret,
  redeemCode,
  refreshTokens,
  revokeToken,
  saveGrant,
  type AuthorizationRequest,
} from './grants.js';
import { cookie, cookieOf, hostRefusal, jsonAnswer, PENDING_TTL_MS, readForm, readText, redirect, sameSecret } from './forms.js';
import { consentHtml, errorHtml, htmlAnswer } from './pages.js';
import { fromBase64, randomText } from '../secrets.js';
import type { VerifierFor } from '../resource-server/verify.js';
import { identifiersUnder } from '../resource-server/resource.js';
import type { ScopePolicy } from '../../mcp/tool-scopes.js';
import { StoreFullError } from './token-store.js';
import type { ToolTable } from '../../../contract/table.js';

const CONSENT_COOKIE = 'mcp_consent';
const SIGN_IN_COOKIE = 'mcp_signin';
/** RFC 7636 §4.2: a S256 challenge is 43 base64url characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;
/**
 * Bounds on what an authorization request carries into the store (and `state` back to the
 * client): OAuth sets none, and each request is kept until the user answers.
 */
const MAX_STATE = 2_048;
const MAX_CLIENT_ID = 2_048;
/** Authorizations and sign-ins under way at once, from anyone: beyond, the page says to come back later. */
const MAX_PENDING = 10_000;
const PENDING_FULL_RETRY_AFTER_SECONDS = 60;

export const PATHS = {
  authorize: '/authorize',
  consent: '/oauth/consent',
  callback: '/oauth/callback',
  token: '/token',
  register: '/register',
  revoke: '/revoke',
} as const;

export interface AuthorizationServer {
  metadata: AuthorizationServerMetadata;
  verifierFor: VerifierFor;
  /** The endpoints: answered before the Host/Origin guard, which they replace with their own checks. */
  endpoints: WebEndpoints;
}

interface Context {
  issuer: string;
  /** What /authorize accepts as `resource` (RFC 8707): the issuer, and each MCP endpoint's URL under it. */
  resources: string[];
  callback: string;
  secureCookies: boolean;
  accounts: Accounts;
  clients: Clients;
  served: { table: ToolTable; policy: ScopePolicy };
  log: Logger;
}

export async function authorizationServer(
  config: ServerConfig & { oauth: OAuthConfig },
  served: { table: ToolTable; policy: ScopePolicy },
  log: Logger,
): Promise<AuthorizationServer> {
  // config.ts sets both with tokenCheck self.
  const issuer = config.oauth.publicUrl as string;
  const accounts = await accountsOf(config.oauth, config.oauth.signIn as SignInConfig, served.table, log);
  const context: Context = {
    issuer,
    resources: identifiersUnder(issuer, config.transport),
    callback: `${issuer}${PATHS.callback}`,
    secureCookies: issuer.startsWith('https:'),
    accounts,
    clients: createClients(accounts.store, { allowInternalDocuments: isLoopback(config.host), log }),
    served,
    log,
  };
  log.notice(`OAuth authorization server at ${issuer}: users sign in at ${accounts.api.origin}; register ${context.callback} there`);
  return {
    metadata: metadataOf(issuer, served.policy),
    verifierFor: storeVerifier(accounts),
    endpoints: endpointsOf(context, ownHostNames(issuer, config.allowedHosts)),
  };
}

function metadataOf(issuer: string, policy: ScopePolicy): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}${PATHS.authorize}`,
    token_endpoint: `${issuer}${PATHS.token}`,
    registration_endpoint: `${issuer}${PATHS.register}`,
    revocation_endpoint: `${issuer}${PATHS.revoke}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    scopes_supported: [...policy.supported],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  } as AuthorizationServerMetadata;
}

/** The tokens this server issued, looked up in the store; `resource` set only for an audience the request accepts. */
function storeVerifier(accounts: Accounts): VerifierFor {
  return ({ audiences, resource }) => ({
    async verifyAccessToken(token) {
      const found = await accessOf(accounts.store, token);
      if (found === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is unknown, expired or revoked');
      const { access, grant } = found;
      return {
        token,
        clientId: access.clientId,
        scopes: access.scopes,
        expiresAt: access.expiresAt,
        ...(audiences.includes(access.resource) ? { resource: new URL(resource) } : {}),
        extra: { subject: grant.subject, grantId: grant.id },
      };
    },
  });
}

type Endpoint = (request: Request, url: URL, address: string) => Promise<Response>;

function endpointsOf(context: Context, hosts: string[]): WebEndpoints {
  const routes: Record<string, Partial<Record<string, Endpoint>>> = {
    [PATHS.authorize]: { GET: (_request, url) => authorize(context, url) },
    [PATHS.consent]: { POST: (request) => consent(context, request) },
    [PATHS.callback]: { GET: (request, url) => callback(context, request, url) },
    [PATHS.token]: { POST: (request) => token(context, request) },
    [PATHS.register]: { POST: (request, _url, address) => register(context, request, address) },
    [PATHS.revoke]: { POST: (request) => revoke(context, request) },
  };
  return {
    serves: (path) => routes[path] !== undefined,
    async answer(request, url, address) {
      const route = routes[url.pathname] ?? {};
      const refused = hostRefusal(request, hosts);
      if (refused !== undefined) return refused;
      const api = url.pathname === PATHS.token || url.pathname === PATHS.register || url.pathname === PATHS.revoke;
      // Clients in browsers call these three from their own origin; no cookie is involved.
      const answer = await routed(route, request, url, address, api);
      return api ? withPublicCors(answer) : answer;
    },
  };
}

async function routed(route: Partial<Record<string, Endpoint>>, request: Request, url: URL, address: string, api: boolean) {
  if (request.method === 'OPTIONS' && api) return new Response(null, { status: 204 });
  const handler = route[request.method];
  if (handler === undefined) return new Response(null, { status: 405, headers: { allow: Object.keys(route).join(', ') } });
  return handler(request, url, address);
}

function withPublicCors(answer: Response): Response {
  const headers = new Headers(answer.headers);
  headers.set('access-control-allow-origin', '*');
  headers.set('access-control-allow-methods', 'POST, OPTIONS');
  headers.set('access-control-allow-headers', 'Authorization, Content-Type');
  return new Response(answer.body, { status: answer.status, headers });
}

/**
 * GET /authorize. An unknown client or a redirect URI it did not declare gets a page, never a
 * redirect (no open redirect); any other problem goes back to the client's redirect URI.
 */
async function authorize(context: Context, url: URL): Promise<Response> {
  const q = url.searchParams;
  const clientId = single(q, 'client_id');
  const client =
    clientId === undefined
      ? { problem: 'client_id is missing' }
      : clientId.length > MAX_CLIENT_ID
        ? { problem: `client_id is longer than ${MAX_CLIENT_ID} characters` }
        : await context.clients.find(clientId);
  if ('problem' in client) return htmlAnswer(400, errorHtml('Unknown client', client.problem));
  const redirectUri = single(q, 'redirect_uri');
  if (redirectUri === undefined || !redirectAllowed(client, redirectUri)) {
    return htmlAnswer(400, errorHtml('Wrong redirect URI', `The client ${client.name} did not register the redirect URI given.`));
  }
  const asked = single(q, 'state');
  // an overlong state is not echoed: the client learns of it by the error alone
  const state = asked !== undefined && asked.length > MAX_STATE ? undefined : asked;
  const back = (error: string, description: string) =>
    redirectBack(context.issuer, redirectUri, state, { error, error_description: description });
  if (state !== asked) return back('invalid_request', `state is longer than ${MAX_STATE} characters`);
  if (single(q, 'response_type') !== 'code') return back('unsupported_response_type', 'only response_type=code');
  const challenge = single(q, 'code_challenge');
  if (challenge === undefined || single(q, 'code_challenge_method') !== 'S256' || !CHALLENGE.test(challenge)) {
    return back('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
  }
  // RFC 9728 §3.3: a client that found /mcp's metadata asks for <issuer>/mcp; the token is then for that
  const resource = (q.get('resource') ?? context.issuer).replace(/\/+$/, '');
  if (!context.resources.includes(resource)) return back('invalid_target', `resource must be one of ${context.resources.join(', ')}`);
  const supported = context.served.policy.supported;
  const named = (q.get('scope') ?? '').split(' ').filter(Boolean);
  // Scopes this server does not know are left out (RFC 6749 §3.3); none asked: every one.
  const scopes = named.length === 0 ? [...supported] : supported.filter((s) => named.includes(s));
  const request: AuthorizationRequest = {
    clientId: client.clientId,
    clientName: client.name,
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    challenge,
    scopes,
    resource,
  };
  const requestId = newSecret('');
  const csrf = randomText(24);
  const full = await putPending(context, `pending:${requestId}`, { request, csrf });
  if (full !== undefined) return full;
  const setCookie = cookie(CONSENT_COOKIE, csrf, PATHS.consent, 'Strict', context.secureCookies);
  return htmlAnswer(200, consentPage(context, client, request, requestId, csrf), [['set-cookie', setCookie]]);
}

let warnedFullAt = 0;

/** At most once a minute: a flood would otherwise write a line per refused request. */
function warnFullOnce(log: Logger): void {
  if (Date.now() - warnedFullAt < 60_000) return;
  warnedFullAt = Date.now();
  log.warn(`authorization server: ${MAX_PENDING} sign-ins are under way; refusing new ones until some end`);
}

/** Keeps a step of a sign-in under way; when too many are, the 503 to answer. */
async function putPending(context: Context, key: string, value: unknown): Promise<Response | undefined> {
  try {
    await context.accounts.store.put(key, value, PENDING_TTL_MS, MAX_PENDING);
    return undefined;
  } catch (error) {
    if (!(error instanceof StoreFullError)) throw error;
    warnFullOnce(context.log);
    const retryAfter: [string, string][] = [['retry-after', String(PENDING_FULL_RETRY_AFTER_SECONDS)]];
    return htmlAnswer(503, errorHtml('Too many sign-ins', 'Too many sign-ins are under way. Try again in a minute.'), retryAfter);
  }
}

function consentPage(context: Context, client: Client, request: AuthorizationRequest, requestId: string, csrf: string): string {
  const { table, policy } = context.served;
  const tools = table.tools
    .filter((tool) => policy.required(tool).every((scope) => request.scopes.includes(scope)))
    .map((tool) => tool.name);
  return consentHtml({
    apiName: table.title ?? table.name,
    clientName: client.name,
    clientOrigin: client.origin,
    redirectUri: request.redirectUri,
    tools,
    scopes: request.scopes,
    signInHost: new URL(context.accounts.api.origin).host,
    requestId,
    csrf,
    action: `${context.issuer}${PATHS.consent}`,
  });
}

/** POST from the consent page: this origin only, with the cookie the page set (CSRF). */
async function consent(context: Context, req: Request): Promise<Response> {
  if (req.headers.get('origin') !== new URL(context.issuer).origin) {
    return htmlAnswer(403, errorHtml('Refused', 'The answer did not come from this server’s own page.'));
  }
  const form = await readForm(req);
  const requestId = form?.get('request') ?? '';
  const pending =
    requestId === ''
      ? undefined
      : await context.accounts.store.get<{ request: AuthorizationRequest; csrf: string }>(`pending:${requestId}`);
  const fromCookie = cookieOf(req, CONSENT_COOKIE);
  if (pending === undefined || !sameSecret(form?.get('csrf'), pending.csrf) || !sameSecret(fromCookie, pending.csrf)) {
    return htmlAnswer(
      403,
      errorHtml('Refused', 'This consent page has expired or was not opened in this browser. Start again from your client.'),
    );
  }
  if ((await context.accounts.store.take(`pending:${requestId}`)) === undefined) {
    return htmlAnswer(403, errorHtml('Refused', 'This consent was already answered.'));
  }
  const { request } = pending;
  if (form?.get('decision') !== 'allow') {
    return redirectBack(context.issuer, request.redirectUri, request.state, {
      error: 'access_denied',
      error_description: 'the user denied access',
    });
  }
  const { verifier, challenge } = await pkcePair();
  const state = newSecret('');
  const full = await putPending(context, `signin:${state}`, { request, verifier });
  if (full !== undefined) return full;
  return redirect(context.accounts.api.signInUrl(state, challenge, context.callback), [
    ['set-cookie', cookie(CONSENT_COOKIE, '', PATHS.consent, 'Strict', context.secureCookies, 0)],
    // Lax: the API's redirect back is a top-level navigation from its site.
    ['set-cookie', cookie(SIGN_IN_COOKIE, state, PATHS.callback, 'Lax', context.secureCookies)],
  ]);
}

/** GET from the API's sign-in: its code traded for the user's API tokens, and a code of ours sent to the client. */
async function callback(context: Context, req: Request, url: URL): Promise<Response> {
  const state = url.searchParams.get('state') ?? '';
  // The sign-in must come back to the browser that started it (a link to it sent to someone else fails here).
  if (state === '' || !sameSecret(cookieOf(req, SIGN_IN_COOKIE), state)) {
    return htmlAnswer(400, errorHtml('Sign-in refused', 'This sign-in was not started in this browser. Start again from your client.'));
  }
  const started = await context.accounts.store.take<{ request: AuthorizationRequest; verifier: string }>(`signin:${state}`);
  if (started === undefined) return htmlAnswer(400, errorHtml('Sign-in expired', 'Start again from your client.'));
  const cleared: [string, string][] = [['set-cookie', cookie(SIGN_IN_COOKIE, '', PATHS.callback, 'Lax', context.secureCookies, 0)]];
  const { request, verifier } = started;
  const code = url.searchParams.get('code');
  if (code === null) {
    const fields = { error: 'access_denied', error_description: 'the sign-in at the API did not complete' };
    return redirectBack(context.issuer, request.redirectUri, request.state, fields, cleared);
  }
  let api;
  try {
    api = await context.accounts.api.redeem(code, verifier, context.callback);
  } catch (error) {
    if (!(error instanceof ApiSignInError)) throw error;
    context.log.warn(`sign-in at the API failed: ${error.message}`);
    return htmlAnswer(502, errorHtml('Sign-in failed', `${error.message}. Start again from your client.`), cleared);
  }
  const grant = {
    id: newSecret(''),
    clientId: request.clientId,
    subject: newSecret('user_').slice(0, 30),
    scopes: request.scopes,
    resource: request.resource,
    api,
  };
  await saveGrant(context.accounts.store, grant);
  const ours = await issueCode(context.accounts.store, grant, request);
  return redirectBack(context.issuer, request.redirectUri, request.state, { code: ours }, cleared);
}

/** POST /token: authorization_code and refresh_token grants. */
async function token(context: Context, req: Request): Promise<Response> {
  const form = await readForm(req);
  if (form === undefined) return tokenError(400, 'invalid_request', 'a form-encoded body of at most 16 KiB is expected');
  const client = await authenticateClient(context, req, form);
  if ('error' in client) return tokenError(401, 'invalid_client', client.error);
  try {
    const grantType = form.get('grant_type');
    const answer =
      grantType === 'authorization_code'
        ? await redeemCode(context.accounts.store, client.clientId, form)
        : grantType === 'refresh_token'
          ? await refreshTokens(context.accounts.store, client.clientId, form)
          : undefined;
    if (answer === undefined) return tokenError(400, 'unsupported_grant_type', 'authorization_code or refresh_token');
    // the tokens are issued: a store that cannot keep the client longer now must not lose them
    await context.clients.used(client).catch((error: unknown) => context.log.warn(`keeping client ${client.clientId}: ${String(error)}`));
    return jsonAnswer(200, answer);
  } catch (error) {
    if (!(error instanceof GrantError)) throw error;
    return tokenError(400, error.code, error.message);
  }
}

async function revoke(context: Context, req: Request): Promise<Response> {
  const form = await readForm(req);
  if (form === undefined || !form.get('token')) return tokenError(400, 'invalid_request', 'token is required');
  const client = await authenticateClient(context, req, form);
  if ('error' in client) return tokenError(401, 'invalid_client', client.error);
  await revokeToken(context.accounts.store, client.clientId, form.get('token') as string);
  return jsonAnswer(200, {});
}

async function register(context: Context, req: Request, address: string): Promise<Response> {
  const text = await readText(req);
  let metadata: unknown;
  try {
    metadata = text === undefined ? undefined : JSON.parse(text);
  } catch {
    metadata = undefined;
  }
  const answer = await context.clients.register(metadata, address);
  const retryAfter: Record<string, string> =
    answer.retryAfterSeconds === undefined ? {} : { 'retry-after': String(answer.retryAfterSeconds) };
  return jsonAnswer(answer.status, answer.body, retryAfter);
}

/**
 * The client of a token or revocation request: a public client by its client_id; a confidential
 * one by its secret, in the form or as HTTP Basic.
 */
async function authenticateClient(context: Context, req: Request, form: URLSearchParams): Promise<Client | { error: string }> {
  const basic = basicCredentials(req.headers.get('authorization') ?? undefined);
  const clientId = basic?.id ?? form.get('client_id');
  if (!clientId) return { error: 'client_id is required' };
  const client = await context.clients.find(clientId);
  if ('problem' in client) return { error: client.problem };
  if (client.secretHash === undefined) return basic === undefined ? client : { error: 'this client has no secret' };
  const secret = basic?.secret ?? form.get('client_secret') ?? '';
  return sameSecret(await hashOf(secret), client.secretHash) ? client : { error: 'wrong client secret' };
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header ?? '');
  if (m === null) return undefined;
  const [id, secret] = (fromBase64(m[1] as string) ?? '').split(':');
  if (id === undefined || secret === undefined) return undefined;
  const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
  try {
    return { id: decode(id), secret: decode(secret) };
  } catch {
    return undefined;
  }
}

/** Sends the user back to the client with the answer, and `iss` (RFC 9207) against mix-up. */
function redirectBack(
  issuer: string,
  redirectUri: string,
  state: string | undefined,
  fields: Record<string, string>,
  headers: [string, string][] = [],
): Response {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(fields)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return redirect(url.href, headers);
}

function tokenError(status: number, error: string, description: string): Response {
  return jsonAnswer(status, { error, error_description: description });
}

/** One value of a query parameter; a repeated one counts as missing (RFC 6749 §3.1). */
function single(q: URLSearchParams, name: string): string | undefined {
  const all = q.getAll(name);
  return all.length === 1 && all[0] !== '' ? all[0] : undefined;
}
