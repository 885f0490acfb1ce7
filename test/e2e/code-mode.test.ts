// Code mode (--tools code) on GitHub's 1,223 operations: two tools; search_api answers
// TypeScript declarations of `api`; execute runs the agent's program in the QuickJS sandbox,
// whose api calls reach the recording upstream as the tools' own calls would, and whose result
// alone comes back. Through the official SDK client over stdio and Streamable HTTP (both eras),
// and against the server's rules: read-only, toolsets, the call limit, and a program that never
// stops, with the server serving another client after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, startServer, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';

const GITHUB = GITHUB_SPEC;
let upstream: Upstream;
let dir: string;
let http: RunningServer;
const clients: Client[] = [];
const children = new Children();

/** Recorded-like answers: issues with labels, pull requests, and each pull request's files. */
function answer(path: string): string {
  if (path === '/repos/octo/hello/issues') {
    return JSON.stringify(
      [1, 2, 3, 4].map((n) => ({
        number: n,
        title: `issue ${n}`,
        state: 'open',
        labels: n % 2 === 0 ? [{ name: 'bug' }] : [{ name: 'docs' }],
        body: 'x'.repeat(2_000),
      })),
    );
  }
  if (path === '/repos/octo/hello/pulls') {
    return JSON.stringify([7, 8, 9].map((n) => ({ number: n, title: `pr ${n}`, merged_at: n === 8 ? null : '2026-11-01T00:00:00Z' })));
  }
  const files = /^\/repos\/octo\/hello\/pulls\/(\d+)\/files$/.exec(path);
  if (files) return JSON.stringify([{ filename: `src/file-${files[1]}.ts`, additions: 1, patch: 'y'.repeat(1_000) }]);
  return JSON.stringify({ path });
}

beforeAll(async () => {
  upstream = await startUpstream((req) => ({ body: answer(req.path) }));
  dir = generateProject(GITHUB, 'e2e-github-code', ['--tools', 'code']);
  await buildProject(dir);
  http = await startServer(dir, 'http', ['--base-url', upstream.url, '--code-time-ms', '1000']);
  children.track(http.process);
}, 300_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await children.stopAll();
  await upstream?.close();
});

