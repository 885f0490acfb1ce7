// Each caller's own token for the API (--token-exchange): the MCP caller's access token is for
// this server only, so it is exchanged at the authorization server for one meant for the API,
// by RFC 8693 token exchange or by Microsoft Entra's on-behalf-of flow. Exchanged tokens are
// cached per caller token (by its hash) until shortly before they expire. Loaded only when
// token exchange is on (on-behalf.ts).

import type { AuthInfo, AuthorizationServerMetadata } from '@modelcontextprotocol/server';
import { MAX_TOKEN_RESPONSE_BYTES } from '../../call/request/client-credentials.js';
import { clientSecretBasic } from '../../call/request/client-auth.js';
import type { TokenExchangeKind } from '../../start/config.js';
import type { Logger } from '../../start/log.js';
import type { LinkRequired } from '../../call/answer/link-mark.js';
import { sha256Base64url } from '../secrets.js';
import { discoverAuthorizationServer } from '../resource-server/discovery.js';
import { fromWebResponse, readLimited } from '../../call/send/upstream.js';
import { redact } from '../../call/answer/redact.js';
import { badCredential } from '../../../contract/headers.js';
import { fetchWithoutRedirect } from '../without-redirect.js';

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** An exchanged token is used until this long before it expires. */
const EXPIRY_MARGIN_MS = 60_000;
/** How long an exchanged token is kept when the answer has no expires_in (it is RECOMMENDED only). */
const UNSTATED_LIFETIME_MS = 300_000;
/** Callers whose exchanged token is kept; past it, the oldest entry goes. */
const MAX_CACHED = 1_000;
/** RFC 6749 §5.2: the characters of an `error` code. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,100}$/;
/** The part of an error_description quoted in a tool error. */
const MAX_DESCRIPTION = 300;

export interface TokenExchangeSettings {
  kind: TokenExchangeKind;
  /** The authorization server's issuer: its token endpoint is discovered from it on first use. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** RFC 8693 `audience` (and `resource` when it is an absolute http(s) URL). */
  audience?: string;
  scope?: string;
}

export interface TokenExchanger {
  /** An access token for the API on behalf of `caller`; throws a TokenExchangeError (one line, no secret). */
  tokenFor(caller: AuthInfo, signal: AbortSignal): Promise<string>;
  /** Drops the cached token of `caller` (the API refused it): the next call exchanges anew. */
  forget(caller: AuthInfo): void | Promise<void>;
}

/** Why no token for the API: a message fit for the client, naming neither token nor secret. */
export class TokenExchangeError extends Error {
  constructor(
    message: string,
    /** Set when linking the caller's API account would let the call go. */
    readonly link?: LinkRequired,
  ) {
    super(message);
  }
}

interface Issued {
  token: string;
  /** Milliseconds since the epoch after which the token is not used again. */
  usableUntil: number;
}

interface Entry {
  pending: Promise<Issued>;
  issued?: Issued;
}

export interface ExchangerOptions {
  /** Time limit of one token request (the server's --timeout). */
  timeoutMs: number;
  log: Logger;
  maxEntries?: number;
  now?: () => number;
}

