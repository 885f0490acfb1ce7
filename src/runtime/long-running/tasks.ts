// Long-running and streaming calls as tasks, for the clients that ask: a 2025-11-25 client by a
// tools/call with `task` (SEP-1686), a 2026-07-28 client by declaring the tasks extension
// (`io.modelcontextprotocol/tasks`, SEP-2663) in the request's capabilities. The call answers
// at once with the task; the call goes on in the process that took it (following its operation,
// or reading its stream, for as long as the task is kept), and the client reads its state with
// tasks/get (2026-07-28: the result comes with it) or fetches its result with tasks/result
// (2025-11-25), and cancels it.
// Tasks are kept in this process's memory (here), or with --operation-store in the store the
// replicas share (tasks-shared.ts), where any replica answers the task methods.
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
import { runsAsTask, type ToolSpec } from '../../contract/table.js';
import { TASKS_EXTENSION } from '../mcp/server-instances.js';
import { toolError } from '../mcp/output.js';
import { randomBytes, toBase64Url } from '../start/crypto.js';

/** How long a task and its result are kept when the client names no ttl, and at most. */
const DEFAULT_TTL_MS = 3_600_000;
const MAX_TTL_MS = 86_400_000;
/** Tasks kept at most (ended ones make room for new ones, running ones never do), and running at once per caller (each polls the API until it ends). */
export const TASK_CAPS = { total: 1_000, workingPerOwner: 20 };
/** How often a client is told to ask (2025-11-25 `pollInterval`). */
const POLL_INTERVAL_MS = 1_000;

export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** Which wire the task speaks: 2025-11-25's (`v1`) or 2026-07-28's extension (`v2`). */
type Generation = 'v1' | 'v2';

/** What the client asked for: the wire, and the 2025-11-25 ttl. */
export interface TaskAsked {
  generation: Generation;
  ttl?: number;
}

/** A task as its owner sees it, wherever it is kept. */
export interface TaskState {
  generation: Generation;
  taskId: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  /** Where the work is while it runs (the items read so far, the operation's state): shown while working (both eras' `statusMessage`). */
  statusMessage?: string;
  /** The result once the call has ended (2026-07-28's tasks/get carries it). */
  settled?: CallToolResult;
}

/** Tells where a running task's work is (its status message, kept where the task is), and gives the task as it now is. */
export type TaskReport = (message: string) => TaskState;

/**
 * A task's work: the call's result as the client gets it, followed (or its stream read) for at
 * most `waitMs`, telling its progress by `report`.
 */
export type TaskRun = (signal: AbortSignal, waitMs: number, report: TaskReport) => Promise<CallToolResult>;

/** Where tasks are kept, each its owner's only (the caller's identity and credentials, as handles are); another owner's task is "not found". */
export interface TaskStore {
  /**
   * Starts `run` as a task, unless the owner has too many running (undefined: then the call is
   * answered as a plain one), and answers the CreateTaskResult; or a tool error when every
   * task kept is still running.
   */
  start(owner: string, asked: TaskAsked, run: TaskRun): CallToolResult | undefined | Promise<CallToolResult | undefined>;
  get(taskId: string, owner: string): Promise<TaskState>;
  /** The task's result, once it has one: waits, for as long as the request may (`signal`). */
  result(taskId: string, owner: string, signal: AbortSignal): Promise<CallToolResult>;
  list(owner: string): Promise<TaskState[]>;
  /** The task, cancelled; a ProtocolError when it has already ended. */
  cancel(taskId: string, owner: string): Promise<TaskState>;
  /** Lets go of a shared store's connection, once opened. */
  close(): Promise<void>;
}

// whether a call of the tool may be a task: one that follows an operation or reads a stream, either of which may outlast --timeout
export { runsAsTask };

