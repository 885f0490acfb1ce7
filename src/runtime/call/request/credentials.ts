// Authentication to the upstream API, from the spec's security schemes. Secrets come from
// the environment (or, when the operator maps them, from the MCP client's HTTP headers) and
// never appear in a message: errors name the variable to set, not its value.

import { abortSignalOf, type Cancellation } from '../send/call-limit.js';
import type { Logger } from '../../start/log.js';
import { encodeValue, getHeader, setHeader } from './request.js';
import { fromWebResponse, readLimited } from '../send/upstream.js';
import { clientSecretBasic } from './client-auth.js';
import { ownValue, type AuthSchemeSpec, type SecurityRequirement, type ToolSpec, type ToolTable } from '../../../contract/table.js';

export interface AuthRequest {
  url: string;
  headers: Record<string, string>;
}

/** Credentials given with one MCP request (per-request mode), by scheme name. */
export type RequestCredentials = ReadonlyMap<string, string>;

export type AuthOutcome = { ok: true; usedTokenFetch: boolean } | { ok: false; message: string };

/** Refresh a fetched token this long before it expires. */
const EXPIRY_MARGIN_MS = 60_000;
/** Largest token answer read: a token response is a few hundred bytes; an endless one must not fill memory. */
export const MAX_TOKEN_RESPONSE_BYTES = 65_536;

export class Authenticator {
  private readonly tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();
  private readonly values = new Map<string, string | undefined>();

