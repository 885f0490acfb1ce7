// Generated servers on the platforms' own runtimes (issue #40): the Petstore project generated
// with --target cloudflare,deno, served by workerd through `wrangler dev` and by `deno task
// start`, each driven by the official SDK client over Streamable HTTP in both protocol eras,
// with tool calls reaching a recording upstream with the right request and credential; and
// GitHub's 1,223 operations (dynamic mode) on both; the OAuth resource server against a real
// OpenID provider (oidc-provider) on both; and a long-running operation, followed on both, offered
// as a task only where the platform goes on working after an answer (Deno); code mode on Deno.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, connect, generateProject, REPO } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { corporaMissing, corporaTitle, GITHUB_SPEC } from '../../harness/corpora.js';
import { startUpstream, type Answer, type Upstream } from '../harness/upstream.js';
import { ownNodeModules, startDeno, startTogether, startWrangler, type PlatformServer } from '../harness/platforms.js';
import { startAuthorizationServer, type AuthorizationServer } from '../harness/authorization-server.js';
import { JOBS_SPEC } from '../harness/specs.js';

const TOKEN = 'platform-token-1';
const API_KEY = 'key-platforms';
const AUTH = { authorization: `Bearer ${TOKEN}` };
/** A web page allowed to call the server (MCP_CORS_ORIGINS). */
const APP_ORIGIN = 'http://app.example';

// Whether strings are evaluated on the platform: workerd forbids it at request time.
const EVAL_PROBE = `import type { Hooks } from '../lib/runtime/hooks-api.js';
import type { ToolArguments } from './tool-types.js';

export const hooks: Hooks<ToolArguments> = {
  beforeRequest(request) {
    let evaluated = 'ran';
    try {
      new Function('return 1')();
    } catch {
      evaluated = 'refused';
    }
    request.headers['x-eval'] = evaluated;
    return request;
  },
};
`;

let dir: string;
let githubDir: string | undefined;
let upstream: Upstream;
let toolCount: number;
const servers: Partial<Record<'cloudflare' | 'deno', PlatformServer>> = {};
const github: Partial<Record<'cloudflare' | 'deno', PlatformServer>> = {};
const guarded: Partial<Record<'cloudflare' | 'deno', PlatformServer>> = {};
const jobs: Partial<Record<'cloudflare' | 'deno', PlatformServer>> = {};
let codeDir: string | undefined;
let codeOnDeno: PlatformServer | undefined;
let jobsDir: string | undefined;
let as: AuthorizationServer | undefined;

beforeAll(async () => {
  upstream = await startUpstream((req): Answer => {
    const id = /^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1];
    if (req.method === 'GET' && id) return { body: JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }) };
    if (req.method === 'GET' && req.path.startsWith('/repos/')) return { body: JSON.stringify({ id: 1, full_name: req.path.slice(7) }) };
    if (req.method === 'POST' && req.path === '/jobs')
      return { status: 202, headers: { 'operation-location': `${upstream.url}/status/j1`, 'retry-after': '0' } };
    if (req.method === 'GET' && req.path === '/status/j1') return { body: JSON.stringify({ status: 'Succeeded', result: { rows: 42 } }) };
    if (req.method === 'GET' && req.path === '/events') return { headers: { 'content-type': 'text/event-stream' }, stream: events };
    return { status: 404, body: JSON.stringify({ code: 404, message: `unexpected ${req.method} ${req.path}` }) };
  });
  // Outside this repository: \`deno task\` would take the repository's node_modules/.bin/deno (the npm
  // package's binary) for a script of a package and fail to run it.
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, join(tmpdir(), 'mcp-gen-e2e-platforms'), [
    '--target',
    'node,cloudflare,deno',
  ]);
  writeFileSync(join(dir, 'src/hooks.ts'), EVAL_PROBE);
  toolCount = (JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as { tools: unknown[] }).tools.length;
  await buildProject(dir);
  const variables = [
    `API_BASE_URL=${upstream.url}/v2`,
    `SWAGGER_PETSTORE_API_KEY=${API_KEY}`,
    `MCP_AUTH_TOKEN=${TOKEN}`,
    `MCP_CORS_ORIGINS=${APP_ORIGIN}`,
    'LOG_LEVEL=warn',
  ];
  writeFileSync(join(dir, '.dev.vars'), `${variables.join('\n')}\n`);
  writeFileSync(join(dir, '.env'), `${variables.join('\n')}\n`);
  [servers.cloudflare, servers.deno] = await startTogether([startWrangler(dir, await freePort()), startDeno(dir, await freePort())]);
  await Promise.all([startOAuth(), startJobs(), startCodeMode()]);
  if (corporaMissing === undefined) await startGithub();
}, 300_000);

