// Each user's API account (--oauth-api-client-id): the token store, opened once per process and
// shared by the sign-in endpoints and the calls, and the API token a call of a given caller
// uses, refreshed at the API before it expires. The tokens hang off the caller's grant when
// this server is the authorization server, or off a link to the caller's subject when another
// one is (--oauth-issuer): a caller with no linked account gets a URL to link one. An API that
// no longer accepts the user's sign-in ends the grant (the client's next request is 401) or
// the link (the next call asks to link again).

import type { AuthInfo } from '@modelcontextprotocol/server';
import type { OAuthConfig, SignInConfig } from '../../start/config.js';
import type { Logger } from '../../start/log.js';
import { apiOAuth, ApiSignInError, type ApiOAuth, type ApiTokens } from './api-oauth.js';
import { grantOf, revokeGrant, saveGrant } from '../authorization-server/grants.js';
import { noteCredentialFailure } from '../../observe/observe.js';
import { TokenExchangeError, type TokenExchanger } from './token-exchange.js';
import { openTokenStore, type TokenStore } from '../authorization-server/token-store.js';
import { randomText } from '../secrets.js';
import type { ToolTable } from '../../../contract/table.js';

/** An API token this close to its expiry is refreshed first. */
const REFRESH_MARGIN_MS = 60_000;
/** Longest one refresh at the API may hold the others back (its token request times out at 10 s). */
const REFRESH_LOCK_MS = 15_000;
const REFRESH_POLL_MS = 200;
/** How long a link URL may wait to be opened. */
const LINK_START_TTL_MS = 600_000;
/** A linked account is kept this long after its last refresh. */
const LINK_TTL_MS = 90 * 24 * 3_600_000;

/** What a link URL stands for until it is used: whose account is being linked. */
export interface LinkStart {
  subject: string;
}

export interface Accounts extends TokenExchanger {
  store: TokenStore;
  api: ApiOAuth;
  /** The caller's key for a linked account (link mode). */
  linkKeyOf(subject: string): string;
}

const opened = new WeakMap<OAuthConfig, Promise<Accounts>>();

/** The one Accounts of this server (the endpoints and the executor both ask for it). */
export function accountsOf(oauth: OAuthConfig, signIn: SignInConfig, table: ToolTable, log: Logger): Promise<Accounts> {
  let found = opened.get(oauth);
  if (found === undefined) {
    found = openAccounts(oauth, signIn, table, log);
    opened.set(oauth, found);
  }
  return found;
}

/** Where one caller's API tokens are kept: their grant, or their link. */
interface Holder {
  /** Names the grant or link: one refresh at a time per key. */
  key: string;
  /** What the caller is told when the API ends the sign-in. */
  ended: string;
  read(): Promise<ApiTokens | undefined>;
  write(tokens: ApiTokens): Promise<void>;
  end(): Promise<void>;
}

async function openAccounts(oauth: OAuthConfig, signIn: SignInConfig, table: ToolTable, log: Logger): Promise<Accounts> {
  const api = apiOAuth(table, signIn);
  const store = await openTokenStore({ ...signIn.store, namespace: table.name }, log);
  const apiName = table.title ?? table.name;
  const linkKeyOf = (subject: string) => `link:${oauth.issuer}\u0000${subject}`;
  const holderOf = (caller: AuthInfo): Holder | undefined => {
    if (oauth.tokenCheck === 'self') {
      const id = caller.extra?.grantId;
      return typeof id === 'string' ? grantHolder(store, id) : undefined;
    }
    return linkHolder(store, linkKeyOf(subjectOf(caller)));
  };
  const refreshing = new Map<string, Promise<ApiTokens>>();
  const fresh = async (holder: Holder, tokens: ApiTokens): Promise<ApiTokens> => {
    if (tokens.expiresAt === undefined || tokens.expiresAt - REFRESH_MARGIN_MS > Date.now()) return tokens;
    let pending = refreshing.get(holder.key);
    if (pending === undefined) {
      pending = refreshOnce(store, api, holder, tokens, log).finally(() => refreshing.delete(holder.key));
      refreshing.set(holder.key, pending);
    }
    return pending;
  };
  return {
    store,
    api,
    linkKeyOf,
    async tokenFor(caller) {
      const holder = holderOf(caller);
      const tokens = await holder?.read();
      if (holder !== undefined && tokens !== undefined) return (await fresh(holder, tokens)).accessToken;
      if (oauth.tokenCheck === 'self') {
        throw new TokenExchangeError('the sign-in at the API has ended: sign in again (the next request asks for it)');
      }
      const subject = subjectOf(caller);
      const id = randomText(24);
      await store.put(`linkstart:${id}`, { subject } satisfies LinkStart, LINK_START_TTL_MS);
      const url = `${oauth.publicUrl}/oauth/link?id=${id}`;
      const message = `Link your ${apiName} account: open ${url} and sign in there; the call goes on once it is linked`;
      const linked = async () => (await store.get(linkKeyOf(subject))) !== undefined;
      throw new TokenExchangeError(`link your ${apiName} account first: open ${url}, sign in there, then call again`, {
        url,
        message,
        linked,
      });
    },
    async forget(caller) {
      // The API refused the token: it is refreshed on the next call, or the grant or link ends.
      const holder = holderOf(caller);
      const tokens = await holder?.read();
      if (holder !== undefined && tokens !== undefined) await holder.write({ ...tokens, expiresAt: 0 });
    },
  };
}

