// Long-running operations through the official SDK v2 client, over stdio and Streamable HTTP
// (2025-11-25 sessions and 2026-07-28 stateless requests), against a real local upstream that
// answers 202 and finishes after a number of status checks it counts: a status monitor
// (Operation-Location, with Retry-After), a 202 polled at its Location, a Google-style
// Operation; progress notifications while the server polls; a handle past the wait, which
// get_operation_status takes; a status URL on another origin, which gets no credentials; and
// the call as a task for a client that asks, through the ext-tasks client: 2025-11-25 Tasks
// over stdio and a session, 2026-07-28's tasks extension over stateless Streamable HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome, toolDeclarationFromMcpTool } from '@modelcontextprotocol/ext-tasks/client';
import { buildProject, connect, generateProject, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';
import { rawDispatch } from '../harness/task-requests.js';

const KEY = 'k-long-running-secret';
const SPEC = `openapi: 3.0.3
info: { title: Jobs, version: '1.0' }
servers: [{ url: 'https://jobs.example.com' }]
security: [{ key: [] }]
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Api-Key }
  schemas:
    Operation:
      type: object
      properties: { name: { type: string }, done: { type: boolean }, error: { type: object }, response: { type: object } }
paths:
  /jobs:
    post:
      operationId: startJob
      summary: Start a job
      parameters: [{ name: tag, in: query, schema: { type: string } }]
      responses:
        '202': { description: accepted, headers: { Operation-Location: { schema: { type: string } } } }
  /exports:
    post:
      operationId: startExport
      summary: Start an export
      responses:
        '202': { description: accepted, headers: { Location: { schema: { type: string } } } }
  /v1/projects/{project}/builds:
    post:
      operationId: createBuild
      summary: Start a build
      parameters: [{ name: project, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: the operation, content: { application/json: { schema: { $ref: '#/components/schemas/Operation' } } } }
  /elsewhere:
    post:
      operationId: startElsewhere
      summary: Start a job whose status is on another origin
      responses:
        '202': { description: accepted }
`;

let upstream: Upstream;
let foreign: Upstream;
let dir: string;
let http: RunningServer;
let shortWait: RunningServer;
let env: Record<string, string>;
const clients: Client[] = [];
const children = new Children();

/** Operations the upstream runs: status checks left before each finishes (undefined: until `finish`). */
const left = new Map<string, number | undefined>();
/** When each status check arrived, by operation. */
const checks = new Map<string, number[]>();
let nextId = 0;

function newOperation(polls: number | undefined): string {
  const id = `op${++nextId}`;
  left.set(id, polls);
  checks.set(id, []);
  return id;
}

/** One status check of `id`: true when the operation is done by it. */
function check(id: string): boolean {
  checks.get(id)?.push(Date.now());
  const remaining = left.get(id);
  if (remaining === undefined) return false;
  left.set(id, remaining - 1);
  return remaining <= 1;
}

function respond(req: Recorded): Answer {
  const base = upstream.url;
  if (req.method === 'POST' && req.path === '/jobs') {
    const id = newOperation(3);
    return { status: 202, headers: { 'operation-location': `${base}/status/${id}`, 'retry-after': '0' }, body: JSON.stringify({ id }) };
  }
  if (req.method === 'POST' && req.path === '/slow') {
    const id = newOperation(undefined);
    return { status: 202, headers: { 'operation-location': `${base}/status/${id}`, 'retry-after': '0' } };
  }
  const status = /^\/status\/(op\d+)$/.exec(req.path)?.[1];
  if (status !== undefined) {
    if (check(status)) return { body: JSON.stringify({ status: 'Succeeded', result: { id: status, rows: 42 } }) };
    return { headers: { 'retry-after': '1' }, body: JSON.stringify({ status: 'Running' }) };
  }
  if (req.method === 'POST' && req.path === '/exports') {
    const id = newOperation(2);
    return { status: 202, headers: { location: `/exports/${id}`, 'retry-after': '0' } };
  }
  const exported = /^\/exports\/(op\d+)$/.exec(req.path)?.[1];
  if (exported !== undefined) {
    if (check(exported)) return { body: JSON.stringify({ export: exported, url: 'https://files.example.com/e.csv' }) };
    return { status: 202, headers: { 'retry-after': '0' } };
  }
  if (req.method === 'POST' && req.path === '/v1/projects/p1/builds') {
    const id = newOperation(2);
    return { body: JSON.stringify({ name: `projects/p1/operations/${id}`, done: false }) };
  }
  const build = /^\/v1\/projects\/p1\/operations\/(op\d+)$/.exec(req.path)?.[1];
  if (build !== undefined) {
    const done = check(build);
    const operation = { name: `projects/p1/operations/${build}`, done, ...(done ? { response: { image: 'built:1' } } : {}) };
    return { headers: { 'retry-after': '0' }, body: JSON.stringify(operation) };
  }
  if (req.method === 'POST' && req.path === '/elsewhere') {
    return { status: 202, headers: { 'operation-location': `${foreign.url}/status/far`, 'retry-after': '0' } };
  }
  return { status: 404, body: JSON.stringify({ error: `no ${req.method} ${req.path}` }) };
}

beforeAll(async () => {
  upstream = await startUpstream(respond);
  foreign = await startUpstream(() => ({ body: JSON.stringify({ status: 'Succeeded', far: true }) }));
  mkdirSync(TMP, { recursive: true });
  const spec = join(TMP, 'long-running.yaml');
  writeFileSync(spec, SPEC);
  dir = generateProject(spec, 'e2e-long-running');
  await buildProject(dir);
  const table = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as { auth: { key: { env: { key: string } } } };
  env = { [table.auth.key.env.key]: KEY };
  http = await startServer(dir, 'http', ['--base-url', upstream.url], env);
  shortWait = await startServer(dir, 'http', ['--base-url', upstream.url, '--operation-wait', '1500'], env);
  children.track(http.process);
  children.track(shortWait.process);
}, 300_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await children.stopAll();
  await upstream?.close();
  await foreign?.close();
});

