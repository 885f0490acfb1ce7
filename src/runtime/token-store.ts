// The authorization-server mode's store of short records (pending authorizations, single-use
// codes, grants holding the user's API tokens, refresh tokens). Every value is sealed with
// AES-256-GCM before it leaves the process and every record is named by a hash of its key, so
// neither the file nor Redis holds a usable token: only expiry times are readable without the key.
// The file store (the default) is one process's; replicas share Redis (token-store-redis.ts,
// loaded only when chosen, so a file-store server never loads the redis package).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from './log.js';

export interface TokenStore {
  /** The record under key, or undefined (absent, expired, or sealed with a key no longer in the ring). */
  get<T>(key: string): Promise<T | undefined>;
  /** Writes the record (any JSON value) under key for ttlMs milliseconds. */
  put(key: string, value: unknown, ttlMs: number): Promise<void>;
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

/**
 * Where sealed records live, each under its hashed name: what the file and Redis backends share.
 * Values are opaque strings here; sealing and naming happen above.
 */
interface RecordBackend {
  get(name: string): Promise<string | undefined>;
  put(name: string, sealed: string, ttlMs: number): Promise<void>;
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

// ---- keys and sealing ----

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEAL_VERSION = 'v1';
const HOW_TO_MAKE_A_KEY = 'make one with: openssl rand -base64 32';

interface SealingKey {
  /** First 8 hex digits of SHA-256 of the key: names the key in each sealed record. */
  id: string;
  secret: Buffer;
}

interface KeyRing {
  /** Seals every write. */
  current: SealingKey;
  /** Opens records sealed by any key of the ring, the current one included. */
  byId: Map<string, SealingKey>;
}

function parseKeyRing(value: string): KeyRing {
  const texts = value.split(',').map((text) => text.trim());
  if (value.trim() === '') throw new TokenStoreError(`MCP_TOKEN_STORE_KEY is not set (${HOW_TO_MAKE_A_KEY})`);
  const keys = texts.map((text, index) => parseKey(text, index, texts.length));
  return { current: keys[0]!, byId: new Map(keys.map((key) => [key.id, key])) };
}

function parseKey(text: string, index: number, count: number): SealingKey {
  const secret = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (secret?.length !== KEY_BYTES) {
    // never the key itself: only which one of the list is wrong
    const which = count > 1 ? ` (key ${index + 1} of ${count})` : '';
    throw new TokenStoreError(`MCP_TOKEN_STORE_KEY${which} is not ${KEY_BYTES} bytes in base64 or base64url (${HOW_TO_MAKE_A_KEY})`);
  }
  return { id: createHash('sha256').update(secret).digest('hex').slice(0, 8), secret };
}

/** `v1.<key id>.<iv>.<ciphertext and tag>`, base64url; the AAD binds the record to its key. */
function seal(ring: KeyRing, aad: Buffer, value: unknown): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', ring.current.secret, iv).setAAD(aad);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value) ?? 'null', 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [SEAL_VERSION, ring.current.id, iv.toString('base64url'), sealed.toString('base64url')].join('.');
}

/** The value, or undefined when no key of the ring opens it (an unknown key id, another AAD, altered bytes). */
function unseal(ring: KeyRing, aad: Buffer, text: string): { value: unknown } | undefined {
  const [version, id, ivText, sealedText, extra] = text.split('.');
  const key = id === undefined ? undefined : ring.byId.get(id);
  if (version !== SEAL_VERSION || !key || ivText === undefined || sealedText === undefined || extra !== undefined) return undefined;
  const iv = Buffer.from(ivText, 'base64url');
  const sealed = Buffer.from(sealedText, 'base64url');
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.secret, iv).setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
    return { value: JSON.parse(plain.toString('utf8')) };
  } catch {
    return undefined;
  }
}

