// Task requests through the official SDK client, whose typed surface leaves them out: the task
// methods, and a 2025-11-25 tools/call with `task` (SEP-1686), their answers checked by the tests
// rather than the client; and the raw path the ext-tasks client takes for 2026-07-28's extension.
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import type { RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';

const any = { '~standard': { version: 1 as const, vendor: 'e2e', validate: (value: unknown) => ({ value }) } };

/** `method` with `params` on `c`, its answer as it came. */
export const ask = (c: Client, method: string, params: Record<string, unknown> = {}) =>
  c.request({ method, params } as never, any as never, { timeout: 30_000 }) as Promise<Record<string, unknown>>;

export interface WireTask {
  taskId: string;
  status: string;
}

/**
 * startJob (JOBS_SPEC) as a task on `c`: its task, and the upstream's job (`jobs()` counts them)
 * once the task has started it, since the task is answered first.
 */
export async function startJobTask(c: Client, jobs: () => number): Promise<{ task: WireTask; job: string }> {
  const before = jobs();
  const created = (await ask(c, 'tools/call', { name: 'startJob', arguments: {}, task: { ttl: 60_000 } })) as { task: WireTask };
  expect(created.task).toMatchObject({ status: 'working' });
  while (jobs() === before) await new Promise((r) => setTimeout(r, 20));
  return { task: created.task, job: `j${jobs()}` };
}

/** Each new status message tasks/get on `c` shows for `taskId`, until `count` of them (or 10 s have gone by). */
export async function statusMessages(c: Client, taskId: string, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (const until = Date.now() + 10_000; seen.length < count && Date.now() < until;) {
    const { statusMessage } = (await ask(c, 'tasks/get', { taskId })) as { statusMessage?: string };
    if (statusMessage !== undefined && statusMessage !== seen.at(-1)) seen.push(statusMessage);
    await new Promise((r) => setTimeout(r, 200));
  }
  return seen;
}

/**
 * The ext-tasks client's path for 2026-07-28 task traffic, which the SDK client's codec would
 * refuse: one JSON-RPC POST to /mcp with the standard headers (and `headers`), its answer (JSON
 * or an SSE event). `urlOf` says which server each request goes to: one, or replicas in turn.
 */
export function rawDispatch(urlOf: (method: string) => string, headers: Record<string, string> = {}): RawClientDispatch {
  let id = 0;
  return async (request) => {
    const message = { jsonrpc: '2.0', id: `raw-${++id}`, ...(request as { method: string; params?: Record<string, unknown> }) };
    const name = message.params?.name ?? message.params?.taskId;
    const response = await fetch(`${urlOf(message.method)}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': message.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...headers,
      },
      body: JSON.stringify(message),
    });
    const body = await response.text();
    const events = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? body.split('\n').flatMap((line) => (line.startsWith('data:') ? [JSON.parse(line.slice(5)) as Record<string, unknown>] : []))
      : [JSON.parse(body) as Record<string, unknown>];
    const answer = events.find((event) => event.id === message.id) ?? {};
    return 'error' in answer
      ? { kind: 'error', error: answer.error as { code: number; message: string } }
      : { kind: 'result', result: answer.result as never };
  };
}
