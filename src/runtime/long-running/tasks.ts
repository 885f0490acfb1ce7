// Long-running calls as tasks, for the clients that ask: a 2025-11-25 client by a tools/call
// with `task` (SEP-1686), a 2026-07-28 client by declaring the tasks extension
// (`io.modelcontextprotocol/tasks`, SEP-2663) in the request's capabilities. The call answers
// at once with the task; the call goes on in this process (following its operation for as long
// as the task is kept), and the client reads its state with tasks/get (2026-07-28: the result
// comes with it) or fetches its result with tasks/result (2025-11-25), and cancels it.
// The SDK v2 server (2.4.0) has no task runtime: its typed surface leaves the task methods
// out, so they are registered here with their own schemas, which it allows for this purpose.

import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { ToolSpec } from '../../contract/table.js';
import { TASKS_EXTENSION } from '../mcp/server-instances.js';
import { toolError } from '../mcp/output.js';
import { randomBytes, toBase64Url } from '../start/crypto.js';

/** How long a task and its result are kept when the client names no ttl, and at most. */
const DEFAULT_TTL_MS = 3_600_000;
const MAX_TTL_MS = 86_400_000;
/** Tasks kept at most: ended ones make room for new ones, running ones never do. */
const MAX_TASKS = 1_000;
/** Tasks one caller may have running at once: each polls the API until it ends. */
const MAX_WORKING_PER_OWNER = 20;
/** How often a client is told to ask (2025-11-25 `pollInterval`). */
const POLL_INTERVAL_MS = 1_000;

type Status = 'working' | 'completed' | 'failed' | 'cancelled';

/** Which wire the task speaks: 2025-11-25's (`v1`) or 2026-07-28's extension (`v2`). */
type Generation = 'v1' | 'v2';

interface TaskRecord {
  owner: string;
  generation: Generation;
  taskId: string;
  status: Status;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  expires: number;
  result: Promise<CallToolResult>;
  /** The result once the call has ended (2026-07-28's tasks/get carries it). */
  settled?: CallToolResult;
  cancel: AbortController;
}

/** The listed tool, with `execution.taskSupport: optional` when it is long-running. */
export function withTaskSupport(listed: Tool, tool: ToolSpec): Tool {
  return tool.longRunning === undefined ? listed : { ...listed, execution: { ...listed.execution, taskSupport: 'optional' } };
}

/**
 * Whether the client asked for a task, and on which wire: 2025-11-25's `task` (`TaskMetadata`,
 * with its ttl) in the tools/call, or the tasks extension in a 2026-07-28 request's capabilities.
 */
export function taskRequested(
  params: object,
  capabilities: ClientCapabilities | undefined,
): { generation: Generation; ttl?: number } | undefined {
  const task = (params as { task?: unknown }).task;
  if (typeof task === 'object' && task !== null && !Array.isArray(task)) {
    const ttl = (task as { ttl?: unknown }).ttl;
    return { generation: 'v1', ...(typeof ttl === 'number' ? { ttl } : {}) };
  }
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION) ? { generation: 'v2' } : undefined;
}