async function client(kind: 'stdio' | 'http', options: { negotiate?: boolean; args?: string[] } = {}): Promise<Client> {
  const made =
    kind === 'stdio'
      ? await connect('stdio', dir, {
          args: ['--base-url', upstream.url, ...(options.args ?? [])],
          ...(options.negotiate ? { negotiate: true } : {}),
        })
      : await connect('http', http.url, options.negotiate ? { negotiate: true } : {});
  clients.push(made);
  return made;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const execute = (c: Client, code: string) => c.callTool({ name: 'execute', arguments: { code } });

const BUG_TITLES = `
const issues = await api["issues_list-for-repo"]({ owner: "octo", repo: "hello", state: "open" });
console.log("issues:", issues.length);
return issues.filter((i) => i.labels.some((l) => l.name === "bug")).map((i) => i.title);`;

const MERGED_FILES = `
const pulls = await api.pulls_list({ owner: "octo", repo: "hello", state: "closed" });
const merged = pulls.filter((p) => p.merged_at !== null);
const files = [];
for (const p of merged) {
  const changed = await api["pulls_list-files"]({ owner: "octo", repo: "hello", pull_number: p.number });
  files.push(...changed.map((f) => f.filename));
}
return files;`;

describe('GitHub in code mode', () => {
  it('lists two tools, and get_operation_status for its long-running operations, in a few KB', async () => {
    const c = await client('stdio');
    const list = await c.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(['search_api', 'execute', 'get_operation_status']);
    expect(JSON.stringify(list).length).toBeLessThan(3_584);
  });

  it('search_api answers TypeScript declarations of the operations found', async () => {
    const c = await client('stdio');
    const result = await c.callTool({ name: 'search_api', arguments: { query: 'list repository issues', limit: 5 } });
    const declared = text(result);
    expect(declared).toMatch(/^\/\/ api, as execute programs receive it\ninterface Api \{/);
    expect(declared).toMatch(/"issues_list-for-repo"\(args: \{ owner: string; repo: string;[^\n]*\}\): Promise<[^\n]+>;/);
    expect(declared).toMatch(/\(read-only; GET \/repos\/\{owner\}\/\{repo\}\/issues\)/);
    expect(Buffer.byteLength(declared)).toBeLessThan(12_500);
  });

  it.each([
    ['stdio', 'stdio', false],
    ['Streamable HTTP, 2025', 'http', false],
    ['Streamable HTTP, 2026-07-28', 'http', true],
  ] as const)(
    'over %s, one program makes several calls and only its result comes back',
    async (_label, kind, negotiate) => {
      const c = await client(kind, { negotiate });
      upstream.clear();
      const bugs = await execute(c, BUG_TITLES);
      expect(bugs.isError, text(bugs)).toBeFalsy();
      expect(bugs.structuredContent).toMatchObject({ result: ['issue 2', 'issue 4'], calls: 1, logs: 'issues: 4' });
      expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /repos/octo/hello/issues?state=open']);
      // the 8 KB of issue bodies stayed in the sandbox
      expect(Buffer.byteLength(text(bugs))).toBeLessThan(200);

      upstream.clear();
      const files = await execute(c, MERGED_FILES);
      expect(files.structuredContent).toMatchObject({ result: ['src/file-7.ts', 'src/file-9.ts'], calls: 3 });
      expect(upstream.requests.map((r) => r.url)).toEqual([
        '/repos/octo/hello/pulls?state=closed',
        '/repos/octo/hello/pulls/7/files',
        '/repos/octo/hello/pulls/9/files',
      ]);
    },
    60_000,
  );

  it("an api call's arguments are checked as the tool's are, and the program can catch the error", async () => {
    const c = await client('stdio');
    const result = await execute(
      c,
      'try { await api.repos_get({ owner: "octo" }); } catch (e) { return "caught: " + e.message; } return "not refused";',
    );
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/caught: .*repo/);
  });

  it('a write under --read-only and an operation outside --toolsets are not there', async () => {
    const c = await client('stdio', { args: ['--tools', 'code', '--read-only', '--toolsets', 'repos'] });
    const write = await execute(c, 'return await api.repos_delete({ owner: "o", repo: "r" });');
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/api.repos_delete is not an operation of this API/);
    const other = await execute(c, 'return await api.pulls_list({ owner: "o", repo: "r" });');
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/api.pulls_list is not an operation of this API/);
  });

  it('--code-max-calls stops a program at the limit', async () => {
    const c = await client('stdio', { args: ['--code-max-calls', '2'] });
    upstream.clear();
    const result = await execute(c, 'for (let i = 0; i < 5; i++) await api.repos_get({ owner: "o", repo: "r" + i }); return "done";');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/more than 2 api calls/);
    expect(upstream.requests).toHaveLength(2);
  });

  it('a program that never stops ends at the time limit, and other clients are served while it runs', async () => {
    const c = await client('http');
    const other = await client('http', { negotiate: true });
    const started = Date.now();
    const looping = execute(c, 'while (true) {}');
    // the loop runs in a worker thread: the server answers meanwhile
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = Date.now();
    expect((await execute(other, 'return 1 + 1;')).structuredContent).toMatchObject({ result: 2 });
    expect(Date.now() - during).toBeLessThan(800);
    const ended = await looping;
    expect(ended.isError).toBe(true);
    expect(text(ended)).toMatch(/time limit of 1000 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 30_000);

  it('a loop the engine checks too rarely is stopped from outside, and the next program runs', async () => {
    const c = await client('http');
    const started = Date.now();
    const slow = await execute(c, 'const s = "x".repeat(1 << 20); let n = 0; for (;;) n += s.indexOf("y");');
    expect(slow.isError).toBe(true);
    expect(text(slow)).toMatch(/time limit of 1000 ms/);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect((await execute(c, 'return "still here";')).structuredContent).toMatchObject({ result: 'still here' });
  }, 30_000);

  it('process, require and import() are not there', async () => {
    const c = await client('stdio');
    for (const code of ['return typeof process', 'return typeof require', 'return typeof setTimeout']) {
      expect((await execute(c, code)).structuredContent).toMatchObject({ result: 'undefined' });
    }
    const imported = await execute(c, 'return await import("node:fs");');
    expect(imported.isError).toBe(true);
  });
});
