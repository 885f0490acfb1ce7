// What a store the replicas share holds of tasks (Redis, Deno KV): each task's sealed record under
// a hashed name, and an index of what deciding about tasks needs (running or not, the owner's
// hash, the expiry), nothing secret. The port between the shared task store
// (long-running/tasks-shared.ts) and its backends.
import type { TaskEntry } from '../long-running/tasks.js';

export interface TaskRecords {
  /**
   * Adds a task's record, as long as `admit` (tasks.ts) allows: an ended task may be evicted to
   * make room ('added'), its owner may have too many running ('busy'), or every task kept may be
   * running ('full'). Atomically where the backend can (Redis).
   */
  add(name: string, entry: TaskEntry, sealed: string): Promise<'added' | 'busy' | 'full'>;
  /**
   * Replaces a running task's record and entry, as it tells where it is (its status message),
   * ends, or is cancelled; false when it had already ended, or is gone.
   */
  replaceRunning(name: string, entry: TaskEntry, sealed: string): Promise<boolean>;
  /** The task's sealed record, while it is kept. */
  read(name: string): Promise<string | undefined>;
  /** The names of the live tasks of an owner (by its hash). */
  owned(owner: string): Promise<string[]>;
  /** Of `names`, those no longer running: ended, cancelled, or gone. */
  ended(names: string[]): Promise<string[]>;
  /** Lets go of the connection, once opened. */
  close(): Promise<void>;
}
