// The browser harness (test/harness/browser.ts) against pages shaped like the coming OAuth consent
// page: a form a person submits, served with the headers that forbid framing it (clickjacking).
// What Chromium does with a refused frame, as observed: the iframe navigates to its own error
// page (chrome-error://chromewebdata/, "<host> refused to connect.") and the console says which
// header refused it; with both headers the CSP decides, as CSP Level 2 says it does.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserUnavailable, launchBrowser, screenshotPath } from '../harness/browser.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const UNAVAILABLE = browserUnavailable();
if (UNAVAILABLE) console.log(`browser-harness.test.ts: ${UNAVAILABLE}: the browser tests are skipped`);

const CSP = { 'content-security-policy': "frame-ancestors 'none'" };
const XFO = { 'x-frame-options': 'DENY' };
const PAGE_TEXT = 'Allow pets-app to read your pets?';
const FORM = `<!doctype html><title>Consent</title><h1>${PAGE_TEXT}</h1>
<form method="post" action="/consent"><label>Scope <input name="scope"></label><button>Allow</button></form>`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const html = (body: string, headers: Record<string, string> = {}) => ({ headers: { 'content-type': 'text/html', ...headers }, body });

let browser: Browser;
/** The consent page, at /consent; ?csp and ?xfo say which of the two headers it is served with. */
let site: Upstream;
/** Another origin (another port) framing the consent page, once per combination of headers. */
let framer: Upstream;
const FRAMED = ['csp&xfo', 'csp', 'xfo', 'none'] as const;

describe.skipIf(UNAVAILABLE !== undefined)(`a real Chromium${UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : ''}`, () => {
  beforeAll(async () => {
    site = await startUpstream((req) =>
      req.method === 'POST'
        ? html('<p>Recorded</p>')
        : html(FORM, { ...(req.query.has('csp') ? CSP : {}), ...(req.query.has('xfo') ? XFO : {}) }),
    );
    framer = await startUpstream(() => html(FRAMED.map((q) => `<iframe name="${q}" src="${site.url}/consent?${q}"></iframe>`).join('')));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await framer?.close();
  });

  it('fills and submits the form: the server receives the POST with the value typed; the screenshot is a real PNG of it', async () => {
    const page = await browser.newPage();
    await page.goto(`${site.url}/consent?csp&xfo`);
    const typed = 'read:pets write:pets & more';
    await page.fill('input[name=scope]', typed);

    const shot = screenshotPath('browser-harness-consent');
    rmSync(shot, { force: true });
    await page.screenshot({ path: shot });
    const blank = await browser.newPage();
    const blankSize = (await blank.screenshot()).length;
    expect(readFileSync(shot).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // The same viewport with nothing drawn: the page's text and form must make the PNG larger.
    expect(statSync(shot).size).toBeGreaterThan(blankSize);

    await page.click('button');
    await page.waitForSelector('text=Recorded');
    const post = site.requests.filter((r) => r.method === 'POST');
    expect(post).toHaveLength(1);
    expect(post[0]?.path).toBe('/consent');
    expect(post[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(post[0]?.body.toString()).get('scope')).toBe(typed);
    await page.close();
    await blank.close();
  });

  it('the page is not rendered in a frame of another origin: each header alone refuses it, and with both the CSP does', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    await page.goto(`${framer.url}/`);

    const frames = new Map(page.frames().map((f) => [f.name(), f]));
    const shown = async (name: string) => {
      const frame = frames.get(name);
      if (!frame) throw new Error(`no frame ${name}`);
      return { url: frame.url(), text: await frame.locator('body').innerText() };
    };
    // The control: without either header the same page does render in the frame.
    expect(await shown('none')).toEqual({ url: `${site.url}/consent?none`, text: expect.stringContaining(PAGE_TEXT) });
    for (const refused of ['csp&xfo', 'csp', 'xfo']) {
      // Fetched (the browser refuses the answer, not the request), then replaced by the error page.
      expect(site.requests.some((r) => r.url === `/consent?${refused}`)).toBe(true);
      expect(await shown(refused)).toEqual({ url: 'chrome-error://chromewebdata/', text: '127.0.0.1 refused to connect.' });
    }
    const origin = `'${site.url}/'`;
    expect(errors.map((m) => m.trim()).sort()).toEqual([
      `Framing ${origin} violates the following Content Security Policy directive: "frame-ancestors 'none'". The request has been blocked.`,
      `Framing ${origin} violates the following Content Security Policy directive: "frame-ancestors 'none'". The request has been blocked.`,
      `Refused to display ${origin} in a frame because it set 'X-Frame-Options' to 'deny'.`,
    ]);
    await page.close();
  });
});
