// Linking a user's API account while they are signed in with the company's authorization server
// (--oauth-issuer with --oauth-api-client-id). A call that needs the account hands out a link
// URL (oauth-accounts.ts); whoever opens it first signs in at the company's authorization
// server in that browser (OpenID Connect, this server's own client), and only when that is the
// same person the link was made for does the API's sign-in follow. So a link URL sent to
// someone else links nothing, and nobody can attach their API account to another user.

import type { AuthorizationServerMetadata } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { clientSecretBasic } from '../../call/request/client-auth.js';
import type { OAuthConfig, ServerConfig, SignInConfig } from '../../start/config.js';
import { ownHostNames } from '../../http/host-names.js';
import type { WebEndpoints } from '../../web/web-steps.js';
import type { Logger } from '../../start/log.js';
import { accountsOf, saveLink, type Accounts, type LinkStart } from './accounts.js';
import { ApiSignInError, pkcePair } from './api-oauth.js';
import { newSecret } from '../authorization-server/grants.js';
import { cookie, cookieOf, hostRefusal, PENDING_TTL_MS, redirect, sameSecret } from '../authorization-server/forms.js';
import { errorHtml, htmlAnswer } from '../authorization-server/pages.js';
import type { ToolTable } from '../../../contract/table.js';
import { fetchWithoutRedirect } from '../without-redirect.js';

export const LINK_PATHS = { start: '/oauth/link', verified: '/oauth/link/callback', callback: '/oauth/callback' } as const;
const LINK_COOKIE = 'mcp_link';
const SIGN_IN_COOKIE = 'mcp_signin';
const TOKEN_TIMEOUT_MS = 10_000;

interface Context {
  publicUrl: string;
  apiName: string;
  secureCookies: boolean;
  accounts: Accounts;
  company: AuthorizationServerMetadata;
  /** The company's keys, fetched on the first link and cached (jose), to check ID tokens with. */
  keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  client: { id: string; secret: string };
  log: Logger;
}

/** The link endpoints; config.ts requires the public URL and this server's client with link mode. */
export async function linkEndpoints(
  config: ServerConfig & { oauth: OAuthConfig },
  company: AuthorizationServerMetadata,
  table: ToolTable,
  log: Logger,
): Promise<WebEndpoints> {
  const { oauth } = config;
  const publicUrl = oauth.publicUrl as string;
  const accounts = await accountsOf(oauth, oauth.signIn as SignInConfig, table, log);
  const context: Context = {
    publicUrl,
    apiName: table.title ?? table.name,
    secureCookies: publicUrl.startsWith('https:'),
    accounts,
    company,
    keys: jwksUriOf(company) === undefined ? undefined : createRemoteJWKSet(new URL(jwksUriOf(company) as string)),
    client: { id: oauth.clientId as string, secret: oauth.clientSecret as string },
    log,
  };
  log.notice(`API accounts are linked at ${publicUrl}${LINK_PATHS.start}; register ${publicUrl}${LINK_PATHS.callback} with the API`);
  const hosts = ownHostNames(publicUrl, config.allowedHosts);
  const routes: Record<string, (request: Request, url: URL) => Promise<Response>> = {
    [LINK_PATHS.start]: (_request, url) => start(context, url),
    [LINK_PATHS.verified]: (request, url) => verified(context, request, url),
    [LINK_PATHS.callback]: (request, url) => linked(context, request, url),
  };
  return {
    serves: (path) => routes[path] !== undefined,
    async answer(request, url) {
      const refused = hostRefusal(request, hosts);
      if (refused !== undefined) return refused;
      if (request.method !== 'GET') return new Response(null, { status: 405, headers: { allow: 'GET' } });
      return (routes[url.pathname] as (request: Request, url: URL) => Promise<Response>)(request, url);
    },
  };
}

/** GET /oauth/link?id: first, who opens it signs in at the company's authorization server. */
async function start(context: Context, url: URL): Promise<Response> {
  const id = url.searchParams.get('id') ?? '';
  const pending = id === '' ? undefined : await context.accounts.store.get<LinkStart>(`linkstart:${id}`);
  if (pending === undefined) return htmlAnswer(400, errorHtml('Link expired', 'Call the tool again for a new link.'));
  const { verifier, challenge } = await pkcePair();
  const state = newSecret('');
  const nonce = newSecret('');
  await context.accounts.store.put(`linkverify:${state}`, { id, verifier, nonce }, PENDING_TTL_MS);
  const authorize = new URL(context.company.authorization_endpoint);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: context.client.id,
    redirect_uri: `${context.publicUrl}${LINK_PATHS.verified}`,
    scope: 'openid',
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  return redirect(authorize.href, [['set-cookie', cookie(LINK_COOKIE, state, LINK_PATHS.verified, 'Lax', context.secureCookies)]]);
}