/** Callers' keys may be raw codes or refresh tokens: only this hash of one is ever written. */
function recordName(namespace: string, key: string): string {
  return createHash('sha256').update(`${namespace}\0${key}`).digest('hex');
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

  async put(key: string, value: unknown, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    await this.backend.put(recordName(this.namespace, key), seal(this.ring, this.#aad(key), value), ttl);
  }

  async putIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.backend.putIfAbsent(recordName(this.namespace, key), seal(this.ring, this.#aad(key), value), ttl);
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

  #aad(key: string): Buffer {
    return Buffer.from(`${this.namespace}\0${key}`, 'utf8');
  }

  #open<T>(key: string, sealed: string | undefined): T | undefined {
    if (sealed === undefined) return undefined;
    const opened = unseal(this.ring, this.#aad(key), sealed);
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

const FILE_NAME = 'tokens.json';
const LOCK_NAME = 'tokens.lock';
const FILE_FORMAT = 1;
/** Beyond this the store refuses new records rather than grow (and rewrite) without limit. */
const MAX_FILE_RECORDS = 100_000;

interface FileRecord {
  /** Expiry, ms since the epoch. */
  e: number;
  /** The sealed value. */
  s: string;
}

interface StoreFile {
  format: number;
  records: Record<string, FileRecord>;
}

/**
 * All records in memory, the whole file rewritten atomically after every change. Changes are
 * made in memory at once (so putIfAbsent and take are atomic within the process) and written one
 * at a time, in order; changes made while a write waits share it.
 */
class FileBackend implements RecordBackend {
  #writing: Promise<void> = Promise.resolve();
  #nextWrite: Promise<void> | undefined;
  #closed = false;

  private constructor(
    private readonly dir: string,
    private readonly records: Map<string, FileRecord>,
  ) {}

  static async open(dir: string, log: Logger): Promise<FileBackend> {
    await makeFolder(dir);
    await takeLock(dir);
    try {
      const backend = new FileBackend(dir, await loadRecords(join(dir, FILE_NAME)));
      log.info(`token store: ${join(dir, FILE_NAME)} (${backend.records.size} records)`);
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

  async put(name: string, sealed: string, ttlMs: number): Promise<void> {
    this.#checkOpen();
    this.#makeRoomFor(name);
    this.records.set(name, { e: Date.now() + ttlMs, s: sealed });
    await this.#persist();
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
    this.records.delete(name);
    await this.#persist();
    return record.s;
  }

  async delete(name: string): Promise<void> {
    this.#checkOpen();
    if (this.records.delete(name)) await this.#persist();
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
    this.records.delete(name);
    return undefined;
  }

  #makeRoomFor(name: string): void {
    if (this.records.has(name) || this.records.size < MAX_FILE_RECORDS) return;
    dropExpired(this.records);
    if (this.records.size >= MAX_FILE_RECORDS) {
      throw new TokenStoreError(`the token store's file holds ${MAX_FILE_RECORDS} live records: refusing new ones`);
    }
  }

  /** Resolves once the state of this moment is on disk. */
  #persist(): Promise<void> {
    if (!this.#nextWrite) {
      const write = this.#writing.then(() => {
        this.#nextWrite = undefined;
        return writeRecords(this.dir, this.records);
      });
      this.#nextWrite = write;
      // a failed write rejects its own callers and does not stop the later ones
      this.#writing = write.catch(() => undefined);
    }
    return this.#nextWrite;
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

async function loadRecords(file: string): Promise<Map<string, FileRecord>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return new Map();
    throw new TokenStoreError(`the token store's file ${file} cannot be read (${codeOf(error)})`);
  }
  const records = new Map(Object.entries(parseStoreFile(text, file).records));
  dropExpired(records);
  return records;
}

function parseStoreFile(text: string, file: string): StoreFile {
  try {
    const parsed = JSON.parse(text) as StoreFile;
    if (parsed.format === FILE_FORMAT && typeof parsed.records === 'object' && parsed.records !== null) return parsed;
  } catch {
    // reported below
  }
  throw new TokenStoreError(`${file} is not a token store file of this server (move it away to start with an empty store)`);
}

/** Temp file in the same folder, fsync, rename, fsync the folder: the file is always whole. */
async function writeRecords(dir: string, records: Map<string, FileRecord>): Promise<void> {
  dropExpired(records);
  const contents: StoreFile = { format: FILE_FORMAT, records: Object.fromEntries(records) };
  const temp = join(dir, `${FILE_NAME}.${process.pid}.tmp`);
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(contents));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, join(dir, FILE_NAME));
  await syncFolder(dir);
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