  constructor(
    private readonly table: ToolTable,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Adds the credentials of the first satisfiable alternative to the request; alternatives that
   * name a `preferred` scheme are tried first (the caller's own token before the server's key).
   */
  async apply(
    tool: ToolSpec,
    request: AuthRequest,
    given: RequestCredentials,
    signal: Cancellation,
    preferred?: ReadonlySet<string>,
  ): Promise<AuthOutcome> {
    if (!tool.security) return { ok: true, usedTokenFetch: false };
    const prefers = (alternative: SecurityRequirement) => Object.keys(alternative).some((name) => preferred?.has(name));
    const alternatives = preferred ? [...tool.security].sort((a, b) => Number(prefers(b)) - Number(prefers(a))) : tool.security;
    // Credentials that are set are used even where authentication is optional (`{}`).
    const chosen =
      alternatives.find((alternative) => Object.keys(alternative).length > 0 && this.satisfiable(alternative, given)) ??
      alternatives.find((alternative) => Object.keys(alternative).length === 0);
    if (!chosen) return { ok: false, message: this.missing(tool, tool.security) };
    let usedTokenFetch = false;
    for (const [name, scopes] of Object.entries(chosen)) {
      const scheme = this.table.auth[name] as AuthSchemeSpec;
      const fromClient = given.get(name);
      switch (scheme.type) {
        case 'apiKey': {
          const key = fromClient ?? this.value(scheme.env.key) ?? '';
          if (scheme.in === 'header') setHeader(request.headers, scheme.name, key);
          else if (scheme.in === 'query') {
            request.url += (request.url.includes('?') ? '&' : '?') + encodeValue(scheme.name) + '=' + encodeValue(key);
          } else {
            const pair = `${scheme.name}=${encodeURIComponent(key)}`;
            const existing = getHeader(request.headers, 'cookie');
            setHeader(request.headers, 'Cookie', existing ? `${existing}; ${pair}` : pair);
          }
          break;
        }
        case 'basic': {
          const pair = fromClient ?? `${this.value(scheme.env.username) ?? ''}:${this.value(scheme.env.password) ?? ''}`;
          setHeader(request.headers, 'Authorization', `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`);
          break;
        }
        case 'http':
          setHeader(request.headers, 'Authorization', `${scheme.scheme} ${stripScheme(fromClient ?? this.value(scheme.env.token) ?? '')}`);
          break;
        case 'oauth2': {
          const ready = fromClient ?? this.value(scheme.env.token);
          if (ready !== undefined) {
            setHeader(request.headers, 'Authorization', `Bearer ${stripScheme(ready)}`);
            break;
          }
          try {
            setHeader(request.headers, 'Authorization', `Bearer ${await this.fetchToken(name, scheme, scopes, abortSignalOf(signal))}`);
            usedTokenFetch = true;
          } catch (error) {
            return { ok: false, message: `${tool.name}: ${(error as Error).message}` };
          }
          break;
        }
      }
    }
    return { ok: true, usedTokenFetch };
  }

  /** Forgets fetched tokens (after a 401 the next request fetches a new one). */
  invalidate(): void {
    this.tokens.clear();
  }

  /**
   * A credential variable's value, read once: the environment is settled at start-up (the
   * redaction reads the same values once too), and each read of process.env costs a call into
   * Node. Only fetched tokens change while the server runs, and they are not kept here.
   */
  private value(variable: string | undefined): string | undefined {
    if (variable === undefined) return undefined;
    if (this.values.has(variable)) return this.values.get(variable);
    const v = this.env[variable];
    const value = v === undefined || v === '' ? undefined : v;
    this.values.set(variable, value);
    return value;
  }

  private satisfiable(alternative: SecurityRequirement, given: RequestCredentials): boolean {
    return Object.keys(alternative).every((name) => {
      const scheme = ownValue(this.table.auth, name);
      if (!scheme) return false;
      if (given.has(name)) return true;
      switch (scheme.type) {
        case 'apiKey':
          return this.value(scheme.env.key) !== undefined;
        case 'basic':
          return this.value(scheme.env.username) !== undefined;
        case 'http':
          return this.value(scheme.env.token) !== undefined;
        case 'oauth2':
          return (
            this.value(scheme.env.token) !== undefined ||
            (scheme.clientCredentials !== undefined &&
              this.value(scheme.env.clientId) !== undefined &&
              this.value(scheme.env.clientSecret) !== undefined)
          );
      }
    });
  }

  private missing(tool: ToolSpec, alternatives: SecurityRequirement[]): string {
    const ways = alternatives.map((alternative) =>
      Object.keys(alternative)
        .map((name) => {
          const scheme = this.table.auth[name] as AuthSchemeSpec;
          const vars =
            scheme.type === 'oauth2' && scheme.clientCredentials
              ? `${scheme.env.token} (or ${scheme.env.clientId} and ${scheme.env.clientSecret})`
              : Object.values(scheme.env).join(' and ');
          return `${vars} for "${name}"`;
        })
        .join(' plus '),
    );
    return `${tool.name} needs credentials that are not set: set ${ways.join(', or ')}`;
  }

  /** OAuth 2.0 client credentials grant (RFC 6749 §4.4), cached per scope set until shortly before expiry. */
  private fetchToken(
    name: string,
    scheme: Extract<AuthSchemeSpec, { type: 'oauth2' }>,
    scopes: string[],
    signal: AbortSignal,
  ): Promise<string> {
    const key = `${name} ${[...scopes].sort().join(' ')}`;
    const cached = this.tokens.get(key);
    const fresh = cached?.then((t) => (t.expiresAt > Date.now() ? t : undefined)).catch(() => undefined);
    return (fresh ?? Promise.resolve(undefined)).then((hit) => {
      if (hit) return hit.token;
      const pending = this.requestToken(scheme, scopes, signal);
      this.tokens.set(key, pending);
      pending.catch(() => this.tokens.delete(key));
      return pending.then((t) => t.token);
    });
  }

  /**
   * A tokenUrl from a spec loaded from a URL must not be internal (mcp-gen left out those that
   * were when it read the spec); fetch takes no lookup hook, so the name is checked just before.
   */
  private async checkTokenUrl(tokenUrl: string, where: string | undefined): Promise<void> {
    const rule = this.table.publicServers;
    let url: URL;
    try {
      url = new URL(tokenUrl);
    } catch {
      return; // fetch says why
    }
    if (rule === undefined || url.origin === rule.trustedOrigin) return;
    const { InternalAddressError, internalAddressOf } = await import('../../../contract/addresses.js');
    const internal = await internalAddressOf(url);
    if (internal !== undefined)
      throw new Error(`token request to ${where} not sent: ${new InternalAddressError(url.hostname, internal).message}`);
  }

  private async requestToken(scheme: Extract<AuthSchemeSpec, { type: 'oauth2' }>, scopes: string[], signal: AbortSignal) {
    const tokenUrl = scheme.clientCredentials?.tokenUrl ?? '';
    const where = tokenUrl.split('?')[0];
    const id = this.value(scheme.env.clientId) ?? '';
    const secret = this.value(scheme.env.clientSecret) ?? '';
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.length) body.set('scope', scopes.join(' '));
    await this.checkTokenUrl(tokenUrl, where);
    const timed = AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]);
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: clientSecretBasic(id, secret),
        },
        body: body.toString(),
        signal: timed,
        // The client secret goes to the configured tokenUrl only, never where a redirect points.
        redirect: 'manual',
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new Error(`token request to ${where} failed (${cause})`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(
        `token request to ${where} answered a redirect (HTTP ${response.status}); not followed, so that the client secret goes nowhere else`,
      );
    }
    let read: { bytes: Uint8Array; truncated: boolean };
    try {
      read = await readLimited(fromWebResponse(response), MAX_TOKEN_RESPONSE_BYTES);
    } catch {
      throw new Error(`token request to ${where} failed (${timed.aborted ? 'timeout' : 'the answer broke off'})`);
    }
    if (read.truncated)
      throw new Error(`token request to ${where} answered more than ${MAX_TOKEN_RESPONSE_BYTES} bytes; not a token response`);
    const text = new TextDecoder().decode(read.bytes);
    if (!response.ok) throw new Error(`token request to ${where} answered HTTP ${response.status}`);
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new Error(`token request to ${where} answered something that is not JSON`);
    }
    if (typeof parsed.access_token !== 'string' || parsed.access_token === '') {
      throw new Error(`token request to ${where} answered without an access_token`);
    }
    const lifetime = typeof parsed.expires_in === 'number' ? parsed.expires_in * 1000 : 3_600_000;
    this.log.debug(`fetched an access token from ${where}`);
    return { token: parsed.access_token, expiresAt: Date.now() + Math.max(0, lifetime - EXPIRY_MARGIN_MS) };
  }
}

/** A client may pass `Bearer abc` where `abc` is meant. */
function stripScheme(token: string): string {
  return token.replace(/^Bearer\s+/i, '');
}
