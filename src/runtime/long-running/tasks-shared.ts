// Tasks in the store the replicas share (--operation-store redis://… or deno-kv), loaded by
// table-tools.ts only then: any replica answers tasks/get, tasks/result, tasks/list and
// tasks/cancel for a task another one runs, with no affinity. The replica that took the call runs
// it and writes its end; a cancellation is the task's status in the store, which that replica
// reads every CANCEL_CHECK_MS while it runs tasks, and then stops the work. Each record is sealed
// with MCP_TOKEN_STORE_KEY (as operations are) under a hash of the API's name, its owner and its
// task id: the store shows neither the task id nor whose it is, and another caller's task id
// names nothing there. The caps are the memory store's (tasks.ts `admit`), over all replicas.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../start/log.js';
import { parseKeyRing, seal, unseal, type KeyRing } from '../store/sealing.js';
import { recordName } from '../store/shared-records.js';
import type { TaskRecords } from '../store/task-records.js';
import type { OperationStoreSetting } from './operation-store.js';
import {
  alreadyEnded,
  createdAnswer,
  newTask,
  noRoomForTask,
  noTask,
  reported,
  settledTask,
  type TaskAsked,
  type TaskEntry,
  type TaskRun,
  type TaskState,
  type TaskStatus,
  type TaskStore,
} from './tasks.js';

/** A running task's record outlives its ttl by this much: the run ends within the ttl, and its end is then still written. */
const RUNNING_MARGIN_MS = 60_000;
/** How often a replica reads whether the tasks it runs were cancelled elsewhere. */
const CANCEL_CHECK_MS = 500;
/** tasks/result's waits between two reads of a task another replica runs: growing by half, from the first to the longest. */
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 2_000;

/** The shared task store `setting` names; `namespace` (the API's name) separates servers sharing one. */
export function openSharedTaskStore(setting: OperationStoreSetting, namespace: string, log: Logger): TaskStore {
  const space = recordName(namespace, 'tasks');
  return new SharedTaskStore(() => openTaskRecords(setting.location, space, log), parseKeyRing(setting.keys ?? ''), namespace, log);
}

