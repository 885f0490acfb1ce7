// What a user's browser does in the delegated sign-in of a generated server that is its own
// authorization server (--oauth-api-client-id): open /authorize, answer the consent page (its
// form, with the cookie it set), sign in at the API (oidc-provider, driven by its own signIn),
// and come back through the server's callback to the client's redirect URI. Plain HTTP with a
// cookie jar, so that each step can also be replayed or tampered with by the attack tests. And
// the SDK client's side: a provider that runs that sign-in when the SDK redirects.
import {
  Client,
  UnauthorizedError,
  type ClientOptions,
  type OAuthClientProvider,
  type SSEClientTransport,
  type StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { AuthorizationServer } from './authorization-server.js';
import { startUpstream } from './upstream.js';

export interface Browser {
  cookies: Map<string, string>;
  /** GET or POST one URL without following redirects; keeps cookies. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export function newBrowser(): Browser {
  const cookies = new Map<string, string>();
  return {
    cookies,
    async fetch(url, init = {}) {
      const headers = new Headers(init.headers);
      if (cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      const res = await fetch(url, { ...init, headers, redirect: 'manual' });
      for (const header of res.headers.getSetCookie()) {
        const [pair = ''] = header.split(';');
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        if (value === '' || /max-age=0/i.test(header)) cookies.delete(name);
        else cookies.set(name, value);
      }
      return res;
    },
  };
}

export interface ConsentForm {
  action: string;
  request: string;
  csrf: string;
  html: string;
}

/** Opens /authorize and reads the consent page's form. */
export async function openConsent(browser: Browser, authorizationUrl: string | URL): Promise<ConsentForm> {
  const res = await browser.fetch(authorizationUrl);
  const html = await res.text();
  if (res.status !== 200) throw new Error(`/authorize answered ${res.status}: ${html.slice(0, 300)}`);
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';
  return { action: action.replace(/&#38;/g, '&'), request: field('request'), csrf: field('csrf'), html };
}

/** Posts the consent form from the server's own origin, as the page does. */
export function answerConsent(browser: Browser, form: ConsentForm, decision: 'allow' | 'deny', origin = new URL(form.action).origin) {
  return browser.fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ request: form.request, csrf: form.csrf, decision }),
  });
}

/** The whole way, as `user` at the API: the client's redirect URI with our code, state and iss. */
export async function delegatedSignIn(
  as: AuthorizationServer,
  authorizationUrl: string | URL,
  user: string,
  browser = newBrowser(),
): Promise<URL> {
  const form = await openConsent(browser, authorizationUrl);
  const allowed = await answerConsent(browser, form, 'allow');
  const toApi = allowed.headers.get('location');
  if (allowed.status !== 302 || toApi === null)
    throw new Error(`consent answered ${allowed.status}: ${(await allowed.text()).slice(0, 300)}`);
  const fromApi = await as.signIn(toApi, user);
  const callback = new URL(fromApi.redirectUri);
  callback.searchParams.set('code', fromApi.code);
  if (fromApi.state !== undefined) callback.searchParams.set('state', fromApi.state);
  if (fromApi.iss !== undefined) callback.searchParams.set('iss', fromApi.iss);
  const back = await browser.fetch(callback);
  const location = back.headers.get('location');
  if (back.status !== 302 || location === null)
    throw new Error(`the callback answered ${back.status}: ${(await back.text()).slice(0, 300)}`);
  return new URL(location);
}

/** An OAuthClientProvider in memory, whose user signs in headlessly (delegatedSignIn) when the SDK redirects. */
export function headlessLogin(as: AuthorizationServer, user: string, redirectUrl: string, options: { clientMetadataUrl?: string } = {}) {
  let info: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0] | undefined;
  let tokens: Parameters<OAuthClientProvider['saveTokens']>[0] | undefined;
  let verifier = '';
  let pending: Promise<URL> | undefined;
  let asked: URL | undefined;
  const provider: OAuthClientProvider = {
    redirectUrl,
    clientMetadata: { redirect_uris: [redirectUrl], client_name: `e2e ${user}`, token_endpoint_auth_method: 'none' },
    ...(options.clientMetadataUrl !== undefined ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    clientInformation: () => info,
    saveClientInformation: (saved) => void (info = saved),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    redirectToAuthorization: (url) => {
      asked = url;
      pending = delegatedSignIn(as, url, user);
    },
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
  return {
    provider,
    /** The code the sign-in brought back to the client's redirect URI. */
    async code() {
      const back = await pending;
      pending = undefined;
      if (back === undefined) throw new Error('the client never redirected to sign in');
      return { code: back.searchParams.get('code') as string, iss: back.searchParams.get('iss') ?? undefined, back };
    },
    tokens: () => tokens,
    asked: () => asked,
    clientId: () => info?.client_id,
  };
}

export type HeadlessLogin = ReturnType<typeof headlessLogin>;

/**
 * A connected SDK client: the first connection is refused 401 and signs the user in (unless the
 * login already holds tokens), the second one, on a new transport, carries the token.
 */
export async function connectSigningIn<T extends StreamableHTTPClientTransport | SSEClientTransport>(
  name: string,
  login: HeadlessLogin,
  transport: () => T,
  options: ClientOptions = {},
): Promise<{ client: Client; transport: T }> {
  let client = new Client({ name, version: '1.0.0' }, options);
  const first = transport();
  try {
    await client.connect(first);
    return { client, transport: first };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const { code, iss } = await login.code();
  await first.finishAuth(code, iss);
  client = new Client({ name, version: '1.0.0' }, options);
  const second = transport();
  await client.connect(second);
  return { client, transport: second };
}

/**
 * The API behind a server in this mode: a recording upstream that accepts only the JWTs `as`
 * issued for `audience`, answering a pet named after the token's subject; a subject in `refused`
 * gets 401 (the user revoked the app at the API).
 */
export async function startApiUpstream(as: AuthorizationServer, audience: string, refused: ReadonlySet<string> = new Set()) {
  const keys = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
  return startUpstream(async (req) => {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    try {
      const { payload } = await jwtVerify(token ?? '', keys, { issuer: as.issuer, audience });
      if (refused.has(String(payload.sub))) return { status: 401, body: '{"message":"Bad credentials"}' };
      return { body: JSON.stringify([{ id: 1, name: `pet of ${payload.sub}`, photoUrls: [] }]) };
    } catch {
      return { status: 401, body: '{"message":"Bad credentials"}' };
    }
  });
}

/** A 2025-06-18 initialize with a bare bearer token at `mcpUrl`: its status says whether the token stands. */
export function initializeWith(mcpUrl: string, token: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

/** The flags that make a generated Petstore server send its users to `as` to sign in, as the API app `clientId`. */
export function signInAtApiArgs(as: AuthorizationServer, clientId: string): string[] {
  return [
    '--oauth-api-client-id',
    clientId,
    '--oauth-api-authorization-url',
    `${as.issuer}/auth`,
    '--oauth-api-token-url',
    `${as.issuer}/token`,
    '--oauth-api-scopes',
    'read:pets',
  ];
}
