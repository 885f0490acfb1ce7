// The consent page of a generated server that is its MCP clients' authorization server
// (--oauth-api-client-id), in a real Chromium: it names the client (its name escaped, never
// markup), the redirect URI, the tools, the scopes and the API's sign-in host; "Allow and sign in"
// sends the browser to the API's own OAuth with the server's app, PKCE and state, and after the
// API's sign-in the client receives a code (with its state and iss) that its PKCE verifier
// redeems; "Deny" returns to the client with access_denied;
// another origin cannot frame the page, nor post its form, even with the page's own values.
// oidc-provider on 127.0.0.1 plays the API's authorization server; small local servers play the
// MCP client's redirect URI and the other origins.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { buildProject, generateProject, REPO, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { browserUnavailable, launchBrowser, screenshotPath } from '../harness/browser.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const UNAVAILABLE = browserUnavailable();
if (UNAVAILABLE) console.log(`oauth-consent-browser.test.ts: ${UNAVAILABLE}: the browser tests are skipped`);

/** The API as its authorization server names it. */
const API = 'https://api.petstore.test/';
const APP = { clientId: 'petstore-consent-app', clientSecret: `app-secret-${randomBytes(8).toString('hex')}` };
const API_SCOPES = 'read:pets';
const CLIENT_NAME = 'Browser Test Client <b>bold?</b>';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CLIENT_PAGE = '<!doctype html><title>Client</title><p>Back at the client</p>';

const html = (body: string) => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body });

let as: AuthorizationServer;
let server: RunningServer;
let serverUrl: string;
/** The MCP client's redirect URI (/callback): records what the browser brings back. */
let client: Upstream;
let redirectUri: string;
/** Another origin: its page (what `otherPage` holds) frames the consent page or posts its form. */
let other: Upstream;
/** The API's sign-in URL: on another origin, it sends the browser on to the fixture, as a login host of its own would. */
let signInHop: Upstream;
let otherPage = '';
let clientId: string;
let browser: Browser;
const children = new Children();

