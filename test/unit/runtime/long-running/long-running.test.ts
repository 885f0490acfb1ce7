// Following long-running operations (src/runtime/long-running/long-running.ts) where the e2e test does not
// go: Azure's final-state-via and its defaults, a failed status, a Google Operation's error,
// a linked status operation called with arguments from the 202 answer, and a handle that only
// its own caller can take. The executor's requests are stood in for by a recording function
// that answers as each case says.
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { longRunningCalls, type ExecutorIo, type TrackedAnswer } from '../../../../src/runtime/long-running/long-running.js';
import { MemoryOperationStore } from '../../../../src/runtime/long-running/operation-store.js';
import type { LongRunning, ToolSpec, ToolTable } from '../../../../src/contract/table.js';

const API = 'https://api.example.com';

function answer(status: number, body?: unknown, operation?: TrackedAnswer['operation'], request?: TrackedAnswer['request']): TrackedAnswer {
  return {
    status,
    statusText: '',
    contentType: 'application/json',
    bytes: new TextEncoder().encode(body === undefined ? '' : JSON.stringify(body)),
    truncated: false,
    label: 'x',
    uri: 'x',
    ...(operation ? { operation } : {}),
    ...(request ? { request } : {}),
  };
}

const tool = (name: string, method: string, longRunning?: LongRunning): ToolSpec => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  annotations: {},
  http: { method, path: `/${name}`, params: [] },
  ...(longRunning ? { longRunning } : {}),
});

interface Call {
  caller: undefined;
  credentials: Map<string, string>;
}
const anyone: Call = { caller: undefined, credentials: new Map() };

/** The steps with a recording upstream: `answers` by URL (or `tool:<name>`), each a queue. */
function setUp(tools: ToolSpec[], answers: Record<string, TrackedAnswer[]>, waitMs = 5_000) {
  const table: ToolTable = { format: 1, name: 't', version: '1', servers: [{ url: API }], defs: {}, auth: {}, tools };
  const asked: string[] = [];
  const next = (key: string) => {
    asked.push(key);
    const queue = answers[key];
    const found = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    return { answer: found ?? answer(404, { error: `nothing at ${key}` }) };
  };
  const io: ExecutorIo<Call> = {
    get: async (_tool, url) => next(url),
    base: () => ({ base: `${API}/` }),
    call: async (t, args) => next(`tool:${t.name} ${JSON.stringify(args)}`),
    shape: (_tool, a): CallToolResult => ({
      content: [{ type: 'text', text: new TextDecoder().decode(a.bytes) }],
      ...(a.status >= 400 ? { isError: true } : {}),
    }),
  };
  const steps = longRunningCalls<Call>(table, waitMs, io, new MemoryOperationStore());
  const options = (call: Call = anyone) => ({ signal: new AbortController().signal, call, advertised: false });
  return { steps, asked, options };
}
const text = (r: CallToolResult) => r.content.map((c) => ('text' in c ? c.text : '')).join('\n');
const now = { retryAfterMs: 0 };

