// Access-token checks of the resource server, as the SDK's bearer-auth helpers want them
// (OAuthTokenVerifier): a JWT by the issuer's JWKS (jose), or RFC 7662 introspection for an
// opaque token. Both answer the token's AuthInfo with `resource` set only when the token's
// audience is one this server accepts, so that the SDK's audience comparison holds.

import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { clientSecretBasic } from '../../call/request/client-auth.js';
import {
  OAuthError,
  OAuthErrorCode,
  type AuthInfo,
  type AuthorizationServerMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { fetchWithoutRedirect } from '../without-redirect.js';
import { sha256, toBase64Url } from '../../start/crypto.js';

/** What a check knows of the request: the audiences it accepts and the resource they stand for. */
interface Audience {
  audiences: readonly string[];
  resource: string;
}

/** A verifier for the audiences of one request (the resource may follow the Host header on loopback). */
export type VerifierFor = (audience: Audience) => OAuthTokenVerifier;

/** Asymmetric signatures only: never `none`, never an HMAC a public key could be passed off as the secret of. */
const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** Clock difference tolerated on exp and nbf, in seconds. */
const CLOCK_SKEW_S = 30;
/** An unknown kid refetches the JWKS at most this often: a flood of forged kids costs one fetch. */
const JWKS_COOLDOWN_MS = 30_000;
/** Keys are refetched after this long even when every kid is known, so that removed keys stop working. */
const JWKS_MAX_AGE_MS = 600_000;
const FETCH_TIMEOUT_MS = 5_000;
/** Checked tokens and introspection answers remembered at most: every active user, bounded against a flood. */
const MAX_CACHED = 10_000;
/**
 * A verified JWT is remembered this long at most: within the JWKS's own age, so that a key the
 * issuer withdraws stops working no later than it would without this cache.
 */
const VERIFIED_TTL_MS = 300_000;

/** Token problems: the token is refused (401). Anything else is the authorization server's (500). */
const TOKEN_ERRORS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JWT_CLAIM_VALIDATION_FAILED: 'a claim of the token is not valid here',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the token signature does not verify',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token is not signed with an allowed algorithm',
  ERR_JWKS_NO_MATCHING_KEY: 'the token is signed with a key the authorization server does not publish',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'the token names no single key of the authorization server',
  ERR_JWS_INVALID: 'the token is not a well-formed JWT',
  ERR_JWT_INVALID: 'the token is not a well-formed JWT',
  ERR_JOSE_NOT_SUPPORTED: 'the token uses an unsupported algorithm or key',
};

/** RFC 8414 and OpenID metadata both: the SDK's union type names introspection on one side only. */
type Endpoints = AuthorizationServerMetadata & { jwks_uri?: string; introspection_endpoint?: string };

export function jwtVerifier(metadata: Endpoints, cooldownMs = JWKS_COOLDOWN_MS): VerifierFor {
  if (metadata.jwks_uri === undefined) {
    throw new Error(`the authorization server ${metadata.issuer} publishes no jwks_uri: use --oauth-token-check introspection`);
  }
  const keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
    cooldownDuration: cooldownMs,
    cacheMaxAge: JWKS_MAX_AGE_MS,
    timeoutDuration: FETCH_TIMEOUT_MS,
  });
  // A client sends the same token with every request: its signature is checked once (an ES256
  // or RS256 check costs ~0.2 ms of CPU), then the claims are remembered, never past exp.
  const verified = new Map<string, { payload: JWTPayload; until: number }>();
  return ({ audiences, resource }) => ({
    async verifyAccessToken(token) {
      const key = `${keyOf(token)} ${audiences.join(' ')}`;
      const hit = verified.get(key);
      if (hit !== undefined && hit.until > Date.now()) return authInfoOf(token, hit.payload, resource);
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: metadata.issuer,
          audience: [...audiences],
          algorithms: JWT_ALGORITHMS,
          clockTolerance: CLOCK_SKEW_S,
          requiredClaims: ['exp'],
        });
        remember(verified, key, payload, Math.min(Date.now() + VERIFIED_TTL_MS, (payload.exp as number) * 1000));
        return authInfoOf(token, payload, resource);
      } catch (error) {
        throw refusal(error);
      }
    },
  });
}

