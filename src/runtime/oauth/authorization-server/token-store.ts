// The authorization-server mode's store of short records (pending authorizations, single-use
// codes, grants holding the user's API tokens, refresh tokens). Every value is sealed with
// AES-256-GCM before it leaves the process and every record is named by a hash of its key, so
// neither the file nor a shared store holds a usable token: without the key, only expiry times can
// be read (and which records share a cap, by a hashed name).
// The file store (the default, token-store-file.ts) is one Node process's; replicas share Redis
// (token-store-redis.ts), and the platforms' isolates Workers KV or Deno KV (token-store-kv.ts):
// each backend is loaded only when chosen, so that no server loads another's packages or node:fs.
// Records that anyone may create without signing in (registrations, pending consents) are
// written against a cap of their kind, so that a flood of them is refused on its own and never
// crowds out a signed-in user's grant or refresh token.
import type { Logger } from '../../start/log.js';
import { parseKeyRing as parseRing, seal, SealingKeyError, unseal, type KeyRing } from '../../store/sealing.js';
import { recordName as sharedRecordName } from '../../store/shared-records.js';

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
  /** 'file', a redis:// or rediss:// URL, 'durable-object:BINDING', 'workers-kv:BINDING', or 'deno-kv' / 'deno-kv:PATH'. */
  location: string;
  /** Folder of the file store (created 0700 when missing). */
  dataDir: string;
  /** The value of the environment variable MCP_TOKEN_STORE_KEY: one or more 32-byte keys, base64 or base64url, comma-separated; the first seals, all unseal (rotation). */
  keys: string;
  /** Separates servers sharing one store or one folder, e.g. the API's name. */
  namespace: string;
}

/** Thrown for a bad key value, an unusable folder, a folder held by another live process, an unreachable Redis, a missing KV: one line, no secret in it. */
export class TokenStoreError extends Error {}

/** A capped kind of record is full (see TokenStore.put): the caller answers 429 or 503, and nothing else is affected. */
export class StoreFullError extends Error {}

/** The cap a record is written against: a hashed name for its kind, and the most live records of it. */
export interface Budget {
  name: string;
  limit: number;
}

/**
 * Where sealed records live, each under its hashed name: what the file, Redis and KV backends
 * share. Values are opaque strings here; sealing and naming happen above.
 */
export interface RecordBackend {
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
  const { location } = options;
  if (location === 'file') return openFile(options.dataDir, log);
  if (/^rediss?:\/\//i.test(location))
    return openShared(async () => (await import('./token-store-redis.js')).openRedisBackend(location, log));
  if (/^(workers-kv|deno-kv|durable-object)(:|$)/.test(location))
    return openShared(async () => (await import('./token-store-kv.js')).openKvBackend(location, log));
  // the location is not echoed: a mistyped URL may still carry a password
  throw new TokenStoreError(
    "the token store's location must be 'file', a redis:// or rediss:// URL, durable-object:BINDING, workers-kv:BINDING or deno-kv",
  );
}

async function openFile(dir: string, log: Logger): Promise<RecordBackend> {
  const { openFileBackend, FileStoreError } = await import('./token-store-file.js');
  try {
    return await openFileBackend(dir, log);
  } catch (error) {
    throw error instanceof FileStoreError ? new TokenStoreError(error.message) : error;
  }
}

/**
 * A shared backend (Redis, Workers KV, Deno KV), loaded only when chosen; its failure to open as
 * one TokenStoreError line: their messages name a host and port, a binding or Deno's flag, never
 * a URL's credentials.
 */
async function openShared(open: () => Promise<RecordBackend>): Promise<RecordBackend> {
  try {
    return await open();
  } catch (error) {
    throw new TokenStoreError(error instanceof Error ? error.message : String(error));
  }
}

/** Callers' keys may be raw codes or refresh tokens: only this hash of one is ever written. */
const recordName = (namespace: string, key: string): string => sharedRecordName(namespace, key);

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

  async delete(key: string): Promise<void> {
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