describe("Azure's result, once the status monitor says Succeeded", () => {
  const monitor = `${API}/operations/1`;
  const cases: [string, { method: string; via?: LongRunning['finalStateVia']; status?: object; want: string | undefined }][] = [
    ['PUT: the original URL, query and all', { method: 'PUT', want: `${API}/vaults/v1?api-version=2024-01-01` }],
    ['POST: the Location', { method: 'POST', want: `${API}/results/1` }],
    ['DELETE: the status answer itself', { method: 'DELETE', want: undefined }],
    ['final-state-via location', { method: 'PUT', via: 'location', want: `${API}/results/1` }],
    ['final-state-via azure-async-operation', { method: 'POST', via: 'azure-async-operation', want: undefined }],
    ['final-state-via original-uri', { method: 'POST', via: 'original-uri', want: `${API}/vaults/v1?api-version=2024-01-01` }],
    [
      "the status body's resourceLocation, for a DELETE",
      { method: 'DELETE', status: { resourceLocation: `${API}/elsewhere/1` }, want: `${API}/elsewhere/1` },
    ],
  ];
  it.each(cases)('%s', async (_name, { method, via, status, want }) => {
    const t = tool('vault', method, via ? { finalStateVia: via } : {});
    const { steps, asked, options } = setUp([t], {
      [monitor]: [answer(200, { status: 'InProgress' }, now), answer(200, { status: 'Succeeded', ...status })],
      [`${API}/vaults/v1?api-version=2024-01-01`]: [answer(200, { id: 'v1' })],
      [`${API}/results/1`]: [answer(200, { result: 1 })],
      [`${API}/elsewhere/1`]: [answer(200, { elsewhere: 1 })],
    });
    const first = answer(
      201,
      { provisioning: 'Accepted' },
      { monitor, location: `${API}/results/1`, retryAfterMs: 0 },
      { method, url: `${API}/vaults/v1?api-version=2024-01-01` },
    );
    const result = await steps.follow(t, first, {}, options());
    expect(asked).toEqual([monitor, monitor, ...(want ? [want] : [])]);
    expect(result.isError).toBeUndefined();
    if (want === undefined) expect(JSON.parse(text(result))).toMatchObject({ status: 'Succeeded' });
  });
});

