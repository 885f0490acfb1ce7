// Each user's API account (--oauth-api-client-id): the token store, opened once per process and
// shared by the authorization endpoints and the calls, and the API token a call of a given
// caller uses, refreshed at the API before it expires. An API that no longer accepts the user's
// sign-in ends the grant, so that the client's next request is answered 401 and signs in again.

import type { AuthInfo } from '@modelcontextprotocol/server';
import type { OAuthConfig, SignInConfig } from './config.js';
import type { Logger } from './log.js';
import { apiOAuth, ApiSignInError, type ApiOAuth, type ApiTokens } from './oauth-api.js';
import { grantOf, revokeGrant, saveGrant, type Grant } from './oauth-grants.js';
import { TokenExchangeError, type TokenExchanger } from './token-exchange.js';
import { openTokenStore, type TokenStore } from './token-store.js';
import type { ToolTable } from '../contract/table.js';

/** An API token this close to its expiry is refreshed first. */
const REFRESH_MARGIN_MS = 60_000;

export interface Accounts extends TokenExchanger {
  store: TokenStore;
  api: ApiOAuth;
}

const opened = new WeakMap<OAuthConfig, Promise<Accounts>>();

/** The one Accounts of this server (the endpoints and the executor both ask for it). */
export function accountsOf(oauth: OAuthConfig, signIn: SignInConfig, table: ToolTable, log: Logger): Promise<Accounts> {
  let found = opened.get(oauth);
  if (found === undefined) {
    found = openAccounts(signIn, table, log);
    opened.set(oauth, found);
  }
  return found;
}

async function openAccounts(signIn: SignInConfig, table: ToolTable, log: Logger): Promise<Accounts> {
  const api = apiOAuth(table, signIn);
  const store = await openTokenStore({ ...signIn.store, namespace: table.name }, log);
  const refreshing = new Map<string, Promise<ApiTokens>>();
  const fresh = async (grant: Grant): Promise<ApiTokens> => {
    const tokens = grant.api;
    if (tokens.expiresAt === undefined || tokens.expiresAt - REFRESH_MARGIN_MS > Date.now()) return tokens;
    let pending = refreshing.get(grant.id);
    if (pending === undefined) {
      pending = refreshApiTokens(store, api, grant, log).finally(() => refreshing.delete(grant.id));
      refreshing.set(grant.id, pending);
    }
    return pending;
  };
  return {
    store,
    api,
    async tokenFor(caller) {
      const grant = await grantOfCaller(store, caller);
      if (grant === undefined)
        throw new TokenExchangeError('the sign-in at the API has ended: sign in again (the next request asks for it)');
      return (await fresh(grant)).accessToken;
    },
    async forget(caller) {
      // The API refused the token: it is refreshed on the next call, or the grant ends.
      const grant = await grantOfCaller(store, caller);
      if (grant !== undefined) await saveGrant(store, { ...grant, api: { ...grant.api, expiresAt: 0 } });
    },
  };
}

function grantOfCaller(store: TokenStore, caller: AuthInfo): Promise<Grant | undefined> {
  const id = caller.extra?.grantId;
  return typeof id === 'string' ? grantOf(store, id) : Promise.resolve(undefined);
}

/**
 * The API's refresh grant. A replica that refreshed first has stored newer tokens, which win; a
 * refusal ends the grant (the user signs in again).
 */
async function refreshApiTokens(store: TokenStore, api: ApiOAuth, grant: Grant, log: Logger): Promise<ApiTokens> {
  const refreshToken = grant.api.refreshToken;
  try {
    if (refreshToken === undefined) throw new ApiSignInError('the API gave no refresh token', true);
    const tokens = await api.refresh(refreshToken);
    await saveGrant(store, { ...grant, api: tokens });
    return tokens;
  } catch (error) {
    const now = await grantOf(store, grant.id);
    if (now !== undefined && now.api.accessToken !== grant.api.accessToken) return now.api;
    if (error instanceof ApiSignInError && error.refused) {
      await revokeGrant(store, grant.id);
      log.info(`a user's API sign-in ended (${error.message}); their client signs in again`);
      throw new TokenExchangeError("the API no longer accepts this user's sign-in: sign in again (the next request asks for it)");
    }
    throw new TokenExchangeError((error as Error).message);
  }
}
