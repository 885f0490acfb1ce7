// The token store's file backend (the default): one process's records in a log of changes under
// --data-dir. Node only (node:fs): token-store.ts imports it for the file location alone, so that
// no other platform loads it. Values arrive sealed and names hashed; this module only moves
// strings. It imports nothing of token-store.ts (which imports it): what it returns fits
// RecordBackend by shape, and its errors are FileStoreError, which token-store.ts shows as they are.
import { link, mkdir, open, readFile, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../start/log.js';

/** A folder or file that cannot be used, or is held by another live process: one line, no secret in it. */
export class FileStoreError extends Error {}

/** The cap a record is written against (token-store.ts's Budget). */
interface Budget {
  name: string;
  limit: number;
}

/** The file store in `dir` (made 0700 when missing), locked for this process. */
export function openFileBackend(dir: string, log: Logger): Promise<FileBackend> {
  return FileBackend.open(dir, log);
}

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
class FileBackend {
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
    throw new FileStoreError(`the token store's folder ${dir} cannot be made (${codeOf(error)})`);
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
    throw new FileStoreError(`the token store's file ${file} cannot be read (${codeOf(error)})`);
  }
}

const notOurs = (file: string) =>
  new FileStoreError(`${file} is not a token store file of this server (move it away to start with an empty store)`);

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
      throw new FileStoreError(
        `another server (pid ${owner}) uses the token store folder ${dir}: replicas need a shared store, a redis:// URL`,
      );
    }
    await unlink(lock).catch(() => undefined);
  }
  throw new FileStoreError(`the token store's lock ${lock} cannot be taken`);
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
    throw new FileStoreError(`the token store's folder ${dir} is not writable (${codeOf(error)})`);
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