/** A PKCE pair and a state of the client's, and the /authorize URL carrying them. */
function authorizationRequest() {
  const verifier = randomBytes(32).toString('base64url');
  const state = `state-${randomBytes(6).toString('hex')}`;
  const url = new URL(`${serverUrl}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp:read mcp:write',
  }).toString();
  return { url: url.href, verifier, state };
}

/** What arrived at the client's redirect URI carrying `state`. */
const arrivedWith = (state: string) => client.requests.filter((r) => r.path === '/callback' && r.query.get('state') === state);

/** A fresh browser profile (no cookies) that logs every request it makes. */
async function newSession(): Promise<{ context: BrowserContext; page: Page; requests: Request[] }> {
  const context = await browser.newContext();
  const requests: Request[] = [];
  context.on('request', (r) => void requests.push(r));
  return { context, page: await context.newPage(), requests };
}

describe.skipIf(UNAVAILABLE !== undefined)(`the consent page in a real Chromium${UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : ''}`, () => {
  beforeAll(async () => {
    const work = join(TMP, `oauth-consent-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    as = await startAuthorizationServer({
      format: 'jwt',
      resources: { [API]: { scopes: ['read:pets', 'write:pets'] } },
      defaultResource: API,
    });
    client = await startUpstream(() => html(CLIENT_PAGE));
    redirectUri = `${client.url}/callback`;
    other = await startUpstream(() => html(otherPage));
    signInHop = await startUpstream((req) => ({ status: 302, headers: { location: `${as.issuer}/auth?${req.query}` } }));
    serverUrl = `http://127.0.0.1:${await freePort()}`;
    await as.registerClient({
      ...APP,
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: [`${serverUrl}/oauth/callback`],
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    const dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-oauth-consent');
    await buildProject(dir);
    const flags = {
      port: new URL(serverUrl).port,
      'public-url': serverUrl,
      'oauth-api-client-id': APP.clientId,
      'oauth-api-authorization-url': `${signInHop.url}/login/oauth/authorize`,
      'oauth-api-token-url': `${as.issuer}/token`,
      'oauth-api-scopes': API_SCOPES,
      'data-dir': join(work, 'data'),
    };
    server = await startServer(
      dir,
      'http',
      Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value]),
      { MCP_OAUTH_API_CLIENT_SECRET: APP.clientSecret, MCP_TOKEN_STORE_KEY: randomBytes(32).toString('base64') },
    );
    children.track(server.process);
    // The client registers through the server's own RFC 7591 endpoint.
    const registered = await fetch(`${serverUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], client_name: CLIENT_NAME, token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await children.stopAll();
    await as?.close();
    await client?.close();
    await other?.close();
    await signInHop?.close();
  });

  it('shows who asks, for what, and where the user signs in next; the screenshot is a real PNG of it', async () => {
    const { context, page } = await newSession();
    const { url } = authorizationRequest();
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    // The client's name is text: its <b> is shown, not made bold.
    expect(await page.locator('h1 strong').innerText()).toBe(CLIENT_NAME);
    expect(await page.locator('b').count()).toBe(0);
    const text = await page.locator('body').innerText();
    expect(text).toContain(redirectUri);
    expect(text).toContain('findPetsByStatus');
    expect(text).toContain('addPet');
    expect(text).toMatch(/Scopes: mcp:read mcp:write/);
    expect(text).toContain(`Next you sign in at ${new URL(signInHop.url).host}`);
    await expect(page.getByRole('button', { name: 'Allow and sign in' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Deny' }).isVisible()).resolves.toBe(true);

    const shot = screenshotPath('oauth-consent');
    rmSync(shot, { force: true });
    await page.screenshot({ path: shot, fullPage: true });
    const blank = await context.newPage();
    const blankSize = (await blank.screenshot({ fullPage: true })).length;
    expect(readFileSync(shot).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // The same viewport with nothing drawn: the page's text must make the PNG much larger.
    expect(statSync(shot).size).toBeGreaterThan(Math.max(blankSize * 4, 20_000));
    await context.close();
  });

  it("Allow sends the browser to the API's sign-in, and after it the client gets a code its verifier redeems", async () => {
    const { context, page, requests } = await newSession();
    const { url, verifier, state } = authorizationRequest();
    await page.goto(url);
    const toApi = page.waitForRequest((r) => r.url().startsWith(`${as.issuer}/auth?`));
    await page.getByRole('button', { name: 'Allow and sign in' }).click();
    // The consent form's answer redirected the browser to the API's sign-in URL, which sent it on
    // to another origin: nothing in the page's policy stops that second hop.
    const hop = (await toApi).redirectedFrom();
    expect(hop?.url()).toMatch(new RegExp(`^${signInHop.url}/login/oauth/authorize\\?`));
    expect(hop?.redirectedFrom()?.url()).toBe(`${serverUrl}/oauth/consent`);
    const asked = new URL((await toApi).url()).searchParams;
    expect(asked.get('client_id')).toBe(APP.clientId);
    expect(asked.get('redirect_uri')).toBe(`${serverUrl}/oauth/callback`);
    expect(asked.get('response_type')).toBe('code');
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The server's own PKCE and state towards the API, not the client's.
    expect(asked.get('code_challenge')).not.toBe(new URL(url).searchParams.get('code_challenge'));
    expect(asked.get('state')).toMatch(/.{16,}/);
    expect(asked.get('state')).not.toBe(state);
    expect(asked.get('scope')).toBe(API_SCOPES);

    // The API's sign-in page: the fixture's has no form but signs in whoever ?user= names, so the
    // user "submits" it by opening it again with their name (its cookies are in this browser).
    await page.waitForURL((u) => u.href.startsWith(`${as.issuer}/interaction/`));
    const signIn = new URL(page.url());
    signIn.searchParams.set('user', 'alice');
    await page.goto(signIn.href);
    await page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 15_000 });
    expect(await page.locator('body').innerText()).toBe('Back at the client');
    const [back] = arrivedWith(state);
    expect(arrivedWith(state)).toHaveLength(1);
    expect(back?.query.get('iss')).toBe(serverUrl);
    expect(back?.query.get('error')).toBeNull();
    const code = back?.query.get('code') ?? '';
    expect(code).not.toBe('');
    // Through the API's sign-in and the server's callback, in this browser.
    expect(requests.some((r) => r.url().startsWith(`${serverUrl}/oauth/callback?`))).toBe(true);

    const tokens = await fetch(`${serverUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    const body = (await tokens.json()) as Record<string, unknown>;
    expect(tokens.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), scope: 'mcp:read mcp:write' });
    await context.close();
  });

  it("Deny returns the browser to the client's redirect URI with access_denied and its state, and no sign-in", async () => {
    const { context, page, requests } = await newSession();
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    const { url, state } = authorizationRequest();
    await page.goto(url);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 10_000 }).catch(() => undefined);
    expect(errors, 'Chromium refused the redirect').toEqual([]);
    expect(page.url().startsWith(`${redirectUri}?`)).toBe(true);
    expect(await page.locator('body').innerText()).toBe('Back at the client');
    const arrived = arrivedWith(state);
    expect(arrived).toHaveLength(1);
    expect(arrived[0]?.query.get('error')).toBe('access_denied');
    expect(arrived[0]?.query.get('iss')).toBe(serverUrl);
    expect(arrived[0]?.query.get('code')).toBeNull();
    expect(requests.some((r) => r.url().startsWith(as.issuer))).toBe(false);
    await context.close();
  });

  it('another origin cannot frame the consent page (while it can frame a page that allows it)', async () => {
    const { context, page, requests } = await newSession();
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    const { url } = authorizationRequest();
    otherPage = `<iframe name="consent" src="${url.replace(/&/g, '&amp;')}"></iframe><iframe name="control" src="${client.url}/framed"></iframe>`;
    await page.goto(`${other.url}/frame`);
    const frame = (name: string) => {
      const found = page.frame({ name });
      if (found === null) throw new Error(`no frame ${name}`);
      return found;
    };
    // The control: a page without the headers does render in a frame of this origin.
    expect(frame('control').url()).toBe(`${client.url}/framed`);
    expect(await frame('control').locator('body').innerText()).toBe('Back at the client');
    // The consent page was fetched (the browser refuses the answer), then replaced by the error page.
    expect(requests.some((r) => r.url() === url)).toBe(true);
    expect(frame('consent').url()).toBe('chrome-error://chromewebdata/');
    expect(await frame('consent').locator('body').innerText()).not.toContain('Allow');
    expect(errors.join('\n')).toContain(`violates the following Content Security Policy directive: "frame-ancestors 'none'"`);
    await context.close();
  });

  it.each([
    ['another site (localhost): the SameSite cookie stays home', 'localhost', false],
    ['another origin of the same site (127.0.0.1, another port): the cookie goes, the Origin refuses', '127.0.0.1', true],
  ])('a form posted from %s is refused with 403; nothing reaches the API or the client', async (_label, host, cookieSent) => {
    const { context, page, requests } = await newSession();
    // The user has a real consent page open in this browser; the other page copies its values.
    const { url, state } = authorizationRequest();
    await page.goto(url);
    const field = (name: string) => page.locator(`input[name=${name}]`).inputValue();
    const [request, csrf] = await Promise.all([field('request'), field('csrf')]);
    expect(request).not.toBe('');
    otherPage = `<form method="post" action="${serverUrl}/oauth/consent">
<input name="request" value="${request}"><input name="csrf" value="${csrf}"><input name="decision" value="allow">
</form><script>document.forms[0].submit()</script>`;
    const attacker = await context.newPage();
    const origin = `http://${host}:${new URL(other.url).port}`;
    const answered = attacker.waitForResponse((r) => r.url() === `${serverUrl}/oauth/consent`);
    await attacker.goto(`${origin}/attack`);
    const response = await answered;
    expect(response.status()).toBe(403);
    const sent = await response.request().allHeaders();
    expect(sent.origin).toBe(origin);
    expect(/\bmcp_consent=/.test(sent.cookie ?? '')).toBe(cookieSent);
    await attacker.waitForLoadState();
    expect(await attacker.locator('h1').innerText()).toBe('Refused');
    expect(requests.some((r) => r.url().startsWith(as.issuer))).toBe(false);
    expect(arrivedWith(state)).toEqual([]);

    // The values were live: the user's own page still answers with them (here, Deny).
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 10_000 });
    expect(arrivedWith(state).map((r) => r.query.get('error'))).toEqual(['access_denied']);
    await context.close();
  });
});