/** The Petstore project again, as an OAuth resource server of a real authorization server, on each platform. */
async function startOAuth(): Promise<void> {
  as = await startAuthorizationServer({ format: 'jwt', resources: {} });
  const [cloudflarePort, denoPort] = [await freePort(), await freePort()];
  const settings = (port: number) => ({
    MCP_AUTH_TOKEN: '',
    MCP_OAUTH_ISSUER: as?.issuer ?? '',
    MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
  });
  for (const port of [cloudflarePort, denoPort]) as.addResource(`http://127.0.0.1:${port}/mcp`, ['mcp:read', 'mcp:write']);
  [guarded.cloudflare, guarded.deno] = await startTogether([
    startWrangler(dir, cloudflarePort, settings(cloudflarePort)),
    startDeno(dir, denoPort, settings(denoPort)),
  ]);
}

/** The Petstore project in code mode, on Deno (its run on workerd: platforms-code-mode.test.ts). */
async function startCodeMode(): Promise<void> {
  codeDir = generateProject(`${REPO}samples/petstore/openapi.json`, join(tmpdir(), 'mcp-gen-e2e-platforms-code'), [
    '--target',
    'deno',
    '--tools',
    'code',
  ]);
  await buildProject(codeDir);
  ownNodeModules(codeDir);
  writeFileSync(join(codeDir, '.env'), `API_BASE_URL=${upstream.url}/v2\nSWAGGER_PETSTORE_API_KEY=${API_KEY}\nLOG_LEVEL=warn\n`);
  codeOnDeno = await startDeno(codeDir, await freePort());
}

/** Five events a tenth of a second apart, then [DONE], the connection left open after it. */
async function* events(): AsyncGenerator<string> {
  for (let n = 1; n <= 5; n++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    yield `data: ${JSON.stringify({ n, text: `chunk ${n}` })}\n\n`;
  }
  yield 'data: [DONE]\n\n';
  await new Promise((resolve) => setTimeout(resolve, 20_000));
}

/** An API whose one operation answers 202 and an Operation-Location to follow, and one that streams events. */
async function startJobs(): Promise<void> {
  jobsDir = join(tmpdir(), 'mcp-gen-e2e-platforms-jobs');
  const spec = join(tmpdir(), 'mcp-gen-e2e-platforms-jobs.json');
  const streaming = {
    get: { operationId: 'followEvents', responses: { '200': { description: 'events', content: { 'text/event-stream': {} } } } },
  };
  writeFileSync(spec, JSON.stringify({ ...JOBS_SPEC, paths: { ...JOBS_SPEC.paths, '/events': streaming } }));
  generateProject(spec, jobsDir, ['--target', 'cloudflare,deno']);
  rmSync(spec, { force: true });
  await buildProject(jobsDir);
  for (const file of ['.dev.vars', '.env']) writeFileSync(join(jobsDir, file), `API_BASE_URL=${upstream.url}\nLOG_LEVEL=warn\n`);
  [jobs.cloudflare, jobs.deno] = await startTogether([startWrangler(jobsDir, await freePort()), startDeno(jobsDir, await freePort())]);
}

/** GitHub's spec (1,223 operations) generated in dynamic mode for both platforms, served against the same upstream. */
async function startGithub(): Promise<void> {
  githubDir = generateProject(GITHUB_SPEC, join(tmpdir(), 'mcp-gen-e2e-platforms-github'), [
    '--target',
    'cloudflare,deno',
    '--tools',
    'dynamic',
  ]);
  await buildProject(githubDir);
  for (const file of ['.dev.vars', '.env']) writeFileSync(join(githubDir, file), `API_BASE_URL=${upstream.url}\nLOG_LEVEL=warn\n`);
  [github.cloudflare, github.deno] = await startTogether([
    startWrangler(githubDir, await freePort()),
    startDeno(githubDir, await freePort()),
  ]);
}

