// MCP Apps views (io.modelcontextprotocol/ui) as a person sees them: a server generated from a
// GitHub-like spec, its answers recorded at a local upstream, its views rendered by a host page
// built on ext-apps' AppBridge in Debian's Chromium (playwright-core), the page's tool calls
// going to the server through the SDK client. A client without the extension gets what
// --apps off gives, byte for byte.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { browserUnavailable, launchBrowser, screenshotPath } from '../harness/browser.js';
import { startUpstream, type Recorded, type Upstream } from '../harness/upstream.js';

const SPEC = join(REPO, 'test/fixtures/apps-host/github-like.yaml');
const APPS = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const HOSTILE_TITLE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

const issue = (n: number, title: string, extra: Record<string, unknown> = {}) => ({
  url: `https://api.example.test/repos/octo/hello/issues/${n}`,
  title,
  number: n,
  state: n % 2 ? 'open' : 'closed',
  html_url: `https://github.example.test/octo/hello/issues/${n}`,
  created_at: `2026-0${n}-1${n}T08:30:00Z`,
  user: { login: 'mona', html_url: 'https://github.example.test/mona' },
  labels: [{ name: 'bug', color: 'd73a4a' }],
  ...extra,
});

/** Page 1: three issues, one hostile; page 2: one more. GitHub's Link header says where page 2 is. */
function answer(upstream: () => string, req: Recorded) {
  if (req.path === '/repos/octo/hello/issues' && req.query.get('page') === '2') return { body: JSON.stringify([issue(4, 'Fourth')]) };
  if (req.path === '/repos/octo/hello/issues') {
    const next = `<${upstream()}/repos/octo/hello/issues?per_page=3&page=2>; rel="next"`;
    const rows = [issue(2, 'Second'), issue(3, HOSTILE_TITLE, { html_url: 'javascript:window.pwned=3' }), issue(1, 'First')];
    return { headers: { 'content-type': 'application/json', link: next }, body: JSON.stringify(rows) };
  }
  if (req.path === '/repos/octo/hello/issues/1') return { body: JSON.stringify(issue(1, 'First')) };
  return { status: 404, body: '{"message":"Not Found"}' };
}

/** What the host page (test/fixtures/apps-host/host.ts) puts on its window. */
interface HostWindow {
  showView(shown: Record<string, unknown>): Promise<void>;
  openedLinks: string[];
}

let upstream: Upstream;
let dir: string;

beforeAll(async () => {
  upstream = await startUpstream((req) => answer(() => upstream.url, req));
  dir = generateProject(SPEC, 'e2e-apps');
  await buildProject(dir);
}, 180_000);
afterAll(async () => {
  await upstream?.close();
});

const serve = (extra: string[] = [], extensions?: typeof APPS) =>
  connect('stdio', dir, { args: ['--base-url', upstream.url, ...extra], ...(extensions ? { extensions } : {}) });
const LIST = { name: 'listIssues', arguments: { owner: 'octo', repo: 'hello', per_page: 3 } };

describe('a client without the extension', () => {
  it('gets byte-identical tools/list and tools/call results to --apps off', async () => {
    const [plain, off] = await Promise.all([serve(), serve(['--apps', 'off'])]);
    try {
      const lists = await Promise.all([plain.listTools(), off.listTools()]);
      expect(JSON.stringify(lists[0])).toBe(JSON.stringify(lists[1]));
      expect(JSON.stringify(lists[0])).not.toContain('ui://');
      const calls = await Promise.all([plain.callTool(LIST), off.callTool(LIST)]);
      expect(JSON.stringify(calls[0])).toBe(JSON.stringify(calls[1]));
      const resources = await Promise.all([plain.listResources(), off.listResources()]);
      expect(JSON.stringify(resources[0])).toBe(JSON.stringify(resources[1]));
    } finally {
      await Promise.all([plain.close(), off.close()]);
    }
  });
});

