// The authorization-server mode's store of short records (pending authorizations, single-use
// codes, grants holding the user's API tokens, refresh tokens). Every value is sealed with
// AES-256-GCM before it leaves the process and every record is named by a hash of its key, so
// neither the file nor Redis holds a usable token: without the key, only expiry times can be read
// (and which records share a cap, by a hashed name).
// The file store (the default) is one process's; replicas share Redis (token-store-redis.ts,
// loaded only when chosen, so a file-store server never loads the redis package).
// Records that anyone may create without signing in (registrations, pending consents) are
// written against a cap of their kind, so that a flood of them is refused on its own and never
// crowds out a signed-in user's grant or refresh token.
import { createHash } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../start/log.js';
import { parseKeyRing as parseRing, seal, SealingKeyError, unseal, type KeyRing } from '../../store/sealing.js';

export interface TokenStore {
  /** The record under key, or undefined (absent, expired, or sealed with a key no longer in the ring). */
  get<T>(key: string): Promise<T | undefined>;
  /**
   * Writes the record (any JSON value) under key for ttlMs milliseconds. With `cap`, at most that
   * many live records written with a cap share the key's kind (its text before the first `:`): a
   * new one beyond it throws StoreFullError. Records written without a cap are never refused.
   */
  put(key: string, value: unknown, ttlMs: number, cap?: number): Promise<void>;
  /** Writes only when absent (or expired); true when written. Of two concurrent calls, one wins. */
  putIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  /** Reads and deletes in one atomic step: of two concurrent takes, only one gets the value (single-use codes, refresh-token rotation). */
  take<T>(key: string): Promise<T | undefined>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface TokenStoreOptions {
  /** 'file', or a redis:// or rediss:// URL. */
  location: string;
  /** Folder of the file store (created 0700 when missing). */
  dataDir: string;
  /** The value of the environment variable MCP_TOKEN_STORE_KEY: one or more 32-byte keys, base64 or base64url, comma-separated; the first seals, all unseal (rotation). */
  keys: string;
  /** Separates servers sharing one Redis or one folder, e.g. the API's name. */
  namespace: string;
}

/** Thrown for a bad key value, an unusable folder, a folder held by another live process, an unreachable Redis: one line, no secret in it. */
export class TokenStoreError extends Error {}

/** A capped kind of record is full (see TokenStore.put): the caller answers 429 or 503, and nothing else is affected. */
export class StoreFullError extends Error {}

/** The cap a record is written against: a hashed name for its kind, and the most live records of it. */
export interface Budget {
  name: string;
  limit: number;
}

/**
 * Where sealed records live, each under its hashed name: what the file and Redis backends share.
 * Values are opaque strings here; sealing and naming happen above.
 */
interface RecordBackend {
  get(name: string): Promise<string | undefined>;
  /** False, writing nothing, when `budget` is full and name is not yet one of its records. */
  put(name: string, sealed: string, ttlMs: number, budget?: Budget): Promise<boolean>;
  putIfAbsent(name: string, sealed: string, ttlMs: number): Promise<boolean>;
  take(name: string): Promise<string | undefined>;
  delete(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openTokenStore(options: TokenStoreOptions, log: Logger): Promise<TokenStore> {
  const ring = parseKeyRing(options.keys);
  const backend = await openBackend(options, log);
  return new SealedTokenStore(backend, ring, options.namespace, log);
}

/** The ring of MCP_TOKEN_STORE_KEY, its errors as the store's. */
function parseKeyRing(value: string): KeyRing {
  try {
    return parseRing(value);
  } catch (error) {
    throw error instanceof SealingKeyError ? new TokenStoreError(error.message) : error;
  }
}

async function openBackend(options: TokenStoreOptions, log: Logger): Promise<RecordBackend> {
  if (options.location === 'file') return FileBackend.open(options.dataDir, log);
  if (/^rediss?:\/\//i.test(options.location)) return openRedis(options.location, log);
  // the location is not echoed: a mistyped URL may still carry a password
  throw new TokenStoreError("the token store's location must be 'file' or a redis:// or rediss:// URL");
}

async function openRedis(url: string, log: Logger): Promise<RecordBackend> {
  const { openRedisBackend } = await import('./token-store-redis.js');
  try {
    return await openRedisBackend(url, log);
  } catch (error) {
    // openRedisBackend's messages name the host and port, never the URL's credentials
    throw new TokenStoreError(error instanceof Error ? error.message : String(error));
  }
}

/** Callers' keys may be raw codes or refresh tokens: only this hash of one is ever written. */
function recordName(namespace: string, key: string): string {
  return createHash('sha256').update(`${namespace}\0${key}`).digest('hex');
}

/** A key's kind: its text before the first `:` (`client:mcp_…` is a `client`). */
function kindOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? key : key.slice(0, colon);
}

function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs < 1) throw new RangeError(`a token store record needs a positive ttlMs, not ${ttlMs}`);
  return Math.ceil(ttlMs);
}

class SealedTokenStore implements TokenStore {
  #warnedUnopened = false;

