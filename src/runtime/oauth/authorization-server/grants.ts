// What this authorization server issues, kept in the token store: single-use authorization
// codes, short-lived access tokens, and refresh tokens rotated on every use. All three point at
// a grant, which holds the user's API tokens; revoking the grant ends every token of it. A code
// or refresh token presented twice revokes its grant (OAuth 2.1 §4.1.2, §4.3.1).

import { s256, type ApiTokens } from '../upstream-accounts/api-oauth.js';
import { randomText } from '../secrets.js';
import type { TokenStore } from './token-store.js';

const ACCESS_TTL_MS = 3_600_000;
const REFRESH_TTL_MS = 30 * 24 * 3_600_000;
const CODE_TTL_MS = 60_000;
/** A used code is remembered this long, so that its replay revokes what it gave. */
const USED_CODE_TTL_MS = 600_000;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** One user's sign-in through one client: what they allowed, and their API tokens. */
export interface Grant {
  id: string;
  clientId: string;
  /** This server's name for the user (sessions are bound to it); not the API's. */
  subject: string;
  scopes: string[];
  resource: string;
  api: ApiTokens;
}

/** An authorization request, checked, as kept while the user consents and signs in at the API. */
export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  state?: string;
  challenge: string;
  scopes: string[];
  resource: string;
}

interface CodeRecord {
  grantId: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
}

