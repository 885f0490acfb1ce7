// Where operations past their call's wait are kept, by handle, until get_operation_status takes
// them: in the server's memory (the default: a handle works on the process that made it), or in a
// store the replicas share (--operation-store), so that any replica, isolate or instance follows
// any handle. A shared store holds each operation sealed with MCP_TOKEN_STORE_KEY (as the token
// store holds its records) under a hash of its owner and handle: neither the handle, nor the
// status URL, nor the owner's digest is readable there, and another caller's handle names
// nothing. Credentials are never part of an operation (the owner is a digest of them).

import { OPERATION_STATUS } from '../../contract/meta-tools.js';
import type { Logger } from '../start/log.js';
import { parseKeyRing, seal, unseal, type KeyRing } from '../store/sealing.js';
import { fromBase64, randomBytes, toBase64, toBase64Url } from '../start/crypto.js';
import { recordName, type SharedRecords } from '../store/shared-records.js';
import type { Tracking } from './tracking.js';

/** Operations by handle, each bound to its owner. */
export interface OperationStore {
  /** The operation's new handle; undefined when there is no room for it. */
  save(tracking: Tracking, owner: string): Promise<string | undefined>;
  /** The operation, taken out while it is followed (save it again if it is still running); or why not. */
  take(handle: string, owner: string): Promise<{ tracking: Tracking } | { problem: string }>;
  /** Lets go of a shared store's connection, once it has been opened. */
  close(): Promise<void>;
  /** How many operations it keeps for other callers at most, for the message when it is full. */
  readonly capacity: number;
}

/** Where operations are kept: the --operation-store setting, with the key that seals them. */
export interface OperationStoreSetting {
  /** 'memory', a redis:// or rediss:// URL, 'deno-kv' or 'deno-kv:PATH', 'workers-kv:BINDING'. */
  location: string;
  /** MCP_TOKEN_STORE_KEY: required by every store but memory. */
  keys?: string;
}

/** Handles kept at most (in memory), and for how long after their last use. */
const MAX_OPERATIONS = 1_000;
const OPERATION_TTL_MS = 3_600_000;
/** Handles one caller may hold: past it their own oldest goes, so that no caller fills the store alone. */
const MAX_OPERATIONS_PER_OWNER = 100;

const newHandle = () => `op_${toBase64Url(randomBytes(18))}`;
const unknownHandle = (where: string) =>
  `${OPERATION_STATUS}: no operation with this handle (it finished and was answered, it expired after an hour, or it was started ${where})`;

/** The store `setting` names; `namespace` (the API's name) separates servers sharing one. */
export function openOperationStore(setting: OperationStoreSetting | undefined, namespace: string, log: Logger): OperationStore {
  if (setting === undefined || setting.location === 'memory') return new MemoryOperationStore();
  return new SharedOperationStore(() => openRecords(setting.location, log), parseKeyRing(setting.keys ?? ''), namespace, log);
}

/** The backend of a shared store, loaded on first use (the redis package only for a redis:// URL). */
async function openRecords(location: string, log: Logger): Promise<SharedRecords> {
  if (/^rediss?:\/\//i.test(location)) {
    const { openRedisRecords } = await import('./operation-store-redis.js');
    return openRedisRecords(location, log);
  }
  const { openKvRecords } = await import('./operation-store-kv.js');
  return openKvRecords(location, log);
}

/**
 * Operations in this process, by handle: forgotten an hour after their last use or when their
 * owner has too many. Another caller's handles never make room for one: each is an operation
 * still running. A handle works on the server process that made it (stdio, a session, or
 * replicas with affinity).
 */