/** A task's state as 2026-07-28's extension shows it (`DetailedTask`): the result with it once completed. */
function wireV2(record: TaskRecord) {
  const base = {
    taskId: record.taskId,
    status: record.status === 'failed' ? 'completed' : record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttl,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  // A tool's own failure is a result (isError), as a call's would be: `failed` is for a request that could not run.
  // The result inside is a complete CallToolResult of 2026-07-28, discriminator included.
  return record.settled !== undefined && record.status !== 'cancelled'
    ? { ...base, result: { ...record.settled, resultType: 'complete' } }
    : base;
}

/** A task's state as 2025-11-25 shows it (`Task`). */
function wire(record: TaskRecord) {
  return {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttl,
    pollInterval: POLL_INTERVAL_MS,
  };
}

/** The tasks of this process, each its owner's only (the caller's identity and credentials, as handles are). */
export class TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();

  /**
   * Starts `run` (which answers the call's result as the client gets it) as a task, unless the
   * owner has too many running (undefined: then the call is answered as a plain one), and
   * answers the CreateTaskResult; or a tool error when every task kept is still running.
   * `content: []` beside `task`: the SDK checks a tools/call answer as a CallToolResult, and
   * an extra field is allowed in a result.
   */
  start(
    owner: string,
    asked: { generation: Generation; ttl?: number },
    run: (signal: AbortSignal, waitMs: number) => Promise<CallToolResult>,
  ): CallToolResult | undefined {
    const ttlAsked = asked.ttl;
    this.sweep();
    // A task is an offer (the call may be answered as it is): a caller with many running gets the plain call.
    if ([...this.tasks.values()].filter((t) => t.owner === owner && t.status === 'working').length >= MAX_WORKING_PER_OWNER)
      return undefined;
    if (!this.makeRoom(owner)) {
      return toolError(
        `No task was started: this server keeps at most ${MAX_TASKS.toLocaleString('en')} tasks and all of them are still running. ` +
          'Try again once one has ended, or call without a task.',
      );
    }
    const ttl = Math.min(Math.max(typeof ttlAsked === 'number' && ttlAsked > 0 ? ttlAsked : DEFAULT_TTL_MS, 1_000), MAX_TTL_MS);
    const now = new Date().toISOString();
    const cancel = new AbortController();
    const record: TaskRecord = {
      owner,
      generation: asked.generation,
      taskId: `task_${toBase64Url(randomBytes(18))}`,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      expires: Date.now() + ttl,
      cancel,
      result: Promise.resolve({ content: [] }),
    };
    record.result = run(cancel.signal, ttl)
      .catch((error: unknown): CallToolResult => ({
        content: [{ type: 'text', text: `failed: ${(error as Error)?.message ?? String(error)}` }],
        isError: true,
      }))
      .then((result) => {
        record.settled = result;
        if (record.status === 'working') this.update(record, result.isError ? 'failed' : 'completed');
        return result;
      });
    this.tasks.set(record.taskId, record);
    // 2026-07-28: a CreateTaskResult is the task itself, marked `resultType: task`, which the SDK passes on for tools/call.
    if (record.generation === 'v2') return { ...wireV2(record), resultType: 'task', content: [] };
    return { task: wire(record), content: [] };
  }

  /** Registers tasks/get, tasks/result, tasks/list and tasks/cancel on a server instance. */
  serve(server: Server, ownerOf: (ctx: ServerContext) => string): void {
    const any = { '~standard': { version: 1 as const, vendor: 'mcp-gen', validate: (value: unknown) => ({ value }) } };
    const schemas = { params: any, result: any };
    const idOf = (params: unknown) =>
      typeof (params as { taskId?: unknown })?.taskId === 'string' ? (params as { taskId: string }).taskId : '';
    server.setRequestHandler('tasks/get', schemas, async (params, ctx) => {
      const record = this.find(idOf(params), ownerOf(ctx));
      return record.generation === 'v2' ? wireV2(record) : wire(record);
    });
    server.setRequestHandler('tasks/result', schemas, async (params, ctx) => {
      const record = this.find(idOf(params), ownerOf(ctx));
      const result = await record.result;
      return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: record.taskId } } };
    });
    server.setRequestHandler('tasks/list', schemas, async (_params, ctx) => {
      this.sweep();
      const owner = ownerOf(ctx);
      return { tasks: [...this.tasks.values()].filter((t) => t.owner === owner).map(wire) };
    });
    server.setRequestHandler('tasks/cancel', schemas, async (params, ctx) => {
      const record = this.find(idOf(params), ownerOf(ctx));
      if (record.status !== 'working')
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${record.taskId} has already ended (${record.status})`);
      this.update(record, 'cancelled');
      record.cancel.abort();
      return record.generation === 'v2' ? {} : wire(record);
    });
  }

  private find(taskId: string, owner: string): TaskRecord {
    this.sweep();
    const record = this.tasks.get(taskId);
    if (record === undefined || record.owner !== owner)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${JSON.stringify(taskId.slice(0, 64))}`);
    return record;
  }

  private update(record: TaskRecord, status: Status): void {
    record.status = status;
    record.lastUpdatedAt = new Date().toISOString();
    record.expires = Date.now() + record.ttl;
  }

  /**
   * Room for one more task when the store is full: an ended task goes, the owner's own first,
   * then anyone's, the one that would expire first. A running task is never dropped: its
   * client would lose a call still in progress. False when every task kept is running.
   */
  private makeRoom(owner: string): boolean {
    if (this.tasks.size < MAX_TASKS) return true;
    let own: TaskRecord | undefined;
    let any: TaskRecord | undefined;
    for (const record of this.tasks.values()) {
      if (record.status === 'working') continue;
      if (record.owner === owner && (own === undefined || record.expires < own.expires)) own = record;
      if (any === undefined || record.expires < any.expires) any = record;
    }
    const dropped = own ?? any;
    if (dropped === undefined) return false;
    this.tasks.delete(dropped.taskId);
    return true;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, record] of this.tasks) if (record.status !== 'working' && record.expires <= now) this.tasks.delete(id);
  }
}
