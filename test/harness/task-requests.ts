// Task requests through the official SDK client, whose typed surface leaves them out: the task
// methods, and a 2025-11-25 tools/call with `task` (SEP-1686). Their answers are not checked by
// the client: the tests check them.
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';

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