export interface AccessRecord {
  grantId: string;
  clientId: string;
  scopes: string[];
  resource: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

interface RefreshRecord {
  grantId: string;
  clientId: string;
  scopes: string[];
  resource: string;
}

/** A token endpoint error (RFC 6749 §5.2). */
export class GrantError extends Error {
  constructor(
    readonly code: 'invalid_grant' | 'invalid_request' | 'invalid_scope' | 'invalid_target',
    message: string,
  ) {
    super(message);
  }
}

export function newSecret(prefix: string): string {
  return `${prefix}${randomText(32)}`;
}

export async function saveGrant(store: TokenStore, grant: Grant): Promise<void> {
  await store.put(`grant:${grant.id}`, grant, REFRESH_TTL_MS);
}

export function grantOf(store: TokenStore, id: string): Promise<Grant | undefined> {
  return store.get<Grant>(`grant:${id}`);
}

export async function revokeGrant(store: TokenStore, id: string): Promise<void> {
  await store.delete(`grant:${id}`);
}

export async function issueCode(store: TokenStore, grant: Grant, request: AuthorizationRequest): Promise<string> {
  const code = newSecret('mcp_ac_');
  const record: CodeRecord = {
    grantId: grant.id,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    challenge: request.challenge,
    resource: request.resource,
  };
  await store.put(`code:${code}`, record, CODE_TTL_MS);
  return code;
}

/** The token answer for a code (authorization_code grant), after every check the code carries. */
export async function redeemCode(store: TokenStore, clientId: string, form: URLSearchParams): Promise<Record<string, unknown>> {
  const code = required(form, 'code');
  const record = await store.take<CodeRecord>(`code:${code}`);
  if (record === undefined) {
    const used = await store.get<{ grantId: string }>(`used-code:${code}`);
    if (used !== undefined) {
      await revokeGrant(store, used.grantId);
      throw new GrantError('invalid_grant', 'the code was already used: the tokens it gave are revoked');
    }
    throw new GrantError('invalid_grant', 'the code is unknown or expired');
  }
  await store.put(`used-code:${code}`, { grantId: record.grantId }, USED_CODE_TTL_MS);
  if (record.clientId !== clientId) throw new GrantError('invalid_grant', 'the code was issued to another client');
  if (form.get('redirect_uri') !== record.redirectUri)
    throw new GrantError('invalid_grant', 'redirect_uri differs from the authorization request');
  const verifier = form.get('code_verifier') ?? '';
  if (!VERIFIER.test(verifier) || (await s256(verifier)) !== record.challenge) {
    throw new GrantError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
  checkResource(form, record.resource);
  const grant = await grantOf(store, record.grantId);
  if (grant === undefined) throw new GrantError('invalid_grant', 'the grant was revoked');
  return issueTokens(store, grant, grant.scopes, grant.resource);
}

/** The token answer for a refresh token, which is used up: a second use revokes the grant. */
export async function refreshTokens(store: TokenStore, clientId: string, form: URLSearchParams): Promise<Record<string, unknown>> {
  const token = required(form, 'refresh_token');
  const record = await store.take<RefreshRecord>(`refresh:${token}`);
  if (record === undefined) {
    const used = await store.get<{ grantId: string }>(`used-refresh:${token}`);
    if (used !== undefined) {
      await revokeGrant(store, used.grantId);
      throw new GrantError('invalid_grant', 'the refresh token was already used: every token of its grant is revoked');
    }
    throw new GrantError('invalid_grant', 'the refresh token is unknown, expired or revoked');
  }
  await store.put(`used-refresh:${token}`, { grantId: record.grantId }, REFRESH_TTL_MS);
  if (record.clientId !== clientId) throw new GrantError('invalid_grant', 'the refresh token was issued to another client');
  checkResource(form, record.resource);
  const asked = form.get('scope');
  const scopes = asked === null ? record.scopes : asked.split(' ').filter(Boolean);
  if (scopes.some((scope) => !record.scopes.includes(scope))) throw new GrantError('invalid_scope', 'more scopes than were granted');
  const grant = await grantOf(store, record.grantId);
  if (grant === undefined) throw new GrantError('invalid_grant', 'the grant was revoked');
  await saveGrant(store, grant); // lives as long as its newest refresh token
  return issueTokens(store, grant, scopes, record.resource);
}

/** RFC 7009: an access token ends alone; a refresh token ends its whole grant. Unknown tokens are no error. */
export async function revokeToken(store: TokenStore, clientId: string, token: string): Promise<void> {
  const access = await store.get<AccessRecord>(`access:${token}`);
  if (access !== undefined && access.clientId === clientId) return store.delete(`access:${token}`);
  const refresh = await store.get<RefreshRecord>(`refresh:${token}`);
  if (refresh !== undefined && refresh.clientId === clientId) {
    await store.delete(`refresh:${token}`);
    await revokeGrant(store, refresh.grantId);
  }
}

/** An access token's record and its grant, while both stand. */
export async function accessOf(store: TokenStore, token: string): Promise<{ access: AccessRecord; grant: Grant } | undefined> {
  const access = await store.get<AccessRecord>(`access:${token}`);
  if (access === undefined || access.expiresAt * 1000 <= Date.now()) return undefined;
  const grant = await grantOf(store, access.grantId);
  return grant === undefined ? undefined : { access, grant };
}

async function issueTokens(store: TokenStore, grant: Grant, scopes: string[], resource: string): Promise<Record<string, unknown>> {
  const accessToken = newSecret('mcp_at_');
  const refreshToken = newSecret('mcp_rt_');
  const expiresAt = Math.floor((Date.now() + ACCESS_TTL_MS) / 1000);
  const access: AccessRecord = { grantId: grant.id, clientId: grant.clientId, scopes, resource, expiresAt };
  await store.put(`access:${accessToken}`, access, ACCESS_TTL_MS);
  await store.put(
    `refresh:${refreshToken}`,
    { grantId: grant.id, clientId: grant.clientId, scopes, resource } satisfies RefreshRecord,
    REFRESH_TTL_MS,
  );
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TTL_MS / 1000,
    refresh_token: refreshToken,
    scope: scopes.join(' '),
  };
}

/** RFC 8707: a token request may name the resource, and then it must be the one authorized. */
function checkResource(form: URLSearchParams, resource: string): void {
  const asked = form.getAll('resource');
  if (asked.some((r) => r.replace(/\/+$/, '') !== resource.replace(/\/+$/, ''))) {
    throw new GrantError('invalid_target', 'resource differs from the one authorized');
  }
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (value === null || value === '') throw new GrantError('invalid_request', `${name} is required`);
  return value;
}
