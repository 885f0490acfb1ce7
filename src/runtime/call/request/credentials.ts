// Authentication to the upstream API, from the spec's security schemes. Secrets come from
// the environment (or, when the operator maps them, from the MCP client's HTTP headers) and
// never appear in a message: errors name the variable to set, not its value. The tokens of OAuth
// client credentials come from client-credentials.ts; this module places every credential.

import { abortSignalOf, type Cancellation } from '../send/call-limit.js';
import type { Logger } from '../../start/log.js';
import { encodeValue, getHeader, setHeader } from './request.js';
import { ClientCredentialsTokens } from './client-credentials.js';
import { ownValue, type AuthSchemeSpec, type SecurityRequirement, type ToolSpec, type ToolTable } from '../../../contract/table.js';

export interface AuthRequest {
  url: string;
  headers: Record<string, string>;
}

/** Credentials given with one MCP request (per-request mode), by scheme name. */
export type RequestCredentials = ReadonlyMap<string, string>;

export type AuthOutcome = { ok: true; usedTokenFetch: boolean } | { ok: false; message: string };

export class Authenticator {
  private readonly values = new Map<string, string | undefined>();
  private readonly clientCredentials: ClientCredentialsTokens;

  constructor(
    private readonly table: ToolTable,
    private readonly env: NodeJS.ProcessEnv,
    log: Logger,
    timeoutMs: number,
  ) {
    this.clientCredentials = new ClientCredentialsTokens(table, log, timeoutMs);
  }

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
            const url = withoutQueryPairs(request.url, scheme.name);
            request.url = url + (url.includes('?') ? '&' : '?') + encodeValue(scheme.name) + '=' + encodeValue(key);
          } else {
            const pair = `${scheme.name}=${encodeURIComponent(key)}`;
            const existing = withoutCookies(getHeader(request.headers, 'cookie') ?? '', scheme.name);
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
            const client = { id: this.value(scheme.env.clientId) ?? '', secret: this.value(scheme.env.clientSecret) ?? '' };
            const token = await this.clientCredentials.token(name, scheme, scopes, client, abortSignalOf(signal));
            setHeader(request.headers, 'Authorization', `Bearer ${token}`);
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
    this.clientCredentials.invalidate();
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
}

// A credential in the query or a cookie is the only value of its name, as a header credential
// replaces a header argument: the names of a free-form object argument (form style, exploded)
// are the model's, and an API that reads the first `api_key` would take the model's key.

/** The URL without the query pairs named `name` (compared decoded). */
function withoutQueryPairs(url: string, name: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const kept = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => decodedName(pair.split('=')[0] as string) !== name);
  return kept.length > 0 ? `${url.slice(0, at)}?${kept.join('&')}` : url.slice(0, at);
}

/** A Cookie header's pairs but those named `name` (RFC 6265 §4.2.1: `name=value` joined by `; `). */
function withoutCookies(header: string, name: string): string {
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && decodedName(pair.split('=')[0] as string) !== name)
    .join('; ');
}

function decodedName(text: string): string {
  try {
    return decodeURIComponent(text.trim());
  } catch {
    return text.trim(); // a `%` that starts no escape: the name as it is
  }
}

/** A client may pass `Bearer abc` where `abc` is meant. */
function stripScheme(token: string): string {
  return token.replace(/^Bearer\s+/i, '');
}