/** The backend, loaded on first use (the redis package only for a redis:// URL). */
async function openTaskRecords(location: string, space: string, log: Logger): Promise<TaskRecords> {
  if (/^rediss?:\/\//i.test(location)) return (await import('./task-records-redis.js')).openRedisTaskRecords(location, space, log);
  return (await import('./task-records-kv.js')).openKvTaskRecords(location, space, log);
}

/** A task this replica runs: how to stop it, and its end once written. */
interface Running {
  cancel: AbortController;
  ended: Promise<void>;
}

class SharedTaskStore implements TaskStore {
  #records: Promise<TaskRecords> | undefined;
  readonly #running = new Map<string, Running>();
  #watch: ReturnType<typeof setInterval> | undefined;
  #checking = false;
  #warnedUnopened = false;

  constructor(
    private readonly open: () => Promise<TaskRecords>,
    private readonly ring: KeyRing,
    private readonly namespace: string,
    private readonly log: Logger,
  ) {}

  async start(owner: string, asked: TaskAsked, run: TaskRun): Promise<CallToolResult | undefined> {
    const task = newTask(asked);
    const name = this.#name(owner, task.taskId);
    let added: 'added' | 'busy' | 'full';
    try {
      added = await (await this.#backend()).add(name, this.#entry(owner, task, RUNNING_MARGIN_MS), await this.#seal(name, task));
    } catch (error) {
      // A task is an offer: without the store, the call is answered as a plain one.
      this.log.warn(`task store: ${(error as Error).message}; a call asked as a task is answered without one`);
      return undefined;
    }
    if (added === 'busy') return undefined;
    if (added === 'full') return noRoomForTask();
    this.#run(name, owner, task, run);
    return createdAnswer(task);
  }

  async get(taskId: string, owner: string): Promise<TaskState> {
    const task = await this.#read(this.#name(owner, taskId));
    if (task === undefined) throw noTask(taskId);
    return task;
  }

  async result(taskId: string, owner: string, signal: AbortSignal): Promise<CallToolResult> {
    const name = this.#name(owner, taskId);
    for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 1.5, LONGEST_WAIT_MS)) {
      const task = await this.get(taskId, owner);
      if (task.status !== 'working') return task.settled ?? cancelledResult(task);
      // Here it ends when its run does; elsewhere, it is read again a little later.
      await untilAborted(this.#running.get(name)?.ended ?? delay(wait), signal);
    }
  }

  async list(owner: string): Promise<TaskState[]> {
    const names = await (await this.#backend()).owned(this.#owner(owner));
    const tasks = await Promise.all(names.map((name) => this.#read(name)));
    return tasks.filter((t) => t !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async cancel(taskId: string, owner: string): Promise<TaskState> {
    const name = this.#name(owner, taskId);
    const task = await this.get(taskId, owner);
    if (task.status !== 'working') throw alreadyEnded(task);
    const cancelled: TaskState = { ...task, status: 'cancelled', lastUpdatedAt: new Date().toISOString() };
    if (!(await this.#replace(name, owner, cancelled))) throw alreadyEnded(await this.get(taskId, owner));
    this.#running.get(name)?.cancel.abort();
    return cancelled;
  }

  async close(): Promise<void> {
    this.#stopWatching();
    const records = await this.#records?.catch(() => undefined);
    await records?.close();
  }

  /**
   * Runs the task here, writes its status messages and its end (unless it was cancelled first),
   * and watches for a cancellation meanwhile. The writes of one task go one after another: in
   * Deno KV, a write made while the end is written would make the end's check fail.
   */
  #run(name: string, owner: string, task: TaskState, run: TaskRun): void {
    const cancel = new AbortController();
    let writing = Promise.resolve();
    let ended = false;
    const write = (next: TaskState, what: string) => {
      writing = writing
        .then(() => this.#replace(name, owner, next))
        .then(
          () => undefined,
          (error: unknown) => this.log.warn(`task store: ${what} of a task was not written: ${(error as Error).message}`),
        );
      return writing;
    };
    const report = (message: string) => {
      const now = reported(task, message);
      if (!ended) void write(now, 'the status message');
      return now;
    };
    const end = (outcome: Parameters<typeof settledTask>[1]) => {
      ended = true;
      return write(settledTask(task, outcome), 'the end');
    };
    const done = run(cancel.signal, task.ttl, report)
      .then(
        (result) => end({ result }),
        (error: unknown) => end({ error }),
      )
      .finally(() => {
        this.#running.delete(name);
        if (this.#running.size === 0) this.#stopWatching();
      });
    this.#running.set(name, { cancel, ended: done });
    this.#watch ??= setInterval(() => void this.#checkCancellations(), CANCEL_CHECK_MS);
  }

  /** Stops the work of the tasks this replica runs that the store says have ended (cancelled elsewhere). */
  async #checkCancellations(): Promise<void> {
    if (this.#checking || this.#running.size === 0) return;
    this.#checking = true;
    try {
      for (const name of await (await this.#backend()).ended([...this.#running.keys()])) this.#running.get(name)?.cancel.abort();
    } catch (error) {
      this.log.debug(`task store: cancellations not read: ${(error as Error).message}`);
    } finally {
      this.#checking = false;
    }
  }

  #stopWatching(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
  }

  /** Writes the task as it now is, while it runs: false once it has ended (or is gone). */
  async #replace(name: string, owner: string, task: TaskState): Promise<boolean> {
    const marginMs = task.status === 'working' ? RUNNING_MARGIN_MS : 0;
    return (await this.#backend()).replaceRunning(name, this.#entry(owner, task, marginMs), await this.#seal(name, task));
  }

  async #read(name: string): Promise<TaskState | undefined> {
    const sealed = await (await this.#backend()).read(name);
    const opened = sealed === undefined ? undefined : await unseal(this.ring, this.#aad(name), sealed);
    if (sealed !== undefined && opened === undefined) this.#warnUnopened();
    return opened?.value as TaskState | undefined;
  }

  /** Once: a replica whose key differs from the others' (or lost the old one too soon) finds none of their tasks. */
  #warnUnopened(): void {
    if (this.#warnedUnopened) return;
    this.#warnedUnopened = true;
    this.log.warn('task store: a task no key of MCP_TOKEN_STORE_KEY opens (sealed by a replica with another key) was treated as absent');
  }

  /** The backend, opened on first use; a failed opening is tried again by the next call. */
  #backend(): Promise<TaskRecords> {
    this.#records ??= this.open().catch((error: unknown) => {
      this.#records = undefined;
      throw error;
    });
    return this.#records;
  }

  /** The index entry: a running task's expires from its start (a status message does not lengthen it), an ended one's from its end. */
  #entry(owner: string, task: TaskState, marginMs: number): TaskEntry {
    const from = task.status === 'working' ? Date.parse(task.createdAt) : Date.now();
    return { status: task.status, owner: this.#owner(owner), expires: from + task.ttl + marginMs };
  }

  #name(owner: string, taskId: string): string {
    return recordName(this.namespace, 'task', owner, taskId);
  }

  #owner(owner: string): string {
    return recordName(this.namespace, 'owner', owner);
  }

  #seal(name: string, task: TaskState): Promise<string> {
    return seal(this.ring, this.#aad(name), task);
  }

  /** A record opens only under its own name, which only its owner and task id give. */
  #aad(name: string): string {
    return `${this.namespace}\0task\0${name}`;
  }
}

/** tasks/result of a task cancelled before it had a result. */
function cancelledResult(task: TaskState): CallToolResult {
  return { content: [{ type: 'text', text: `Task ${task.taskId} was ${task.status satisfies TaskStatus}` }], isError: true };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `work`, or a rejection once `signal` aborts (the request was cancelled or timed out). */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