export function createTokenExchanger(settings: TokenExchangeSettings, options: ExchangerOptions): TokenExchanger {
  const { timeoutMs, log } = options;
  const maxEntries = options.maxEntries ?? MAX_CACHED;
  const now = options.now ?? Date.now;
  const cache = new Map<string, Entry>();
  /** The token endpoint, from the discovery the resource server made at start (oauth-discovery.ts remembers it). */
  const tokenEndpoint = (): Promise<string> =>
    discoverAuthorizationServer(settings.issuer).then((metadata) => endpointOf(metadata, settings.issuer));

  return {
    async tokenFor(caller, signal) {
      // Nothing else waits between this digest and the cache's entry: callers of one token share one request.
      const key = await keyOf(caller.token);
      const cached = cache.get(key);
      if (cached !== undefined) {
        if (cached.issued === undefined) return abortable(cached.pending, signal).then((t) => t.token);
        if (cached.issued.usableUntil > now()) return cached.issued.token;
        cache.delete(key);
      }
      const sentAt = now();
      const entry: Entry = {
        pending: tokenEndpoint()
          .catch((error: unknown) => {
            throw new TokenExchangeError(`token exchange: ${(error as Error).message}`);
          })
          .then((url) => exchange(settings, timeoutMs, url, caller.token)),
      };
      entry.pending.then(
        (issued) => {
          const callerExpiry = caller.expiresAt !== undefined ? caller.expiresAt * 1000 : Infinity;
          entry.issued = { token: issued.token, usableUntil: Math.min(sentAt + issued.usableUntil, callerExpiry) };
          log.debug(`token exchange: a token for the API for ${caller.clientId}`);
        },
        () => {
          if (cache.get(key) === entry) cache.delete(key);
        },
      );
      cache.set(key, entry);
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      return abortable(entry.pending, signal).then((t) => t.token);
    },
    async forget(caller) {
      const key = await keyOf(caller.token);
      if (cache.get(key)?.issued !== undefined) cache.delete(key);
    },
  };
}

/** One token request; `usableUntil` is the lifetime from the request, less the margin. */
async function exchange(settings: TokenExchangeSettings, timeoutMs: number, url: string, subjectToken: string): Promise<Issued> {
  const where = url.split('?')[0] as string;
  const { response, bytes } = await postTokenRequest(settings, timeoutMs, url, subjectToken);
  let answer: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) answer = parsed as Record<string, unknown>;
  } catch {
    // said below
  }
  if (!response.ok) throw new TokenExchangeError(refusal(where, response.status, answer, [subjectToken, settings.clientSecret]));
  if (answer === undefined) throw new TokenExchangeError(`token exchange at ${where} answered something that is not a JSON object`);
  return issuedOf(where, answer);
}

/** The POST to the token endpoint and its answer, at most MAX_TOKEN_RESPONSE_BYTES, within `timeoutMs`. */
async function postTokenRequest(
  settings: TokenExchangeSettings,
  timeoutMs: number,
  url: string,
  subjectToken: string,
): Promise<{ response: Response; bytes: Uint8Array }> {
  const where = url.split('?')[0] as string;
  const { body, headers } = requestOf(settings, subjectToken);
  const timed = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetchWithoutRedirect(url, { method: 'POST', headers, body: body.toString(), signal: timed });
  } catch (error) {
    throw new TokenExchangeError(
      `token exchange at ${where} failed (${timed.aborted ? `no answer within ${timeoutMs} ms` : cause(error)})`,
    );
  }
  let read: { bytes: Uint8Array; truncated: boolean };
  try {
    read = await readLimited(fromWebResponse(response), MAX_TOKEN_RESPONSE_BYTES);
  } catch {
    throw new TokenExchangeError(`token exchange at ${where} failed (${timed.aborted ? 'timeout' : 'the answer broke off'})`);
  }
  if (read.truncated) {
    throw new TokenExchangeError(`token exchange at ${where} answered more than ${MAX_TOKEN_RESPONSE_BYTES} bytes; not a token response`);
  }
  return { response, bytes: read.bytes };
}

/** The token of a successful answer (RFC 6749 §5.1), checked to be a Bearer token a header can carry. */
function issuedOf(where: string, answer: Record<string, unknown>): Issued {
  const token = answer.access_token;
  if (typeof token !== 'string' || token === '')
    throw new TokenExchangeError(`token exchange at ${where} answered without an access_token`);
  if (badCredential(token, true) !== undefined || /\s/.test(token)) {
    throw new TokenExchangeError(`token exchange at ${where} answered an access_token that cannot be sent in a header`);
  }
  const type = answer.token_type;
  if (typeof type === 'string' && type.toLowerCase() !== 'bearer') {
    throw new TokenExchangeError(`token exchange at ${where} answered a token of type ${JSON.stringify(type.slice(0, 40))}, not Bearer`);
  }
  // Entra's v1 endpoint writes expires_in as a string.
  const seconds = typeof answer.expires_in === 'string' ? Number(answer.expires_in) : answer.expires_in;
  const lifetime = typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : UNSTATED_LIFETIME_MS;
  return { token, usableUntil: lifetime - EXPIRY_MARGIN_MS };
}