describe('operations that end badly, or elsewhere', () => {
  it('a status Failed is a tool error with the status error message', async () => {
    const t = tool('job', 'POST', {});
    const { steps, options } = setUp([t], {
      [`${API}/ops/1`]: [answer(200, { status: 'Failed', error: { code: 'Quota', message: 'quota exceeded' } })],
    });
    const result = await steps.follow(
      t,
      answer(202, undefined, { monitor: `${API}/ops/1`, retryAfterMs: 0 }, { method: 'POST', url: `${API}/job` }),
      {},
      options(),
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('job: the operation ended without success: Failed: quota exceeded');
  });

  it("a status check's own error answer is returned as it came", async () => {
    const t = tool('job', 'POST', {});
    const { steps, options } = setUp([t], { [`${API}/ops/1`]: [answer(404, { error: 'gone' })] });
    const result = await steps.follow(
      t,
      answer(202, undefined, { location: `${API}/ops/1`, retryAfterMs: 0 }, { method: 'POST', url: `${API}/job` }),
      {},
      options(),
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('gone');
  });

  it("a Google Operation done with an error is a tool error; the name's slashes stay in the path", async () => {
    const t = tool('build', 'POST', { operation: { statusPath: '/v1/{name}' } });
    const { steps, asked, options } = setUp([t], {
      [`${API}/v1/projects/p/operations/o%201`]: [
        answer(200, { name: 'projects/p/operations/o 1', done: true, error: { message: 'no space' } }),
      ],
    });
    const result = await steps.follow(
      t,
      answer(200, { name: 'projects/p/operations/o 1', done: false }, now, { method: 'POST', url: `${API}/build` }),
      {},
      options(),
    );
    expect(asked).toEqual([`${API}/v1/projects/p/operations/o%201`]);
    expect(text(result)).toBe('build: the operation ended without success: no space');
  });

  it('an Operation already done, or an answer without a status URL, is the result at once', async () => {
    const t = tool('build', 'POST', { operation: { statusPath: '/v1/{name}' } });
    const { steps, asked, options } = setUp([t], {});
    const done = await steps.follow(
      t,
      answer(200, { name: 'n', done: true }, undefined, { method: 'POST', url: `${API}/build` }),
      {},
      options(),
    );
    const bare = await steps.follow(t, answer(202, { queued: true }, undefined, { method: 'POST', url: `${API}/build` }), {}, options());
    expect(asked).toEqual([]);
    expect(JSON.parse(text(done))).toEqual({ name: 'n', done: true });
    expect(JSON.parse(text(bare))).toEqual({ queued: true });
  });

  it('a GET answered 202 without a status URL (a statistic still being computed) is asked again until it answers', async () => {
    const t = tool('stats', 'GET', {});
    const url = `${API}/stats?period=week`;
    const { steps, asked, options } = setUp([t], { [url]: [answer(202, undefined, now), answer(200, [{ week: 1 }])] });
    const result = await steps.follow(t, answer(202, undefined, now, { method: 'GET', url }), {}, options());
    expect(asked).toEqual([url, url]);
    expect(JSON.parse(text(result))).toEqual([{ week: 1 }]);
  });

  it("a linked status operation is called with the 202 answer's values until its status says done", async () => {
    const start = tool('startJob', 'POST', { statusTool: { name: 'getJob', args: { jobId: '$response.body#/id', view: 'full' } } });
    const status = tool('getJob', 'GET');
    const key = 'tool:getJob {"jobId":"j-7","view":"full"}';
    const { steps, asked, options } = setUp([start, status], {
      [key]: [answer(200, { state: 'RUNNING' }, now), answer(200, { state: 'DONE', output: 3 })],
    });
    const result = await steps.follow(start, answer(202, { id: 'j-7' }, now, { method: 'POST', url: `${API}/jobs` }), {}, options());
    expect(asked).toEqual([key, key]);
    expect(JSON.parse(text(result))).toEqual({ state: 'DONE', output: 3 });
  });
});

describe('handles', () => {
  it('past the wait a handle; its caller takes it up, another caller cannot, and it is spent once answered', async () => {
    const t = tool('job', 'POST', {});
    const monitor = `${API}/ops/9`;
    const { steps, asked, options } = setUp([t], { [monitor]: [answer(200, { status: 'Running' }, { retryAfterMs: 200 })] }, 100);
    const mine: Call = { caller: undefined, credentials: new Map([['key', 'alice']]) };
    const theirs: Call = { caller: undefined, credentials: new Map([['key', 'bob']]) };
    const first = await steps.follow(
      t,
      answer(202, undefined, { monitor, retryAfterMs: 0 }, { method: 'POST', url: `${API}/job` }),
      {},
      options(mine),
    );
    const handle = (first._meta?.['io.github.mcp-gen/operation'] as { handle: string }).handle;
    expect(text(first)).toContain('still running (Running after 1 status checks)');
    expect(text(first)).not.toContain(monitor);

    const refused = await steps.resume(handle, options(theirs));
    expect(refused.isError).toBe(true);
    expect(asked).toHaveLength(1);

    const again = await steps.resume(handle, options(mine));
    expect(text(again)).toContain('still running');
    const spent = await steps.resume(handle, options(mine));
    expect(text(spent)).toMatch(/no operation with this handle/);
  });

  it("another caller's 1,001 handles never evict a caller's handle; a store full of other callers' refuses with a tool error", async () => {
    const t = tool('job', 'POST', {});
    const { steps, options } = setUp([t], {}, 0);
    const caller = (key: string): Call => ({ caller: undefined, credentials: new Map([['key', key]]) });
    const start = (who: string) =>
      steps.follow(t, answer(202, undefined, { monitor: `${API}/ops/1` }, { method: 'POST', url: `${API}/job` }), {}, options(caller(who)));
    const handleOf = (r: CallToolResult) => (r._meta?.['io.github.mcp-gen/operation'] as { handle: string }).handle;
    const victim = handleOf(await start('bob'));
    for (let i = 0; i < 1_001; i++) await start('alice');
    expect(text(await steps.resume(victim, options(caller('bob'))))).toContain('still running');

    for (let owner = 0; owner < 10; owner++) for (let i = 0; i < 100; i++) await start(`owner${owner}`);
    const refused = await start('zoe');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /^job: the operation is still running .* already follows 1,000 operations for other callers, so it keeps no handle/,
    );
  });

  it('a call whose tool lists an outputSchema gets the pending answer as an error: a client would refuse it without structure', async () => {
    const t = { ...tool('job', 'POST', {}), output: { schema: { type: 'object' }, defs: [], wrap: false } };
    const { steps, options } = setUp([t], {}, 0);
    const first = await steps.follow(
      t,
      answer(202, undefined, { monitor: `${API}/ops/1` }, { method: 'POST', url: `${API}/job` }),
      {},
      {
        ...options(),
        advertised: true,
      },
    );
    expect(first.isError).toBe(true);
    expect(text(first)).toMatch(/still running .* get_operation_status/);
  });
});