/** The listed tool, with `execution.taskSupport: optional` when it may run as a task. */
export function withTaskSupport(listed: Tool, tool: ToolSpec): Tool {
  return runsAsTask(tool) ? { ...listed, execution: { ...listed.execution, taskSupport: 'optional' } } : listed;
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
function wireV2(record: TaskState) {
  const base = {
    taskId: record.taskId,
    status: record.status === 'failed' ? 'completed' : record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttl,
    pollIntervalMs: POLL_INTERVAL_MS,
    ...workingMessage(record),
  };
  // A tool's own failure is a result (isError), as a call's would be: `failed` is for a request that could not run.
  // The result inside is a complete CallToolResult of 2026-07-28, discriminator included.
  return record.settled !== undefined && record.status !== 'cancelled'
    ? { ...base, result: { ...record.settled, resultType: 'complete' } }
    : base;
}

/** A task's state as 2025-11-25 shows it (`Task`). */
function wire(record: TaskState) {
  return {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttl,
    pollInterval: POLL_INTERVAL_MS,
    ...workingMessage(record),
  };
}

/** The status message while the task works: it says how far the work has come, which an ended task's result says better. */
const workingMessage = (record: TaskState) =>
  record.status === 'working' && record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {};

/** The task with a new status message, as of now. */
export const reported = (task: TaskState, message: string): TaskState => ({
  ...task,
  statusMessage: message,
  lastUpdatedAt: new Date().toISOString(),
});

/**
 * 2025-11-25's `notifications/tasks/status` (the whole Task; optional for a server to send, the
 * client polls tasks/get regardless), or undefined for 2026-07-28, whose `notifications/tasks`
 * go only to a client that subscribed with `subscriptions/listen`, which this server does not serve.
 */
export function statusNotification(task: TaskState): { method: string; params: ReturnType<typeof wire> } | undefined {
  return task.generation === 'v1' ? { method: 'notifications/tasks/status', params: wire(task) } : undefined;
}

/** A new task, working, kept for the ttl asked (within 1 s and MAX_TTL_MS), DEFAULT_TTL_MS without one. */
export function newTask(asked: TaskAsked): TaskState {
  const ttl = Math.min(Math.max(typeof asked.ttl === 'number' && asked.ttl > 0 ? asked.ttl : DEFAULT_TTL_MS, 1_000), MAX_TTL_MS);
  const now = new Date().toISOString();
  const taskId = `task_${toBase64Url(randomBytes(18))}`;
  return { generation: asked.generation, taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttl };
}

/**
 * The tools/call answer that starts a task. 2026-07-28: a CreateTaskResult is the task itself,
 * marked `resultType: task`, which the SDK passes on for tools/call. `content: []` beside
 * `task`: the SDK checks a tools/call answer as a CallToolResult, and an extra field is allowed.
 */
export function createdAnswer(task: TaskState): CallToolResult {
  if (task.generation === 'v2') return { ...wireV2(task), resultType: 'task', content: [] };
  return { task: wire(task), content: [] };
}

/** The task as it ended, with its result: `failed` when that is an error (a run that threw gives one), else `completed`. */
export function settledTask(task: TaskState, outcome: { result: CallToolResult } | { error: unknown }): TaskState {
  const settled: CallToolResult =
    'result' in outcome
      ? outcome.result
      : { content: [{ type: 'text', text: `failed: ${(outcome.error as Error)?.message ?? String(outcome.error)}` }], isError: true };
  return { ...task, status: settled.isError ? 'failed' : 'completed', lastUpdatedAt: new Date().toISOString(), settled };
}

/** The refusal of a task when every task kept is still running. */
export function noRoomForTask(): CallToolResult {
  return toolError(
    `No task was started: this server keeps at most ${TASK_CAPS.total.toLocaleString('en')} tasks and all of them are still running. ` +
      'Try again once one has ended, or call without a task.',
  );
}

export const noTask = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${JSON.stringify(taskId.slice(0, 64))}`);
export const alreadyEnded = (task: TaskState) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${task.taskId} has already ended (${task.status})`);

/** What the admission of a task needs to know of each task kept: nothing secret. */
export interface TaskEntry {
  status: TaskStatus;
  /** The owner, or a hash of it. */
  owner: string;
  /** When the task is forgotten (ms). */
  expires: number;
}

/**
 * Whether `owner` may start one more task among the live `entries`: not with too many of its own
 * running ('busy': the call is then answered as a plain one); when the store is full, an ended
 * task makes room (`evict`), the owner's own first, then anyone's, the one that would expire
 * first. A running task is never evicted: its client would lose a call still in progress
 * ('full': every task kept is running).
 */
export function admit(entries: Iterable<[string, TaskEntry]>, owner: string): 'busy' | 'full' | { evict?: string } {
  let count = 0;
  let working = 0;
  let own: [string, TaskEntry] | undefined;
  let any: [string, TaskEntry] | undefined;
  for (const entry of entries) {
    const [, { status, owner: whose, expires }] = entry;
    count++;
    if (status === 'working') {
      if (whose === owner) working++;
      continue;
    }
    if (whose === owner && (own === undefined || expires < own[1].expires)) own = entry;
    if (any === undefined || expires < any[1].expires) any = entry;
  }
  if (working >= TASK_CAPS.workingPerOwner) return 'busy';
  if (count < TASK_CAPS.total) return {};
  const evicted = own ?? any;
  return evicted === undefined ? 'full' : { evict: evicted[0] };
}