/** The form and headers of the token request for `kind`. */
function requestOf(settings: TokenExchangeSettings, subjectToken: string): { body: URLSearchParams; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (settings.kind === 'entra-obo') {
    // Entra takes the client's credentials in the body (client_secret_post).
    const body = new URLSearchParams({
      grant_type: JWT_BEARER_GRANT,
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      assertion: subjectToken,
      requested_token_use: 'on_behalf_of',
    });
    if (settings.scope !== undefined) body.set('scope', settings.scope);
    return { body, headers };
  }
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
  });
  if (settings.audience !== undefined) {
    body.set('audience', settings.audience);
    // RFC 8707 resource indicator: the authorization servers that key tokens by resource need it.
    if (/^https?:\/\//i.test(settings.audience)) body.set('resource', settings.audience);
  }
  if (settings.scope !== undefined) body.set('scope', settings.scope);
  headers.authorization = clientSecretBasic(settings.clientId, settings.clientSecret);
  return { body, headers };
}

/** The message for an error answer: the AS's `error` and `error_description`, with no token or secret in it. */
function refusal(where: string, status: number, answer: Record<string, unknown> | undefined, secrets: string[]): string {
  const code = typeof answer?.error === 'string' && ERROR_CODE.test(answer.error) ? answer.error : undefined;
  if (code === undefined) return `token exchange at ${where} answered HTTP ${status}`;
  const raw = typeof answer?.error_description === 'string' ? answer.error_description : '';
  const described = redact(raw.replace(/[\x00-\x1f\x7f\s]+/g, ' ').trim(), secrets);
  const description = described.length > MAX_DESCRIPTION ? `${described.slice(0, MAX_DESCRIPTION)}…` : described;
  const said = description === '' ? code : `${code}: ${description}`;
  if (code === 'invalid_grant') {
    return `the authorization server would not exchange the caller's token (${said}): it may have expired or been revoked; sign in again`;
  }
  return `token exchange at ${where} refused (${said})`;
}

/** The metadata's token endpoint: https, or http when the issuer itself is (a server on loopback). */
function endpointOf(metadata: AuthorizationServerMetadata, issuer: string): string {
  const url = metadata.token_endpoint;
  if (typeof url !== 'string' || url === '') throw new Error(`the authorization server ${issuer} publishes no token_endpoint`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`the token_endpoint of ${issuer} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && new URL(issuer).protocol === 'http:')) {
    throw new Error(`the token_endpoint of ${issuer} is not https: the client secret is not sent there`);
  }
  return url;
}

let lastKey: Promise<unknown> = Promise.resolve();
/**
 * The cache key of a caller token: its SHA-256, so that the cache holds no caller token. Digests
 * resolve in the order they were asked for (Web Crypto's need not), so that a forget followed by a
 * tokenFor acts in that order.
 */
const keyOf = (token: string): Promise<string> => {
  const key = lastKey.then(() => sha256Base64url(token));
  lastKey = key.catch(() => undefined);
  return key;
};

/** Why fetch failed, in a word: its cause's code (ECONNREFUSED), or the cause's message (a redirect). */
function cause(error: unknown): string {
  const inner = (error as { cause?: { code?: string; message?: string } }).cause;
  return inner?.code ?? inner?.message ?? (error as Error).name;
}

/** The shared request's outcome, or the caller's own cancellation, whichever comes first. */
function abortable<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