  constructor(
    private readonly backend: RecordBackend,
    private readonly ring: KeyRing,
    private readonly namespace: string,
    private readonly log: Logger,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    return this.#open<T>(key, await this.backend.get(recordName(this.namespace, key)));
  }

  async put(key: string, value: unknown, ttlMs: number, cap?: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    const budget = cap === undefined ? undefined : { name: recordName(this.namespace, `budget\0${kindOf(key)}`), limit: cap };
    if (!(await this.backend.put(recordName(this.namespace, key), await seal(this.ring, this.#aad(key), value), ttl, budget))) {
      throw new StoreFullError(`the token store holds ${cap} records of kind ${kindOf(key)}: refusing new ones`);
    }
  }

  async putIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.backend.putIfAbsent(recordName(this.namespace, key), await seal(this.ring, this.#aad(key), value), ttl);
  }

  async take<T>(key: string): Promise<T | undefined> {
    return this.#open<T>(key, await this.backend.take(recordName(this.namespace, key)));
  }

  delete(key: string): Promise<void> {
    return this.backend.delete(recordName(this.namespace, key));
  }

  close(): Promise<void> {
    return this.backend.close();
  }

  #aad(key: string): string {
    return `${this.namespace}\0${key}`;
  }

  async #open<T>(key: string, sealed: string | undefined): Promise<T | undefined> {
    if (sealed === undefined) return undefined;
    const opened = await unseal(this.ring, this.#aad(key), sealed);
    if (!opened) this.#warnUnopened();
    return opened?.value as T | undefined;
  }

  /** Once: after a key left the ring every old record fails, and one line says why. */
  #warnUnopened(): void {
    if (this.#warnedUnopened) return;
    this.#warnedUnopened = true;
    this.log.warn(
      'token store: a record no key of MCP_TOKEN_STORE_KEY opens (sealed with a key since removed, or altered) is treated as absent',
    );
  }
}

// ---- the file store ----

const FILE_NAME = 'tokens.jsonl';
/** The whole-file store of earlier versions: read once when no log exists, then replaced by it. */
const OLD_FILE_NAME = 'tokens.json';
const LOCK_NAME = 'tokens.lock';
const FILE_FORMAT = 2;
/** The log is rewritten once it holds this many lines more than live records, and twice as many. */
const MIN_OBSOLETE_LINES = 1_000;
/** Expired records leave memory at least this often (a read drops its own at once). */
const SWEEP_INTERVAL_MS = 60_000;
/** A full budget looks for expired records of it at most this often, so refusals stay cheap. */
const FULL_SWEEP_INTERVAL_MS = 1_000;

interface FileRecord {
  /** Expiry, ms since the epoch. */
  e: number;
  /** The sealed value. */
  s: string;
  /** The budget it was written against. */
  b?: string;
}

/** One line of the log: a record written, or deleted (`d`). */
type LogLine = ({ n: string } & FileRecord) | { n: string; d: 1 };

/**
 * All records in memory; on disk a log of changes, one JSON line each, appended and synced after
 * each change, so that a change costs its own line whatever the store holds. The log is rewritten
 * whole (atomically) at open and once most of its lines are obsolete. Changes are made in memory
 * at once (so putIfAbsent and take are atomic within the process) and appended in order; changes
 * made while an append waits share it.
 */
class FileBackend implements RecordBackend {
  #writing: Promise<void> = Promise.resolve();
  #nextWrite: Promise<void> | undefined;
  /** Log lines of changes not yet appended. */
  #queued: string[] = [];
  /** Lines in the log file, the format line included. */
  #lines: number;
  /** After a failed append the file may end in half a line: the next write rewrites it whole. */
  #rewriteNext = false;
  #lastSweep = Date.now();
  #closed = false;
  readonly #counts = new Map<string, number>();

  private constructor(
    private readonly dir: string,
    private readonly records: Map<string, FileRecord>,
  ) {
    for (const record of records.values()) this.#count(record.b, 1);
    this.#lines = records.size + 1;
  }

  static async open(dir: string, log: Logger): Promise<FileBackend> {
    await makeFolder(dir);
    await takeLock(dir);
    try {
      const records = await loadRecords(dir);
      // A log a crash cut short ends in half a line: rewritten before anything is appended to it.
      await writeWhole(dir, records);
      await unlink(join(dir, OLD_FILE_NAME)).catch(() => undefined);
      const backend = new FileBackend(dir, records);
      log.info(`token store: ${join(dir, FILE_NAME)} (${records.size} records)`);
      return backend;
    } catch (error) {
      await releaseLock(dir);
      throw error;
    }
  }

  async get(name: string): Promise<string | undefined> {
    this.#checkOpen();
    return this.#live(name)?.s;
  }

  async put(name: string, sealed: string, ttlMs: number, budget?: Budget): Promise<boolean> {
    this.#checkOpen();
    if (budget && !this.#roomIn(name, budget)) return false;
    this.#set(name, { e: Date.now() + ttlMs, s: sealed, ...(budget ? { b: budget.name } : {}) });
    await this.#persist();
    return true;
  }

  async putIfAbsent(name: string, sealed: string, ttlMs: number): Promise<boolean> {
    this.#checkOpen();
    if (this.#live(name)) return false;
    await this.put(name, sealed, ttlMs);
    return true;
  }

  async take(name: string): Promise<string | undefined> {
    this.#checkOpen();
    const record = this.#live(name);
    if (!record) return undefined;
    this.#remove(name);
    await this.#persist();
    return record.s;
  }

  async delete(name: string): Promise<void> {
    this.#checkOpen();
    if (this.#remove(name)) await this.#persist();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writing;
    await releaseLock(this.dir);
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('the token store is closed');
  }

  /** The record when present and not expired (TTLs are checked on read). */
  #live(name: string): FileRecord | undefined {
    const record = this.records.get(name);
    if (!record || record.e > Date.now()) return record;
    this.#forget(name);
    return undefined;
  }

  #roomIn(name: string, budget: Budget): boolean {
    if (this.records.get(name)?.b === budget.name || (this.#counts.get(budget.name) ?? 0) < budget.limit) return true;
    this.#sweep(FULL_SWEEP_INTERVAL_MS);
    return (this.#counts.get(budget.name) ?? 0) < budget.limit;
  }

  #set(name: string, record: FileRecord): void {
    this.#forget(name);
    this.records.set(name, record);
    this.#count(record.b, 1);
    this.#queued.push(JSON.stringify({ n: name, ...record } satisfies LogLine));
  }

  #remove(name: string): boolean {
    if (!this.#forget(name)) return false;
    this.#queued.push(JSON.stringify({ n: name, d: 1 } satisfies LogLine));
    return true;
  }

  /** Out of memory only: an expired record needs no line, the log's reader drops it too. */
  #forget(name: string): boolean {
    const record = this.records.get(name);
    if (!record) return false;
    this.records.delete(name);
    this.#count(record.b, -1);
    return true;
  }

  #count(budget: string | undefined, change: number): void {
    if (budget !== undefined) this.#counts.set(budget, (this.#counts.get(budget) ?? 0) + change);
  }

  #sweep(interval: number): void {
    const now = Date.now();
    if (now - this.#lastSweep < interval) return;
    this.#lastSweep = now;
    for (const [name, record] of this.records) if (record.e <= now) this.#forget(name);
  }

  /** Resolves once the state of this moment is on disk. */
  #persist(): Promise<void> {
    if (!this.#nextWrite) {
      const write = this.#writing.then(() => {
        this.#nextWrite = undefined;
        return this.#write();
      });
      this.#nextWrite = write;
      // a failed write rejects its own callers and does not stop the later ones
      this.#writing = write.catch(() => undefined);
    }
    return this.#nextWrite;
  }

  /** Appends the queued lines, or rewrites the log when most of it would be obsolete. */
  async #write(): Promise<void> {
    this.#sweep(SWEEP_INTERVAL_MS);
    const lines = this.#queued.splice(0);
    const live = this.records.size;
    const obsolete = this.#lines + lines.length > Math.max(2 * live, live + MIN_OBSOLETE_LINES);
    try {
      if (this.#rewriteNext || obsolete) {
        this.#sweep(0);
        await writeWhole(this.dir, this.records);
        this.#lines = live + 1;
        this.#rewriteNext = false;
      } else if (lines.length > 0) {
        await appendLines(join(this.dir, FILE_NAME), lines);
        this.#lines += lines.length;
      }
    } catch (error) {
      this.#rewriteNext = true;
      throw error;
    }
  }
}

function dropExpired(records: Map<string, FileRecord>): void {
  const now = Date.now();
  for (const [name, record] of records) if (record.e <= now) records.delete(name);
}

async function makeFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new TokenStoreError(`the token store's folder ${dir} cannot be made (${codeOf(error)})`);
  }
}