/** Back from the company's sign-in: the same person the link was made for goes on to the API's sign-in. */
async function verified(context: Context, req: Request, url: URL): Promise<Response> {
  const state = url.searchParams.get('state') ?? '';
  if (state === '' || !sameSecret(cookieOf(req, LINK_COOKIE), state)) {
    return htmlAnswer(400, errorHtml('Link refused', 'This link was not opened in this browser. Call the tool again for a new link.'));
  }
  const started = await context.accounts.store.take<{ id: string; verifier: string; nonce: string }>(`linkverify:${state}`);
  const code = url.searchParams.get('code');
  if (started === undefined || code === null) return htmlAnswer(400, errorHtml('Link expired', 'Call the tool again for a new link.'));
  let subject: string;
  try {
    subject = await signedInSubject(context, code, started.verifier, started.nonce);
  } catch (error) {
    context.log.warn(`link: the company sign-in failed: ${(error as Error).message}`);
    return htmlAnswer(502, errorHtml('Sign-in failed', `${(error as Error).message}. Call the tool again for a new link.`));
  }
  const pending = await context.accounts.store.take<LinkStart>(`linkstart:${started.id}`);
  if (pending === undefined) return htmlAnswer(400, errorHtml('Link expired', 'Call the tool again for a new link.'));
  if (pending.subject !== subject) {
    context.log.warn('link: opened by another user than the one it was made for; nothing linked');
    return htmlAnswer(403, errorHtml('Link refused', 'You signed in as another user than the one who asked to link an account.'));
  }
  const { verifier, challenge } = await pkcePair();
  const apiState = newSecret('');
  await context.accounts.store.put(`signin:${apiState}`, { linkKey: context.accounts.linkKeyOf(subject), verifier }, PENDING_TTL_MS);
  return redirect(context.accounts.api.signInUrl(apiState, challenge, `${context.publicUrl}${LINK_PATHS.callback}`), [
    ['set-cookie', cookie(LINK_COOKIE, '', LINK_PATHS.verified, 'Lax', context.secureCookies, 0)],
    ['set-cookie', cookie(SIGN_IN_COOKIE, apiState, LINK_PATHS.callback, 'Lax', context.secureCookies)],
  ]);
}

/** Back from the API's sign-in: its tokens are kept for the user, sealed. */
async function linked(context: Context, req: Request, url: URL): Promise<Response> {
  const state = url.searchParams.get('state') ?? '';
  if (state === '' || !sameSecret(cookieOf(req, SIGN_IN_COOKIE), state)) {
    return htmlAnswer(400, errorHtml('Link refused', 'This sign-in was not started in this browser. Call the tool again for a new link.'));
  }
  const started = await context.accounts.store.take<{ linkKey: string; verifier: string }>(`signin:${state}`);
  const code = url.searchParams.get('code');
  const cleared: [string, string][] = [['set-cookie', cookie(SIGN_IN_COOKIE, '', LINK_PATHS.callback, 'Lax', context.secureCookies, 0)]];
  if (started === undefined || code === null)
    return htmlAnswer(400, errorHtml('Link not made', 'The sign-in at the API did not complete.'), cleared);
  try {
    const tokens = await context.accounts.api.redeem(code, started.verifier, `${context.publicUrl}${LINK_PATHS.callback}`);
    await saveLink(context.accounts.store, started.linkKey, tokens);
  } catch (error) {
    if (!(error instanceof ApiSignInError)) throw error;
    context.log.warn(`link: the sign-in at the API failed: ${error.message}`);
    return htmlAnswer(502, errorHtml('Link not made', `${error.message}. Call the tool again for a new link.`), cleared);
  }
  return htmlAnswer(200, errorHtml(`${context.apiName} account linked`, 'You can close this window and go back to your client.'), cleared);
}

/** The company's code traded for an ID token, whose signature, issuer, audience and nonce are checked: its subject. */
async function signedInSubject(context: Context, code: string, verifier: string, nonce: string): Promise<string> {
  const response = await fetchWithoutRedirect(context.company.token_endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: clientSecretBasic(context.client.id, context.client.secret),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${context.publicUrl}${LINK_PATHS.verified}`,
      code_verifier: verifier,
    }),
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
  });
  const answer = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
  if (!response.ok || typeof answer.id_token !== 'string') {
    throw new Error(
      `the authorization server gave no ID token (${typeof answer.error === 'string' ? answer.error.slice(0, 100) : `HTTP ${response.status}`})`,
    );
  }
  if (context.keys === undefined) throw new Error('the authorization server publishes no jwks_uri to check ID tokens with');
  const { payload } = await jwtVerify(answer.id_token, context.keys, {
    issuer: context.company.issuer,
    audience: context.client.id,
  });
  if (payload.nonce !== nonce || typeof payload.sub !== 'string') throw new Error('the ID token is not for this sign-in');
  return payload.sub;
}

/** OpenID metadata names the JWKS; the SDK's union type declares it on one side only. */
function jwksUriOf(metadata: AuthorizationServerMetadata): string | undefined {
  const uri = (metadata as { jwks_uri?: unknown }).jwks_uri;
  return typeof uri === 'string' ? uri : undefined;
}
