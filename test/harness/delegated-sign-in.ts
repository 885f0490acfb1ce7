// What a user's browser does in the delegated sign-in of a generated server that is its own
// authorization server (--oauth-api-client-id): open /authorize, answer the consent page (its
// form, with the cookie it set), sign in at the API (oidc-provider, driven by its own signIn),
// and come back through the server's callback to the client's redirect URI. Plain HTTP with a
// cookie jar, so that each step can also be replayed or tampered with by the attack tests.
import type { AuthorizationServer } from './authorization-server.js';

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