afterAll(async () => {
  const all = [...[servers, github, guarded, jobs].flatMap((set) => [set.cloudflare, set.deno]), codeOnDeno];
  await Promise.all(all.map((server) => server?.stop()));
  await as?.close();
  await upstream?.close();
  for (const folder of [dir, githubDir, jobsDir, codeDir]) if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

describe.each(['cloudflare', 'deno'] as const)('on %s', (platform) => {
  const server = () => servers[platform] as PlatformServer;

  it.each([
    ['2025-11-25', false],
    ['2026-07-28', true],
  ])('the SDK client (%s) lists the tools and a call reaches the API with its credential', async (_era, negotiate) => {
    const client = await connect('http', server().url, { negotiate, headers: AUTH });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('getPetById');
      expect(tools).toHaveLength(toolCount);
      upstream.clear();
      const id = negotiate ? 26 : 25;
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: id } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ id, name: `pet-${id}`, photoUrls: [] });
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]?.path).toBe(`/v2/pet/${id}`);
      expect(upstream.requests[0]?.headers.api_key).toBe(API_KEY);
    } finally {
      await client.close();
    }
  });

  it('checks arguments before any request, as on Node', async () => {
    const client = await connect('http', server().url, { headers: AUTH });
    try {
      upstream.clear();
      const result = await client.callTool({ name: 'getPetById', arguments: { petId: 'not-a-number' } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('petId');
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('serves the documentation resource and the prompts', async () => {
    const client = await connect('http', server().url, { headers: AUTH });
    try {
      expect((await client.listResources()).resources.length).toBeGreaterThan(0);
      expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('lets a listed web page call it (CORS), and no other', async () => {
    const preflight = await fetch(`${server().url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = {
      ...AUTH,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    const allowed = await fetch(`${server().url}/mcp`, { method: 'POST', headers: { ...headers, origin: APP_ORIGIN }, body: ping });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const other = await fetch(`${server().url}/mcp`, {
      method: 'POST',
      headers: { ...headers, origin: 'http://evil.example' },
      body: ping,
    });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  // Workers keep 2025-era sessions in Durable Objects (platforms-sessions.test.ts): a stream needs one.
  it('refuses a stream without a session in words: no sessions on Deno, a session id needed on Workers', async () => {
    const stream = await fetch(`${server().url}/mcp`, {
      headers: { ...AUTH, accept: 'text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    const refusal = { deno: [405, 'stateless (as with --stateless)'], cloudflare: [400, 'needs the Mcp-Session-Id header'] } as const;
    expect(stream.status).toBe(refusal[platform][0]);
    if (platform === 'deno') expect(stream.headers.get('allow')).toBe('POST');
    expect(await stream.text()).toContain(refusal[platform][1]);
  });

  it('refuses a request without the token, and one naming another host', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect((await post(`${server().url}/mcp`, initialize, {})).status).toBe(401);
    const rebound = await post(`${server().url}/mcp`, initialize, { ...AUTH, host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('MCP_ALLOWED_HOSTS');
  });
});

describe.each(['cloudflare', 'deno'] as const)(corporaTitle("GitHub's 1,223 operations on %s"), (platform) => {
  it.skipIf(corporaMissing !== undefined)('finds an operation and calls it, in both eras', async () => {
    for (const negotiate of [false, true]) {
      const client = await connect('http', (github[platform] as PlatformServer).url, { negotiate });
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('invoke_operation');
        const found = await client.callTool({ name: 'search_operations', arguments: { query: 'get a repository' } });
        expect(JSON.stringify(found.content)).toContain('repos_get');
        upstream.clear();
        const repo = negotiate ? 'modern' : 'legacy';
        const result = await client.callTool({
          name: 'invoke_operation',
          arguments: { name: 'repos_get', arguments: { owner: 'octo', repo } },
        });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /repos/octo/${repo}`]);
      } finally {
        await client.close();
      }
    }
  });
});

describe.each(['cloudflare', 'deno'] as const)('OAuth resource server on %s', (platform) => {
  const url = () => (guarded[platform] as PlatformServer).url;

  it('answers 401 with where to sign in, and publishes its protected-resource metadata', async () => {
    const refused = await fetch(`${url()}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${url()}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = (await (await fetch(`${url()}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(metadata.resource).toBe(`${url()}/mcp`);
    expect(metadata.authorization_servers).toEqual([as?.issuer]);
  });

  it('serves a token issued for it, in both eras, and refuses a call its scopes do not allow', async () => {
    for (const negotiate of [false, true]) {
      const reader = await (as as AuthorizationServer).issueToken({ user: 'alice', scopes: ['mcp:read'], resource: `${url()}/mcp` });
      const client = await connect('http', url(), { negotiate, headers: { authorization: `Bearer ${reader}` } });
      try {
        upstream.clear();
        const read = await client.callTool({ name: 'getPetById', arguments: { petId: 9 } });
        expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
        expect(upstream.requests.map((r) => r.path)).toEqual(['/v2/pet/9']);
        await expect(client.callTool({ name: 'deletePet', arguments: { petId: 9 } })).rejects.toThrow(/403|insufficient.scope/i);
        expect(upstream.requests).toHaveLength(1);
      } finally {
        await client.close();
      }
    }
  });

  it('refuses a token issued for another resource', async () => {
    const other = await (as as AuthorizationServer).issueToken({ user: 'alice', scopes: ['mcp:read'], resource: `${url()}/mcp` });
    const elsewhere = platform === 'cloudflare' ? guarded.deno : guarded.cloudflare;
    const refused = await fetch(`${(elsewhere as PlatformServer).url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${other}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
  });
});

describe.each(['cloudflare', 'deno'] as const)('a long-running operation on %s', (platform) => {
  it('is followed to its result within the call; offered as a task only on Deno', async () => {
    const client = await connect('http', (jobs[platform] as PlatformServer).url);
    try {
      const { tools } = await client.listTools();
      const startJob = tools.find((t) => t.name === 'startJob');
      const tasks = platform === 'deno';
      expect(startJob?.execution?.taskSupport).toBe(tasks ? 'optional' : undefined);
      expect(client.getServerCapabilities()?.tasks !== undefined).toBe(tasks);
      const result = await client.callTool({ name: 'startJob', arguments: {} });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');
      expect(JSON.parse(text)).toEqual({ status: 'Succeeded', result: { rows: 42 } });
    } finally {
      await client.close();
    }
  });
});

describe.each(['cloudflare', 'deno'] as const)('a streamed answer on %s', (platform) => {
  it('is read item by item through the web core: progress while it comes, the items as the result, ended by [DONE]', async () => {
    const client = await connect('http', (jobs[platform] as PlatformServer).url, { negotiate: true });
    try {
      const progress: number[] = [];
      const started = Date.now();
      const result = await client.callTool(
        { name: 'followEvents', arguments: {} },
        { onprogress: (p) => void progress.push(p.progress), timeout: 30_000 },
      );
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(Date.now() - started).toBeLessThan(10_000);
      const structured = result.structuredContent as { items: { data: { n: number } }[]; ended: string };
      expect(structured.ended).toBe('terminal');
      expect(structured.items.map((item) => item.data.n)).toEqual([1, 2, 3, 4, 5]);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress[0]).toBe(1);
    } finally {
      await client.close();
    }
  });
});

it('code mode on Deno: a program makes two calls in the sandbox, each reaching the API with the credential', async () => {
  const client = await connect('http', (codeOnDeno as PlatformServer).url);
  try {
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['execute', 'search_api']);
    upstream.clear();
    const code = 'const a = await api.getPetById({ petId: 4 }); const b = await api.getPetById({ petId: 5 }); return [a.name, b.name];';
    const result = await client.callTool({ name: 'execute', arguments: { code } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: ['pet-4', 'pet-5'], calls: 2 });
    expect(upstream.requests.map((r) => [r.path, r.headers.api_key])).toEqual([
      ['/v2/pet/4', API_KEY],
      ['/v2/pet/5', API_KEY],
    ]);
  } finally {
    await client.close();
  }
});

it('workerd evaluates no string at request time: a hook that tries is refused there, and runs on Deno', async () => {
  for (const platform of ['cloudflare', 'deno'] as const) {
    const client = await connect('http', (servers[platform] as PlatformServer).url, { headers: AUTH });
    try {
      upstream.clear();
      await client.callTool({ name: 'getPetById', arguments: { petId: 3 } });
      expect(upstream.requests[0]?.headers['x-eval']).toBe(platform === 'cloudflare' ? 'refused' : 'ran');
    } finally {
      await client.close();
    }
  }
});

/** A raw POST with any Host header (fetch will not send one of its own choosing). */
function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
