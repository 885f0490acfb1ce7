// The API's own OAuth, as this server's client of it (--oauth-api-client-id): the sign-in URL a
// user is sent to, and the token requests that trade the API's codes and refresh tokens. The
// app's secret goes to the token URL only, and neither it nor a token reaches a message.

import { clientSecretBasic } from '../../call/request/client-auth.js';
import type { SignInConfig } from '../../start/config.js';
import type { AuthSchemeSpec, ToolTable } from '../../../contract/table.js';
import { fetchWithoutRedirect } from '../without-redirect.js';
import { randomText, sha256Base64url } from '../secrets.js';

/** The API's tokens of one user, as kept (sealed) in the token store. */
export interface ApiTokens {
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch; unset when the API gives no lifetime (GitHub OAuth apps). */
  expiresAt?: number;
}

/** The API refused a code or refresh token (invalid_grant and kin): the user must sign in again. */
export class ApiSignInError extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

export interface ApiOAuth {
  /** The API's sign-in origin, named on the consent page. */
  readonly origin: string;
  /** Where to send the user, with this server's state and PKCE challenge. */
  signInUrl(state: string, challenge: string, callback: string): string;
  redeem(code: string, verifier: string, callback: string): Promise<ApiTokens>;
  refresh(refreshToken: string): Promise<ApiTokens>;
}

const TOKEN_TIMEOUT_MS = 10_000;
const MAX_TOKEN_ANSWER_BYTES = 65_536;
/** Answers that mean the user's code or refresh token is spent: RFC 6749's, and GitHub's own. */
const REFUSED_GRANT = new Set(['invalid_grant', 'bad_verification_code', 'bad_refresh_token']);
/** An OAuth error code as RFC 6749 allows it, so that it may be quoted. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,100}$/;

/** PKCE S256 (RFC 7636): a verifier and its challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomText(32);
  return { verifier, challenge: await s256(verifier) };
}

export function s256(verifier: string): Promise<string> {
  return sha256Base64url(verifier);
}

/**
 * The API's flow: the settings' URLs over the spec's first oauth2 scheme with an authorization
 * code flow; the scopes asked: the settings', else those the served tools declare for that scheme.
 */
export function apiOAuth(table: ToolTable, settings: SignInConfig): ApiOAuth {
  const [schemeName, flow] = codeFlowOf(table);
  const authorizationUrl = settings.authorizationUrl ?? flow?.authorizationUrl;
  const tokenUrl = settings.tokenUrl ?? flow?.tokenUrl;
  if (authorizationUrl === undefined || tokenUrl === undefined) {
    throw new Error(
      "the spec declares no OAuth authorization code flow: set --oauth-api-authorization-url and --oauth-api-token-url (the API's sign-in and token URLs)",
    );
  }
  const scopes = settings.scopes ?? scopesOfTools(table, schemeName);
  const request = tokenRequester(tokenUrl, settings);
  return {
    origin: new URL(authorizationUrl).origin,
    signInUrl(state, challenge, callback) {
      // A query in the setting stays (Google's access_type=offline, for a refresh token).
      const url = new URL(authorizationUrl);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', callback);
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', challenge);
      url.searchParams.set('code_challenge_method', 'S256');
      if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
      return url.href;
    },
    redeem: (code, verifier, callback) =>
      request({ grant_type: 'authorization_code', code, redirect_uri: callback, code_verifier: verifier }),
    refresh: async (refreshToken) => {
      const tokens = await request({ grant_type: 'refresh_token', refresh_token: refreshToken });
      // RFC 6749 §6: an API that does not rotate keeps the refresh token it gave.
      return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
    },
  };
}

function codeFlowOf(table: ToolTable): [string | undefined, Extract<AuthSchemeSpec, { type: 'oauth2' }>['authorizationCode']] {
  for (const [name, scheme] of Object.entries(table.auth)) {
    if (scheme.type === 'oauth2' && scheme.authorizationCode !== undefined) return [name, scheme.authorizationCode];
  }
  return [undefined, undefined];
}

function scopesOfTools(table: ToolTable, schemeName: string | undefined): string[] {
  if (schemeName === undefined) return [];
  const scopes = new Set<string>();
  for (const tool of table.tools) {
    for (const alternative of tool.security ?? []) for (const scope of alternative[schemeName] ?? []) scopes.add(scope);
  }
  return [...scopes].sort();
}

function tokenRequester(tokenUrl: string, settings: SignInConfig): (fields: Record<string, string>) => Promise<ApiTokens> {
  const where = new URL(tokenUrl).origin + new URL(tokenUrl).pathname;
  return async (fields) => {
    const body = new URLSearchParams(fields);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      // GitHub answers form-encoded without it.
      accept: 'application/json',
    };
    if (settings.clientAuth === 'basic') headers.authorization = clientSecretBasic(settings.clientId, settings.clientSecret);
    else {
      body.set('client_id', settings.clientId);
      body.set('client_secret', settings.clientSecret);
    }
    let response: Response;
    try {
      // The secret goes to the configured URL only, never where a redirect points.
      response = await fetchWithoutRedirect(tokenUrl, { method: 'POST', headers, body, signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
    } catch (error) {
      throw new ApiSignInError(`the API's token URL ${where} did not answer (${(error as Error).message})`, false);
    }
    return tokensOf(response, where);
  };
}

async function tokensOf(response: Response, where: string): Promise<ApiTokens> {
  const text = await response.text();
  if (text.length > MAX_TOKEN_ANSWER_BYTES) throw new ApiSignInError(`the API's token URL ${where} answered too much`, false);
  const answer = parseAnswer(text, response.headers.get('content-type') ?? '');
  const error = typeof answer.error === 'string' && ERROR_CODE.test(answer.error) ? answer.error : undefined;
  if (!response.ok || error !== undefined) {
    // The code or refresh token is no longer good (GitHub answers 200 with its own codes); a 400/401 without a code too.
    const refused = (error !== undefined && REFUSED_GRANT.has(error)) || response.status === 400 || response.status === 401;
    throw new ApiSignInError(`the API's token URL ${where} refused: ${error ?? `HTTP ${response.status}`}`, refused);
  }
  if (typeof answer.access_token !== 'string' || answer.access_token === '') {
    throw new ApiSignInError(`the API's token URL ${where} answered no access_token`, false);
  }
  const lifetime = Number(answer.expires_in);
  return {
    accessToken: answer.access_token,
    ...(typeof answer.refresh_token === 'string' && answer.refresh_token !== '' ? { refreshToken: answer.refresh_token } : {}),
    ...(Number.isFinite(lifetime) && lifetime > 0 ? { expiresAt: Date.now() + lifetime * 1000 } : {}),
  };
}

/** JSON, or the form encoding older OAuth servers answer with. */
function parseAnswer(text: string, contentType: string): Record<string, unknown> {
  if (/application\/x-www-form-urlencoded/i.test(contentType)) return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}