export class MemoryOperationStore implements OperationStore {
  readonly capacity = MAX_OPERATIONS;
  private readonly entries = new Map<string, { tracking: Tracking; owner: string; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  save(tracking: Tracking, owner: string): Promise<string | undefined> {
    this.sweep();
    const own = [...this.entries].filter(([, entry]) => entry.owner === owner).map(([handle]) => handle);
    // Entries are in the order they were saved: the first of the owner's is its oldest.
    if (own.length >= MAX_OPERATIONS_PER_OWNER || (this.entries.size >= MAX_OPERATIONS && own.length > 0))
      this.entries.delete(own[0] as string);
    if (this.entries.size >= MAX_OPERATIONS) return Promise.resolve(undefined);
    const handle = newHandle();
    this.entries.set(handle, { tracking, owner, expires: this.now() + OPERATION_TTL_MS });
    return Promise.resolve(handle);
  }

  take(handle: string, owner: string): Promise<{ tracking: Tracking } | { problem: string }> {
    this.sweep();
    const entry = this.entries.get(handle);
    if (entry === undefined || entry.owner !== owner) {
      return Promise.resolve({ problem: unknownHandle('on another server process or by another caller') });
    }
    this.entries.delete(handle);
    return Promise.resolve({ tracking: entry.tracking });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private sweep(): void {
    const now = this.now();
    for (const [handle, entry] of this.entries) if (entry.expires <= now) this.entries.delete(handle);
  }
}

/**
 * Operations in a store the replicas share: each sealed, under a hash of namespace, owner and
 * handle; an owner's records form a group of at most MAX_OPERATIONS_PER_OWNER (its oldest goes
 * first). There is no cap over all callers: the store's size is the operator's.
 */
class SharedOperationStore implements OperationStore {
  readonly capacity = Number.POSITIVE_INFINITY;
  #records: Promise<SharedRecords> | undefined;
  #warnedUnopened = false;

  constructor(
    private readonly open: () => Promise<SharedRecords>,
    private readonly ring: KeyRing,
    private readonly namespace: string,
    private readonly log: Logger,
  ) {}

  async save(tracking: Tracking, owner: string): Promise<string | undefined> {
    const handle = newHandle();
    const group = { name: this.#hash('owner', owner), limit: MAX_OPERATIONS_PER_OWNER };
    const sealed = await seal(this.ring, this.#aad(owner, handle), storedOf(tracking));
    await (await this.#backend()).put(this.#hash('operation', owner, handle), sealed, OPERATION_TTL_MS, group);
    return handle;
  }

  async take(handle: string, owner: string): Promise<{ tracking: Tracking } | { problem: string }> {
    const records = await this.#backend();
    const sealed = await records.take(this.#hash('operation', owner, handle), this.#hash('owner', owner));
    const opened = sealed === undefined ? undefined : await unseal(this.ring, this.#aad(owner, handle), sealed);
    if (sealed !== undefined && opened === undefined) this.#warnUnopened();
    if (opened === undefined) return { problem: unknownHandle('by another caller') };
    return { tracking: trackingOf(opened.value as StoredTracking) };
  }

  async close(): Promise<void> {
    const records = await this.#records?.catch(() => undefined);
    await records?.close();
  }

  /** Once: a replica whose key differs from the others' (or lost the old one too soon) spends their handles unread. */
  #warnUnopened(): void {
    if (this.#warnedUnopened) return;
    this.#warnedUnopened = true;
    this.log.warn(
      'operation store: a handle no key of MCP_TOKEN_STORE_KEY opens (sealed by a replica with another key, or with a key since removed) was treated as absent, and is gone',
    );
  }

  /** The backend, opened on first use; a failed opening is tried again by the next call. */
  #backend(): Promise<SharedRecords> {
    this.#records ??= this.open().catch((error: unknown) => {
      this.#records = undefined;
      throw error;
    });
    return this.#records;
  }

  #hash(...parts: string[]): string {
    return recordName(this.namespace, ...parts);
  }

  #aad(owner: string, handle: string): string {
    return `${this.namespace}\0operation\0${owner}\0${handle}`;
  }
}

/** A Tracking as JSON: its last answer's bytes in base64. */
type StoredTracking = Omit<Tracking, 'last'> & { last?: Omit<NonNullable<Tracking['last']>, 'bytes'> & { bytes: string } };

function storedOf(tracking: Tracking): StoredTracking {
  const { last, ...rest } = tracking;
  return last === undefined ? rest : { ...rest, last: { ...last, bytes: toBase64(last.bytes) } };
}

function trackingOf(stored: StoredTracking): Tracking {
  const { last, ...rest } = stored;
  return last === undefined ? rest : { ...rest, last: { ...last, bytes: fromBase64(last.bytes) } };
}
