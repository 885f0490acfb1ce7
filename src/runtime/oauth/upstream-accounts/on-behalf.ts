// Upstream requests on the MCP caller's behalf, when the server is an OAuth resource server with
// --token-exchange or --upstream-identity-header. The caller's own token is for this server and
// never goes upstream: with token exchange, the token the authorization server issued for the
// API is the credential of the tool's bearer schemes (oauth2, http bearer), or Authorization
// of a tool that declares no security; the server's own credentials serve the other schemes.
// With an identity header, every request names the caller's subject. Loaded only then.

import type { AuthInfo } from '@modelcontextprotocol/server';
import type { RequestCredentials } from '../../call/request/credentials.js';
import type { OAuthConfig } from '../../start/config.js';
import type { LinkRequired } from '../../call/answer/link-mark.js';
import type { Logger } from '../../start/log.js';
import { createTokenExchanger, TokenExchangeError, type TokenExchanger } from './token-exchange.js';
import { badCredential } from '../../../contract/headers.js';
import type { ToolSpec, ToolTable } from '../../../contract/table.js';

/** What a call sends for its caller, beyond what it builds itself. */
interface Delegated {
  /** The call's credentials by scheme: the given ones, the exchanged token for every bearer scheme. */
  credentials: RequestCredentials;
  /** Schemes whose alternatives go first: the caller's own identity before the server's shared one. */
  preferred?: ReadonlySet<string>;
  /** Headers set after authentication, over any of the same name. */
  headers: [string, string][];
  /** The exchanged token, when one was used: a secret for the redaction. */
  exchanged?: string;
}

export interface OnBehalf {
  /** What the call of `tool` by `caller` adds to its request, or why it cannot go (one line for the client). */
  prepare(
    tool: ToolSpec,
    caller: AuthInfo,
    given: RequestCredentials,
    signal: AbortSignal,
  ): Promise<Delegated | { problem: string; link?: LinkRequired }>;
  /** The API answered 401 to an exchanged token: the next call exchanges anew. */
  forget(caller: AuthInfo): void | Promise<void>;
}

export async function createOnBehalf(table: ToolTable, oauth: OAuthConfig, timeoutMs: number, log: Logger): Promise<OnBehalf> {
  const exchanger = await exchangerOf(table, oauth, timeoutMs, log);
  const bearer = new Set(
    Object.entries(table.auth)
      .filter(([, s]) => s.type === 'oauth2' || (s.type === 'http' && s.scheme.toLowerCase() === 'bearer'))
      .map(([name]) => name),
  );
  const identityHeader = oauth.identityHeader;
  return {
    async prepare(tool, caller, given, signal) {
      const headers: [string, string][] = [];
      if (identityHeader !== undefined) {
        const subject = typeof caller.extra?.subject === 'string' && caller.extra.subject !== '' ? caller.extra.subject : caller.clientId;
        if (badCredential(subject, true) !== undefined || subject.trim() !== subject) {
          return { problem: `${tool.name}: the caller's subject cannot be sent in ${identityHeader}` };
        }
        headers.push([identityHeader, subject]);
      }
      const use = exchanger !== undefined ? tokenUse(tool, bearer) : 'none';
      if (use === 'none') return { credentials: given, headers };
      let exchanged: string;
      try {
        exchanged = await (exchanger as TokenExchanger).tokenFor(caller, signal);
      } catch (error) {
        if (error instanceof TokenExchangeError)
          return { problem: `${tool.name}: ${error.message}`, ...(error.link ? { link: error.link } : {}) };
        if (signal.aborted)
          return { problem: `${tool.name}: token exchange stopped (${(signal.reason as Error)?.message ?? 'cancelled'})` };
        throw error;
      }
      if (use === 'authorization')
        return { credentials: given, headers: [['Authorization', `Bearer ${exchanged}`], ...headers], exchanged };
      const credentials = new Map(given);
      for (const name of bearer) credentials.set(name, exchanged);
      return { credentials, preferred: bearer, headers, exchanged };
    },
    forget: (caller) => exchanger?.forget(caller),
  };
}

/** The API token of the caller: exchanged for theirs, or the one they signed in at the API with. */
async function exchangerOf(table: ToolTable, oauth: OAuthConfig, timeoutMs: number, log: Logger): Promise<TokenExchanger | undefined> {
  const signIn = oauth.signIn;
  if (signIn !== undefined) return (await import('./accounts.js')).accountsOf(oauth, signIn, table, log);
  const wanted = oauth.tokenExchange;
  if (wanted === undefined) return undefined;
  // config.ts refuses --token-exchange without the client's id and secret.
  const settings = {
    kind: wanted.kind,
    issuer: oauth.issuer,
    clientId: oauth.clientId as string,
    clientSecret: oauth.clientSecret as string,
    ...(wanted.audience !== undefined ? { audience: wanted.audience } : {}),
    ...(wanted.scope !== undefined ? { scope: wanted.scope } : {}),
  };
  return createTokenExchanger(settings, { timeoutMs, log });
}

/**
 * Where a tool puts the exchanged token: as the credential of its bearer schemes; as
 * Authorization when it declares no security (none at all, or only the empty alternative);
 * nowhere when its schemes are all of other kinds (apiKey, basic), which the server serves.
 */
function tokenUse(tool: ToolSpec, bearer: ReadonlySet<string>): 'schemes' | 'authorization' | 'none' {
  const alternatives = tool.security ?? [];
  if (alternatives.every((alternative) => Object.keys(alternative).length === 0)) return 'authorization';
  return alternatives.some((alternative) => Object.keys(alternative).some((name) => bearer.has(name))) ? 'schemes' : 'none';
}