/** The log's records, else those of an earlier version's whole file, else none; expired ones dropped. */
async function loadRecords(dir: string): Promise<Map<string, FileRecord>> {
  const logFile = join(dir, FILE_NAME);
  const logText = await readIfPresent(logFile);
  const oldFile = join(dir, OLD_FILE_NAME);
  const records = logText !== undefined ? parseLog(logText, logFile) : parseOldFile((await readIfPresent(oldFile)) ?? '', oldFile);
  dropExpired(records);
  return records;
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new TokenStoreError(`the token store's file ${file} cannot be read (${codeOf(error)})`);
  }
}

const notOurs = (file: string) =>
  new TokenStoreError(`${file} is not a token store file of this server (move it away to start with an empty store)`);

/** Replays the log; a last line cut short by a crash is a change that never completed. */
function parseLog(text: string, file: string): Map<string, FileRecord> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (parseLine(lines[0] ?? '')?.format !== FILE_FORMAT) throw notOurs(file);
  const records = new Map<string, FileRecord>();
  for (let index = 1; index < lines.length; index++) {
    const line = parseLine(lines[index] as string) as LogLine | undefined;
    if (line === undefined || typeof line.n !== 'string') {
      if (index === lines.length - 1) break;
      throw notOurs(file);
    }
    if ('d' in line) records.delete(line.n);
    else records.set(line.n, { e: line.e, s: line.s, ...(line.b !== undefined ? { b: line.b } : {}) });
  }
  return records;
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(line) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `{ format: 1, records }`, as earlier versions rewrote it whole after each change; '' is none. */
function parseOldFile(text: string, file: string): Map<string, FileRecord> {
  if (text === '') return new Map();
  const parsed = parseLine(text);
  if (parsed?.format !== 1 || typeof parsed.records !== 'object' || parsed.records === null) throw notOurs(file);
  return new Map(Object.entries(parsed.records as Record<string, FileRecord>));
}

