// The OAuth 2.0 client credentials grant (RFC 6749 §4.4) of the schemes that declare one: a token
// fetched from the scheme's tokenUrl with client_secret_basic, cached per scheme and scope set
// until shortly before it expires, and forgotten after a 401 (RFC 6750 §3.1). credentials.ts
// places the token; nothing here puts the client secret anywhere but the configured tokenUrl.

import type { Logger } from '../../start/log.js';
import { fromWebResponse, readLimited } from '../send/upstream.js';
import { clientSecretBasic } from './client-auth.js';
import { screeningOfScheme, type AuthSchemeSpec, type ToolTable } from '../../../contract/table.js';

type OAuthScheme = Extract<AuthSchemeSpec, { type: 'oauth2' }>;

/** Refresh a fetched token this long before it expires. */
const EXPIRY_MARGIN_MS = 60_000;
/** Largest token answer read: a token response is a few hundred bytes; an endless one must not fill memory. */
export const MAX_TOKEN_RESPONSE_BYTES = 65_536;

export class ClientCredentialsTokens {
  private readonly tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();

  constructor(
    private readonly table: ToolTable,
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  /** The scheme's token for `scopes`: the cached one while it lasts, else a new one from its tokenUrl. */
  token(name: string, scheme: OAuthScheme, scopes: string[], client: { id: string; secret: string }, signal: AbortSignal): Promise<string> {
    const key = `${name} ${[...scopes].sort().join(' ')}`;
    const cached = this.tokens.get(key);
    const fresh = cached?.then((t) => (t.expiresAt > Date.now() ? t : undefined)).catch(() => undefined);
    return (fresh ?? Promise.resolve(undefined)).then((hit) => {
      if (hit) return hit.token;
      const pending = this.requestToken(name, scheme, scopes, client, signal);
      this.tokens.set(key, pending);
      pending.catch(() => this.tokens.delete(key));
      return pending.then((t) => t.token);
    });
  }

  /** Forgets fetched tokens (after a 401 the next request fetches a new one). */
  invalidate(): void {
    this.tokens.clear();
  }

  /**
   * A tokenUrl from a spec loaded from a URL must not be internal (mcp-gen left out those that
   * were when it read the spec); fetch takes no lookup hook, so the name is checked just before.
   * Of several APIs, the rule is that of the scheme's own API (`name` is the scheme's).
   */
  private async checkTokenUrl(name: string, tokenUrl: string, where: string | undefined): Promise<void> {
    const rule = screeningOfScheme(this.table, name);
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

  private async requestToken(
    name: string,
    scheme: OAuthScheme,
    scopes: string[],
    client: { id: string; secret: string },
    signal: AbortSignal,
  ) {
    const tokenUrl = scheme.clientCredentials?.tokenUrl ?? '';
    const where = tokenUrl.split('?')[0];
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.length) body.set('scope', scopes.join(' '));
    await this.checkTokenUrl(name, tokenUrl, where);
    const timed = AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]);
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: clientSecretBasic(client.id, client.secret),
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