describe('a client that declares io.modelcontextprotocol/ui', () => {
  let client: Client;
  beforeAll(async () => {
    client = await serve([], APPS);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('sees a view on each tool and reads the views as ui:// resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'listIssues')?._meta).toMatchObject({ ui: { resourceUri: 'ui://mcp-gen/table' } });
    expect(tools.find((t) => t.name === 'getIssue')?._meta).toMatchObject({ ui: { resourceUri: 'ui://mcp-gen/card' } });
    const { resources } = await client.listResources();
    expect(resources.filter((r) => r.uri.startsWith('ui://')).map((r) => [r.uri, r.mimeType])).toEqual([
      ['ui://mcp-gen/table', 'text/html;profile=mcp-app'],
      ['ui://mcp-gen/card', 'text/html;profile=mcp-app'],
      ['ui://mcp-gen/image', 'text/html;profile=mcp-app'],
    ]);
    const { contents } = await client.readResource({ uri: 'ui://mcp-gen/table' });
    expect(contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app', _meta: { ui: { csp: { connectDomains: [] } } } });
    const page = (contents[0] as { text: string }).text;
    expect(page).toContain("connect-src 'none'");
    // The size budget (runtime/apps/pages.ts): ext-apps' App with its dependencies is most of it.
    expect(Buffer.byteLength(page)).toBeLessThanOrEqual(768 * 1024);
  });

  it('sees no view on an operation the config file marks apps: false', async () => {
    const marked = generateProject(SPEC, 'e2e-apps-no-card', ['--config', join(REPO, 'test/fixtures/apps-host/no-card.config.yaml')]);
    await buildProject(marked);
    const other = await connect('stdio', marked, { args: ['--base-url', upstream.url], extensions: APPS });
    try {
      const { tools } = await other.listTools();
      expect(tools.find((t) => t.name === 'getIssue')?._meta).toBeUndefined();
      expect(tools.find((t) => t.name === 'listIssues')?._meta).toMatchObject({ ui: { resourceUri: 'ui://mcp-gen/table' } });
    } finally {
      await other.close();
    }
  }, 120_000);

  it("in toolsets mode, sees the view on a tool once its toolset is enabled, and the call's columns", async () => {
    const toolsets = await serve(['--tools', 'toolsets'], APPS);
    try {
      const listed = await toolsets.callTool({ name: 'list_toolsets', arguments: {} });
      const name = /"name":\s*"([^"]+)"/.exec(JSON.stringify(listed.structuredContent ?? listed.content))?.[1] as string;
      await toolsets.callTool({ name: 'enable_toolset', arguments: { toolset: name } });
      const { tools } = await toolsets.listTools();
      expect(tools.find((t) => t.name === 'listIssues')?._meta).toMatchObject({ ui: { resourceUri: 'ui://mcp-gen/table' } });
      expect(tools.find((t) => t.name === 'enable_toolset')?._meta).toBeUndefined();
      const result = await toolsets.callTool(LIST);
      expect(result._meta?.['mcp-gen/view']).toMatchObject({
        columns: expect.arrayContaining([{ key: 'title', title: 'Title', description: expect.any(String) }]),
      });
    } finally {
      await toolsets.close();
    }
  });

  it('with --apps off, sees no view', async () => {
    const off = await serve(['--apps', 'off'], APPS);
    try {
      expect(JSON.stringify(await off.listTools())).not.toContain('ui://');
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(browserUnavailable())('the views in a host page, in Chromium', () => {
  let client: Client;
  /** The server the page's tool calls go to: the direct one, or the dynamic one. */
  let active: Client;
  let browser: Browser;
  let page: Page;
  let tools: Tool[];

  beforeAll(async () => {
    client = active = await serve([], APPS);
    tools = (await client.listTools()).tools;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 800, height: 460 } });
    await page.exposeFunction('mcpCallTool', (name: string, args: Record<string, unknown>) => active.callTool({ name, arguments: args }));
    await page.setContent(`<!doctype html><html><body><script>${await hostScript()}</script></body></html>`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await client?.close();
  });

  /** Renders the tool's view of a call in the host page; the view's frame. */
  async function show(name: string, args: Record<string, unknown>, theme: 'light' | 'dark' = 'light', listed = tools): Promise<Frame> {
    const tool = listed.find((t) => t.name === name) as Tool;
    const uri = (tool._meta as { ui: { resourceUri: string } }).ui.resourceUri;
    const html = ((await active.readResource({ uri })).contents[0] as { text: string }).text;
    const result = (await active.callTool({ name, arguments: args })) as CallToolResult;
    const shown = JSON.parse(JSON.stringify({ html, tool, args, result, theme })) as Record<string, unknown>;
    await page.evaluate((view) => (globalThis as unknown as HostWindow).showView(view), shown);
    const frame = page.frames().find((f) => f !== page.mainFrame()) as Frame;
    await frame.waitForSelector('#root > *');
    return frame;
  }

  it('draws the list as a table: the rows, a known cell, headers from the schema', async () => {
    const frame = await show(LIST.name, LIST.arguments);
    await expect.poll(() => frame.locator('tbody tr').count()).toBe(3);
    expect(await frame.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      '2',
      'Second',
      'closed',
      '12 Feb 2026, 08:30 UTC',
      'https://api.example.test/repos/octo/hello/issues/2',
      'https://github.example.test/octo/hello/issues/2',
    ]);
    expect(await frame.locator('th').allTextContents()).toEqual([
      'Number <script>window.pwned=1</script>',
      'Title',
      'State',
      'Opened',
      'url',
      'Link',
    ]);
    expect(await frame.locator('th', { hasText: 'Title' }).getAttribute('title')).toBe(
      "The issue's title <img src=x onerror=window.pwned=1>",
    );
    await page.screenshot({ path: screenshot('apps-table') });
  });

  it('sorts by a column, ascending then descending', async () => {
    const frame = await show(LIST.name, LIST.arguments);
    const numbers = () => frame.locator('tbody tr td:first-child').allTextContents();
    await frame.locator('th').first().click();
    expect(await numbers()).toEqual(['1', '2', '3']);
    await frame.locator('th').first().click();
    expect(await numbers()).toEqual(['3', '2', '1']);
  });

  it("asks for the next page through the host: the Link header's page, with the call's own arguments", async () => {
    const frame = await show(LIST.name, LIST.arguments);
    upstream.clear();
    await frame.locator('button.next').click();
    await expect.poll(() => frame.locator('tbody tr').count()).toBe(1);
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /repos/octo/hello/issues?per_page=3&page=2']);
    expect(await frame.locator('tbody td').nth(1).textContent()).toBe('Fourth');
    expect(await frame.locator('button.next').isHidden()).toBe(true);
  });

  it("shows invoke_operation's answer in the operation's table, whose next page goes through invoke_operation", async () => {
    const dynamic = await serve(['--tools', 'dynamic'], APPS);
    active = dynamic;
    try {
      const listed = (await dynamic.listTools()).tools;
      const frame = await show('invoke_operation', { name: LIST.name, arguments: LIST.arguments }, 'light', listed);
      await expect.poll(() => frame.locator('tbody tr').count()).toBe(3);
      upstream.clear();
      await frame.locator('button.next').click();
      await expect.poll(() => frame.locator('tbody tr').count()).toBe(1);
      expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /repos/octo/hello/issues?per_page=3&page=2']);
    } finally {
      active = client;
      await dynamic.close();
    }
  });

  it("shows a code-mode program's list of objects as a table", async () => {
    const code = await serve(['--tools', 'code'], APPS);
    active = code;
    try {
      const listed = (await code.listTools()).tools;
      const program =
        'const issues = await api.listIssues({ owner: "octo", repo: "hello" }); return issues.map((i) => ({ number: i.number, who: i.user.login }));';
      const frame = await show('execute', { code: program }, 'light', listed);
      await expect.poll(() => frame.locator('tbody tr').count()).toBe(3);
      expect(await frame.locator('th').allTextContents()).toEqual(['number', 'who']);
      expect(await frame.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['2', 'mona']);
    } finally {
      active = client;
      await code.close();
    }
  });

  it('draws an issue as a card: nested data collapsible, a link the host opens', async () => {
    const frame = await show('getIssue', { owner: 'octo', repo: 'hello', issue_number: 1 }, 'dark');
    expect(await frame.locator('dt').allTextContents()).toEqual(expect.arrayContaining(['title', 'number', 'created_at']));
    const user = frame.locator('details', { has: frame.locator('summary', { hasText: 'user' }) });
    expect(await user.getAttribute('open')).toBeNull();
    await user.locator('summary').click();
    expect(await user.locator('dd').first().textContent()).toBe('mona');
    await frame.locator('a', { hasText: 'https://github.example.test/octo/hello/issues/1' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as HostWindow).openedLinks))
      .toContain('https://github.example.test/octo/hello/issues/1');
    await page.screenshot({ path: screenshot('apps-card') });
  });

  it('draws a failed call as an error panel', async () => {
    const frame = await show('getIssue', { owner: 'octo', repo: 'hello', issue_number: 9 });
    expect(await frame.locator('[role=alert] h2').textContent()).toBe('The call failed');
    expect(await frame.locator('[role=alert] pre').textContent()).toContain('404');
    await page.screenshot({ path: screenshot('apps-error') });
  });

  it('renders hostile strings from the spec and the answer as inert text', async () => {
    const frame = await show(LIST.name, LIST.arguments);
    await expect.poll(() => frame.locator('tbody tr').count()).toBe(3);
    expect(await frame.locator('td', { hasText: '<script>' }).textContent()).toBe(HOSTILE_TITLE);
    expect(await frame.locator('script').count()).toBe(1);
    expect(await frame.locator('img').count()).toBe(0);
    expect(await frame.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await frame.locator('td', { hasText: 'javascript:' }).textContent()).toBe('javascript:window.pwned=3');
    expect(await frame.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
  });

  it('cannot reach any origin: its fetch is refused, and nothing arrives upstream', async () => {
    const frame = await show(LIST.name, LIST.arguments);
    upstream.clear();
    const outcome = await frame.evaluate(
      (url) =>
        fetch(url).then(
          () => 'reached',
          (e: Error) => `refused: ${e.name}`,
        ),
      `${upstream.url}/x`,
    );
    expect(outcome).toBe('refused: TypeError');
    expect(upstream.requests).toEqual([]);
  });
});

/** The host page's script: test/fixtures/apps-host/host.ts with ext-apps' AppBridge, bundled. */
async function hostScript(): Promise<string> {
  const bundled = await build({
    entryPoints: [join(REPO, 'test/fixtures/apps-host/host.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  return (bundled.outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
}

/** docs/<name>.png when UPDATE_SCREENSHOTS=1 (the pictures docs/apps.md shows), else test-output/screenshots/. */
function screenshot(name: string): string {
  const path = screenshotPath(name);
  return process.env.UPDATE_SCREENSHOTS === '1' ? join(REPO, 'docs', `${name}.png`) : path;
}