/** Registers tasks/get, tasks/result, tasks/list and tasks/cancel on a server instance, answered from `store`. */
export function serveTaskMethods(server: Server, store: TaskStore, ownerOf: (ctx: ServerContext) => string): void {
  const any = { '~standard': { version: 1 as const, vendor: 'mcp-gen', validate: (value: unknown) => ({ value }) } };
  const schemas = { params: any, result: any };
  const idOf = (params: unknown) =>
    typeof (params as { taskId?: unknown })?.taskId === 'string' ? (params as { taskId: string }).taskId : '';
  server.setRequestHandler('tasks/get', schemas, async (params, ctx) => {
    const task = await store.get(idOf(params), ownerOf(ctx));
    return task.generation === 'v2' ? wireV2(task) : wire(task);
  });
  server.setRequestHandler('tasks/result', schemas, async (params, ctx) => {
    const taskId = idOf(params);
    const result = await store.result(taskId, ownerOf(ctx), ctx.mcpReq.signal);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });
  server.setRequestHandler('tasks/list', schemas, async (_params, ctx) => ({ tasks: (await store.list(ownerOf(ctx))).map(wire) }));
  server.setRequestHandler('tasks/cancel', schemas, async (params, ctx) => {
    const task = await store.cancel(idOf(params), ownerOf(ctx));
    return task.generation === 'v2' ? {} : wire(task);
  });
}

interface MemoryTask extends TaskState {
  owner: string;
  expires: number;
  result: Promise<CallToolResult>;
  cancel: AbortController;
}

/** The tasks of this process (the default: a task is answered by the process that runs it). */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, MemoryTask>();

  start(owner: string, asked: TaskAsked, run: TaskRun): CallToolResult | undefined {
    this.sweep();
    const admitted = admit(this.tasks, owner);
    // A task is an offer (the call may be answered as it is): a caller with many running gets the plain call.
    if (admitted === 'busy') return undefined;
    if (admitted === 'full') return noRoomForTask();
    if (admitted.evict !== undefined) this.tasks.delete(admitted.evict);
    const created = newTask(asked);
    const cancel = new AbortController();
    const task: MemoryTask = { ...created, owner, expires: Date.now() + created.ttl, cancel, result: Promise.resolve({ content: [] }) };
    task.result = run(cancel.signal, task.ttl, (message) => this.report(task, message)).then(
      (result) => this.settle(task, { result }),
      (error: unknown) => this.settle(task, { error }),
    );
    this.tasks.set(task.taskId, task);
    return createdAnswer(task);
  }

  async get(taskId: string, owner: string): Promise<TaskState> {
    return this.find(taskId, owner);
  }

  async result(taskId: string, owner: string): Promise<CallToolResult> {
    return this.find(taskId, owner).result;
  }

  async list(owner: string): Promise<TaskState[]> {
    this.sweep();
    return [...this.tasks.values()].filter((t) => t.owner === owner);
  }

  async cancel(taskId: string, owner: string): Promise<TaskState> {
    const task = this.find(taskId, owner);
    if (task.status !== 'working') throw alreadyEnded(task);
    this.update(task, 'cancelled');
    task.cancel.abort();
    return task;
  }

  async close(): Promise<void> {
    // nothing is held outside this process
  }

  private settle(task: MemoryTask, outcome: Parameters<typeof settledTask>[1]): CallToolResult {
    const { settled, status } = settledTask(task, outcome);
    task.settled = settled;
    if (task.status === 'working') this.update(task, status);
    return settled as CallToolResult;
  }

  /** A running task's new status message; once it has ended, the report comes too late and is dropped. */
  private report(task: MemoryTask, message: string): TaskState {
    if (task.status === 'working') Object.assign(task, reported(task, message));
    return task;
  }

  private find(taskId: string, owner: string): MemoryTask {
    this.sweep();
    const task = this.tasks.get(taskId);
    if (task === undefined || task.owner !== owner) throw noTask(taskId);
    return task;
  }

  private update(task: MemoryTask, status: TaskStatus): void {
    task.status = status;
    task.lastUpdatedAt = new Date().toISOString();
    task.expires = Date.now() + task.ttl;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, task] of this.tasks) if (task.status !== 'working' && task.expires <= now) this.tasks.delete(id);
  }
}