/** Temp file in the same folder, fsync, rename, fsync the folder: the log is always whole. */
async function writeWhole(dir: string, records: Map<string, FileRecord>): Promise<void> {
  const now = Date.now();
  const lines = [JSON.stringify({ format: FILE_FORMAT })];
  for (const [name, record] of records) if (record.e > now) lines.push(JSON.stringify({ n: name, ...record } satisfies LogLine));
  const temp = join(dir, `${FILE_NAME}.${process.pid}.tmp`);
  await writeSynced(await open(temp, 'w', 0o600), `${lines.join('\n')}\n`);
  await rename(temp, join(dir, FILE_NAME));
  await syncFolder(dir);
}

async function appendLines(file: string, lines: string[]): Promise<void> {
  await writeSynced(await open(file, 'a', 0o600), `${lines.join('\n')}\n`);
}

async function writeSynced(handle: FileHandle, text: string): Promise<void> {
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// ---- one process per folder ----

/** The lock file holds the owner's pid; a lock whose pid is gone (a crash) is taken over. */
async function takeLock(dir: string): Promise<void> {
  const lock = join(dir, LOCK_NAME);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createLock(dir, lock)) return;
    const owner = await lockOwner(lock);
    if (owner !== undefined && isAlive(owner)) {
      throw new TokenStoreError(
        `another server (pid ${owner}) uses the token store folder ${dir}: replicas need a shared store, a redis:// URL`,
      );
    }
    await unlink(lock).catch(() => undefined);
  }
  throw new TokenStoreError(`the token store's lock ${lock} cannot be taken`);
}

/** Exclusive creation with the pid already inside: a hard link of a finished temp file. */
async function createLock(dir: string, lock: string): Promise<boolean> {
  const temp = join(dir, `${LOCK_NAME}.${process.pid}.tmp`);
  try {
    await writeFile(temp, String(process.pid), { mode: 0o600 });
    await link(temp, lock);
    return true;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw new TokenStoreError(`the token store's folder ${dir} is not writable (${codeOf(error)})`);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function lockOwner(lock: string): Promise<number | undefined> {
  const text = await readFile(lock, 'utf8').catch(() => '');
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return codeOf(error) === 'EPERM';
  }
}

/** Removes the lock only while it is still this process's. */
async function releaseLock(dir: string): Promise<void> {
  const lock = join(dir, LOCK_NAME);
  if ((await lockOwner(lock)) === process.pid) await unlink(lock).catch(() => undefined);
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'error';
}