function refusal(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  const code = (error as { code?: string }).code ?? '';
  const reason = TOKEN_ERRORS[code];
  if (reason === undefined) return new OAuthError(OAuthErrorCode.ServerError, `cannot check the token: ${(error as Error).message}`);
  const claim = (error as { claim?: string }).claim;
  return new OAuthError(OAuthErrorCode.InvalidToken, claim ? `${reason} (${claim})` : reason);
}

/** Claims as the common authorization servers spell them: `scope` (RFC 9068), `scp` (Okta, Entra ID). */
function authInfoOf(token: string, claims: JWTPayload | Record<string, unknown>, resource: string): AuthInfo {
  const text = (name: string): string | undefined => (typeof claims[name] === 'string' ? (claims[name] as string) : undefined);
  const scp = claims.scp;
  const scopes = (text('scope') ?? (Array.isArray(scp) ? scp.join(' ') : typeof scp === 'string' ? scp : '')).split(' ').filter(Boolean);
  const subject = text('sub');
  return {
    token,
    clientId: text('client_id') ?? text('azp') ?? text('cid') ?? text('appid') ?? '',
    scopes,
    ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
    resource: new URL(resource),
    extra: { ...(subject !== undefined ? { subject } : {}), issuer: text('iss') },
  };
}

/** RFC 7662 introspection with this server's client, answers remembered `cacheMs` at most. */
export function introspectionVerifier(
  metadata: Endpoints,
  client: { clientId: string; clientSecret: string; cacheMs: number },
): VerifierFor {
  const endpoint = metadata.introspection_endpoint;
  if (endpoint === undefined) {
    throw new Error(`the authorization server ${metadata.issuer} publishes no introspection_endpoint: use --oauth-token-check jwt`);
  }
  const authorization = clientSecretBasic(client.clientId, client.clientSecret);
  const cache = new Map<string, { payload: Record<string, unknown>; until: number }>();
  // A client's burst of requests with one token asks the authorization server once.
  const asking = new Map<string, Promise<Record<string, unknown>>>();

  const introspect = (token: string): Promise<Record<string, unknown>> => {
    const key = keyOf(token);
    const hit = cache.get(key);
    if (hit !== undefined && hit.until > Date.now()) return Promise.resolve(hit.payload);
    const pending = asking.get(key);
    if (pending !== undefined) return pending;
    const answer = ask(token, key).finally(() => asking.delete(key));
    asking.set(key, answer);
    return answer;
  };

  const ask = async (token: string, key: string): Promise<Record<string, unknown>> => {
    let response: Response;
    try {
      response = await fetchWithoutRedirect(endpoint, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch (error) {
      throw new OAuthError(OAuthErrorCode.ServerError, `token introspection failed: ${(error as Error).message}`);
    }
    const claims = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response.ok || typeof claims !== 'object' || claims === null) {
      throw new OAuthError(OAuthErrorCode.ServerError, `token introspection answered HTTP ${response.status}`);
    }
    if (client.cacheMs > 0) {
      // An inactive token stays inactive: remembering that too spares the server a flood of asks for it.
      const expires = claims.active === true ? (typeof claims.exp === 'number' ? claims.exp * 1000 : 0) : Infinity;
      remember(cache, key, claims, Math.min(Date.now() + client.cacheMs, expires));
    }
    return claims;
  };

  return ({ audiences, resource }) => ({
    async verifyAccessToken(token) {
      const claims = await introspect(token);
      if (claims.active !== true) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is not active');
      if (claims.iss !== undefined && claims.iss !== metadata.issuer)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is from another issuer');
      const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      // No audience at all fails too: a token for nothing in particular is not one for this server.
      if (!aud.some((a) => typeof a === 'string' && audiences.includes(a))) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is for another audience');
      }
      if (typeof claims.exp !== 'number') throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token has no expiry');
      if (typeof claims.nbf === 'number' && claims.nbf > Date.now() / 1000 + CLOCK_SKEW_S) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is not valid yet');
      }
      return authInfoOf(token, claims, resource);
    },
  });
}

/** A cache key for a token: its SHA-256, so that no cache holds a token. */
const keyOf = (token: string): string => toBase64Url(sha256(token));

/** Remembered until `until`; the oldest entry goes first when full. */
function remember<T>(cache: Map<string, { payload: T; until: number }>, key: string, payload: T, until: number): void {
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, { payload, until });
}