/** The caller as the authorization server names them: the token's subject, else its client. */
export function subjectOf(caller: AuthInfo): string {
  const subject = caller.extra?.subject;
  return typeof subject === 'string' && subject !== '' ? subject : `client:${caller.clientId}`;
}

function grantHolder(store: TokenStore, id: string): Holder {
  return {
    key: `grant:${id}`,
    ended: "the API no longer accepts this user's sign-in: sign in again (the next request asks for it)",
    read: async () => (await grantOf(store, id))?.api,
    async write(tokens) {
      const grant = await grantOf(store, id);
      if (grant !== undefined) await saveGrant(store, { ...grant, api: tokens });
    },
    end: () => revokeGrant(store, id),
  };
}

function linkHolder(store: TokenStore, key: string): Holder {
  return {
    key,
    ended: 'the API no longer accepts the linked account: call again to link it anew',
    read: () => store.get<ApiTokens>(key),
    write: (tokens) => store.put(key, tokens, LINK_TTL_MS),
    end: () => store.delete(key),
  };
}

export function saveLink(store: TokenStore, key: string, tokens: ApiTokens): Promise<void> {
  return linkHolder(store, key).write(tokens);
}

/**
 * One refresh across replicas: the store's lock lets one replica ask the API (which may rotate
 * refresh tokens and take a second use for theft); the others wait for the tokens it saves.
 */
async function refreshOnce(store: TokenStore, api: ApiOAuth, holder: Holder, tokens: ApiTokens, log: Logger): Promise<ApiTokens> {
  const lock = `refreshing:${holder.key}`;
  if (await store.putIfAbsent(lock, true, REFRESH_LOCK_MS)) {
    try {
      return await refreshApiTokens(api, holder, tokens, log);
    } finally {
      await store.delete(lock);
    }
  }
  for (const until = Date.now() + REFRESH_LOCK_MS; Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
    const now = await holder.read();
    if (now === undefined) throw new TokenExchangeError(holder.ended);
    if (now.accessToken !== tokens.accessToken) return now;
  }
  throw new TokenExchangeError('the API token is being refreshed by another replica that did not finish: call again');
}

/**
 * The API's refresh grant. A replica that refreshed first has stored newer tokens, which win; a
 * refusal ends the grant or link (the user signs in or links again).
 */
async function refreshApiTokens(api: ApiOAuth, holder: Holder, tokens: ApiTokens, log: Logger): Promise<ApiTokens> {
  try {
    if (tokens.refreshToken === undefined) throw new ApiSignInError('the API gave no refresh token', true);
    const renewed = await api.refresh(tokens.refreshToken);
    await holder.write(renewed);
    return renewed;
  } catch (error) {
    const now = await holder.read();
    if (now !== undefined && now.accessToken !== tokens.accessToken) return now;
    const refused = error instanceof ApiSignInError && error.refused;
    noteCredentialFailure(
      refused ? "the API refused to refresh the user's sign-in, which has ended" : 'the API token could not be refreshed',
    );
    if (refused) {
      await holder.end();
      log.info(`a user's API sign-in ended (${error.message})`);
      throw new TokenExchangeError(holder.ended);
    }
    throw new TokenExchangeError((error as Error).message);
  }
}