type Kind = 'stdio' | 'http 2025' | 'http 2026';
const KINDS: Kind[] = ['stdio', 'http 2025', 'http 2026'];

async function client(kind: Kind, short = false): Promise<Client> {
  const made =
    kind === 'stdio'
      ? await connect('stdio', dir, { env, args: ['--base-url', upstream.url, ...(short ? ['--operation-wait', '1500'] : [])] })
      : await connect('http', (short ? shortWait : http).url, kind === 'http 2026' ? { negotiate: true } : {});
  clients.push(made);
  return made;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const lastOperation = () => `op${nextId}`;

describe.each(KINDS)('over %s', (kind) => {
  it('a 202 with Operation-Location: the call answers the final status, after the checks Retry-After asked for, with progress', async () => {
    const c = await client(kind);
    const progress: { progress: number; message?: string }[] = [];
    upstream.clear();
    const result = await c.callTool(
      { name: 'startJob', arguments: { tag: 'nightly' } },
      { onprogress: (p) => void progress.push(p), timeout: 30_000 },
    );
    expect(result.isError ?? false).toBe(false);
    const id = lastOperation();
    expect(JSON.parse(text(result))).toEqual({ status: 'Succeeded', result: { id, rows: 42 } });
    const times = checks.get(id) ?? [];
    expect(times).toHaveLength(3);
    // The first check as the 202's Retry-After: 0 allowed; the next two a second apart, as asked.
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(950);
    expect((times[2] ?? 0) - (times[1] ?? 0)).toBeGreaterThanOrEqual(950);
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect(progress[0]?.message).toMatch(/startJob: Running/);
    // Every status check went with the call's credentials: the status URL is on the API's origin.
    const statusRequests = upstream.requests.filter((r) => r.path.startsWith('/status/'));
    expect(statusRequests.map((r) => [r.method, r.headers['x-api-key']])).toEqual([
      ['GET', KEY],
      ['GET', KEY],
      ['GET', KEY],
    ]);
  }, 60_000);

  it('a 202 polled at its Location: the answer that is no longer 202 is the result', async () => {
    const c = await client(kind);
    const result = await c.callTool({ name: 'startExport', arguments: {} });
    const id = lastOperation();
    expect(result.isError ?? false).toBe(false);
    expect(JSON.parse(text(result))).toEqual({ export: id, url: 'https://files.example.com/e.csv' });
    expect(checks.get(id)).toHaveLength(2);
  }, 60_000);

  it('a Google Operation: polled at /v1/{name} until done, the done Operation is the result', async () => {
    const c = await client(kind);
    upstream.clear();
    const result = await c.callTool({ name: 'createBuild', arguments: { project: 'p1' } });
    const id = lastOperation();
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ name: `projects/p1/operations/${id}`, done: true, response: { image: 'built:1' } });
    expect(upstream.requests.filter((r) => r.method === 'GET').map((r) => r.url)).toEqual([
      `/v1/projects/p1/operations/${id}`,
      `/v1/projects/p1/operations/${id}`,
    ]);
  }, 60_000);

  it('past --operation-wait the answer is a handle, and get_operation_status answers the result once it is done', async () => {
    const c = await client(kind, true);
    const started = Date.now();
    const first = await c.callTool({ name: 'startJob', arguments: {} }, { timeout: 30_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    const id = lastOperation();
    left.set(id, 100);
    expect(first.isError ?? false).toBe(false);
    const handle = (first._meta?.['io.github.mcp-gen/operation'] as { handle?: string } | undefined)?.handle ?? '';
    expect(handle).toMatch(/^op_[\w-]{24}$/);
    expect(text(first)).toContain(`get_operation_status with {"handle":"${handle}"}`);
    expect(text(first)).not.toContain(upstream.url);

    // Still running: the handle comes back.
    const again = await c.callTool({ name: 'get_operation_status', arguments: { handle } }, { timeout: 30_000 });
    expect(text(again)).toMatch(/still running \(Running after \d+ status checks\)/);
    const next = (again._meta?.['io.github.mcp-gen/operation'] as { handle?: string } | undefined)?.handle ?? '';
    left.set(id, 1);
    const done = await c.callTool({ name: 'get_operation_status', arguments: { handle: next } }, { timeout: 30_000 });
    expect(done.isError ?? false).toBe(false);
    expect(JSON.parse(text(done))).toEqual({ status: 'Succeeded', result: { id, rows: 42 } });

    // A handle answered is spent; one never given is unknown: neither makes a request.
    const count = upstream.requests.length;
    for (const stale of [next, 'op_made-up-handle-of-24-chars']) {
      const refused = await c.callTool({ name: 'get_operation_status', arguments: { handle: stale } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/no operation with this handle/);
    }
    expect(upstream.requests.length).toBe(count);
  }, 60_000);

  it('a status URL on another origin is polled without the credentials', async () => {
    const c = await client(kind);
    upstream.clear();
    foreign.clear();
    const result = await c.callTool({ name: 'startElsewhere', arguments: {} });
    expect(JSON.parse(text(result))).toEqual({ status: 'Succeeded', far: true });
    expect(upstream.requests.map((r) => [r.method, r.path, r.headers['x-api-key']])).toEqual([['POST', '/elsewhere', KEY]]);
    expect(foreign.requests).toHaveLength(1);
    expect(foreign.requests[0]?.headers['x-api-key']).toBeUndefined();
  }, 60_000);
});

/**
 * startJob called as a task: the task comes back before the operation is done (it needs three
 * status checks a second apart), and settles with the operation's result.
 */
async function expectJobTask(
  session: ReturnType<typeof createTaskSessionFromClient>,
  options: { declaration?: ReturnType<typeof toolDeclarationFromMcpTool> },
): Promise<void> {
  const id = `op${nextId + 1}`;
  const execution = await session.callTool('startJob', { tag: 'task' }, { task: { preference: 'require' }, ...options });
  expect(execution.kind).toBe('task');
  expect(checks.get(id)?.length ?? 0).toBeLessThan(3);
  const { outcome } = await execution.settle();
  expect(outcome.status).toBe('completed');
  const result = resultFromTaskOutcome(outcome) as Awaited<ReturnType<Client['callTool']>>;
  expect(JSON.parse(text(result))).toEqual({ status: 'Succeeded', result: { id, rows: 42 } });
  expect(checks.get(id)).toHaveLength(3);
}

describe.each(['stdio', 'http 2025'] as const)('as a task, over %s (2025-11-25 Tasks, the ext-tasks client)', (kind) => {
  it('the call answers a task at once; the client follows it with tasks/get and fetches the result with tasks/result', async () => {
    const c = await client(kind);
    const { tools } = await c.listTools();
    const listed = tools.find((t) => t.name === 'startJob');
    expect(listed?.execution?.taskSupport).toBe('optional');
    expect(tools.find((t) => t.name === 'get_operation_status')?.execution).toBeUndefined();
    const session = createTaskSessionFromClient(c, { endpointId: `e2e-${kind}` });
    try {
      await expectJobTask(session, { declaration: toolDeclarationFromMcpTool(listed as never) });
    } finally {
      await session.close();
    }
  }, 60_000);

  it('a cancelled task stops its polling', async () => {
    const c = await client(kind);
    const { tools } = await c.listTools();
    const session = createTaskSessionFromClient(c, { endpointId: `e2e-cancel-${kind}` });
    try {
      const declaration = toolDeclarationFromMcpTool(tools.find((t) => t.name === 'startJob') as never);
      const id = `op${nextId + 1}`;
      const execution = await session.callTool('startJob', {}, { task: { preference: 'require' }, declaration });
      while (!left.has(id)) await new Promise((r) => setTimeout(r, 20));
      left.set(id, undefined);
      await execution.cancel();
      const seen = checks.get(id)?.length ?? 0;
      await new Promise((r) => setTimeout(r, 1_500));
      expect(checks.get(id)?.length).toBe(seen);
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe('as a task, over http 2026 (the tasks extension, SEP-2663, the ext-tasks client)', () => {
  it('the call answers a task at once, and tasks/get gives its state and then its result', async () => {
    const c = await client('http 2026');
    const session = createTaskSessionFromClient(c, {
      endpointId: 'e2e-2026',
      rawDispatch: rawDispatch(() => http.url),
      v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: { name: 'e2e', version: '1' }, clientCapabilities: {} },
    });
    try {
      await expectJobTask(session, {});
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe('answers over a 2025 session of Streamable HTTP', () => {
  it('tools/list and a call without a progress token come back as application/json; a call with one is a stream with its progress', async () => {
    const seen: { method: string; type: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
      if (init?.method === 'POST' && body?.id !== undefined)
        seen.push({ method: body.method ?? '', type: response.headers.get('content-type') ?? '' });
      return response;
    };
    const c = new Client({ name: 'content-types', version: '1' });
    clients.push(c);
    await c.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { fetch: recording }));
    await c.listTools();
    const plain = await c.callTool({ name: 'startExport', arguments: {} }, { timeout: 30_000 });
    expect(plain.isError ?? false).toBe(false);
    const progress: number[] = [];
    const followed = await c.callTool(
      { name: 'startJob', arguments: { tag: 'streamed' } },
      { onprogress: (p) => void progress.push(p.progress), timeout: 30_000 },
    );
    expect(followed.isError ?? false).toBe(false);
    expect(progress).toEqual([1, 2]);
    expect(seen.filter((s) => s.method !== 'initialize')).toEqual([
      { method: 'tools/list', type: 'application/json' },
      { method: 'tools/call', type: 'application/json' },
      { method: 'tools/call', type: 'text/event-stream' },
    ]);
  }, 60_000);
});

describe.each(['stdio', 'http 2025'] as const)("the client's log at level info, over %s", (kind) => {
  it("tells the operation's progress, a few lines at most, even without a progress token", async () => {
    const c = await client(kind);
    const messages: { level: string; data: unknown }[] = [];
    c.setNotificationHandler('notifications/message', (n) => void messages.push({ level: n.params.level, data: n.params.data }));
    await c.setLoggingLevel('info');
    const result = await c.callTool({ name: 'startJob', arguments: { tag: 'logged-tag-value' } }, { timeout: 30_000 });
    expect(result.isError ?? false).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(messages).toEqual([
      { level: 'info', data: 'startJob: Running (status check 1)' },
      { level: 'info', data: 'startJob: Running (status check 2)' },
    ]);
    expect(JSON.stringify(messages)).not.toContain('logged-tag-value');
  }, 60_000);
});

describe('listing', () => {
  it('get_operation_status is listed beside the long-running tools', async () => {
    const c = await client('http 2026');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('get_operation_status');
    expect(tools.find((t) => t.name === 'get_operation_status')?.inputSchema.required).toEqual(['handle']);
  });
});
