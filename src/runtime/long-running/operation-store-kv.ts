// The shared operation store's records in a platform's key-value store, loaded by
// operation-store.ts for `deno-kv[:PATH]` (Deno KV, `Deno.openKv`, which needs --unstable-kv) or
// `workers-kv:BINDING` (the Workers KV namespace bound under that name, which the Cloudflare entry
// passes in). Values arrive sealed and names hashed. Deno KV takes a record atomically (a
// versionstamp check); Workers KV cannot (it reads, then deletes, and is eventually consistent
// across locations), so there a handle followed from two places at once may be followed twice.
import type { Logger } from '../start/log.js';
import { platform } from '../start/platform.js';
import type { SharedRecords } from '../store/shared-records.js';

/** A record as kept: the sealed value, and when it expires (ms; a store may keep it a little longer). */
interface KvRecord {
  s: string;
  e: number;
}

/** Workers KV's least expirationTtl, in seconds. */
const WORKERS_KV_MIN_TTL_S = 60;

export async function openKvRecords(location: string, log: Logger): Promise<SharedRecords> {
  const [kind, ...rest] = location.split(':');
  const name = rest.join(':');
  if (kind === 'deno-kv') return denoKv(name, log);
  if (kind === 'workers-kv') return workersKv(name, log);
  throw new Error(`the operation store cannot be ${kind}`);
}

// ---- Deno KV ----

/** What the stores use of Deno KV (`Deno.Kv`). */
export interface DenoKv {
  get(key: unknown[]): Promise<{ value: unknown; versionstamp: string | null }>;
  set(key: unknown[], value: unknown, options?: { expireIn?: number }): Promise<unknown>;
  delete(key: unknown[]): Promise<void>;
  list(selector: { prefix: unknown[] }): AsyncIterable<{ key: unknown[]; value: unknown }>;
  atomic(): DenoAtomic;
  close(): void;
}
interface DenoAtomic {
  check(...checks: { key: unknown[]; versionstamp: string | null }[]): DenoAtomic;
  set(key: unknown[], value: unknown, options?: { expireIn?: number }): DenoAtomic;
  delete(key: unknown[]): DenoAtomic;
  commit(): Promise<{ ok: boolean }>;
}

/** `Deno.openKv()` (the deployment's KV; locally a file in Deno's cache), or of the file at `path`. */
export async function openDenoKv(path: string, log: Logger, what: string): Promise<DenoKv> {
  const deno = (globalThis as { Deno?: { openKv?: (path?: string) => Promise<DenoKv> } }).Deno;
  if (typeof deno?.openKv !== 'function') throw new Error(`the ${what} deno-kv needs Deno started with --unstable-kv`);
  const kv = await deno.openKv(path === '' ? undefined : path);
  log.info(`${what}: Deno KV${path === '' ? '' : ` at ${path}`}`);
  return kv;
}

async function denoKv(path: string, log: Logger): Promise<SharedRecords> {
  const kv = await openDenoKv(path, log, 'operation store');
  const keyOf = (group: string, name: string) => ['mcp-gen', 'op', group, name];
  return {
    async put(name, sealed, ttlMs, group) {
      const live = await liveRecords(kv.list({ prefix: ['mcp-gen', 'op', group.name] }));
      for (const old of live.slice(0, Math.max(0, live.length - group.limit + 1))) await kv.delete(old.key);
      await kv.set(keyOf(group.name, name), { s: sealed, e: Date.now() + ttlMs } satisfies KvRecord, { expireIn: ttlMs });
    },
    async take(name, group) {
      const entry = await kv.get(keyOf(group, name));
      const record = entry.value as KvRecord | null;
      if (record === null || record.e <= Date.now()) return undefined;
      // Of two instances taking one handle, the one whose delete commits first gets it.
      const taken = await kv
        .atomic()
        .check({ key: keyOf(group, name), versionstamp: entry.versionstamp })
        .delete(keyOf(group, name))
        .commit();
      return taken.ok ? record.s : undefined;
    },
    close: () => Promise.resolve(kv.close()),
  };
}

/** A group's live records, oldest first. */
async function liveRecords(entries: AsyncIterable<{ key: unknown[]; value: unknown }>) {
  const live: { key: unknown[]; e: number }[] = [];
  const now = Date.now();
  for await (const entry of entries) {
    const e = (entry.value as KvRecord).e;
    if (e > now) live.push({ key: entry.key, e });
  }
  return live.sort((a, b) => a.e - b.e);
}

// ---- Workers KV ----

interface WorkersKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number; metadata?: unknown }): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix: string; cursor?: string }): Promise<{
    keys: { name: string; metadata?: unknown }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

function workersKv(binding: string, log: Logger): SharedRecords {
  const kv = platform().bindings?.[binding] as WorkersKv | undefined;
  if (typeof kv?.get !== 'function') {
    throw new Error(`the operation store workers-kv:${binding} needs a KV namespace bound as ${binding} (kv_namespaces in wrangler.jsonc)`);
  }
  log.info(`operation store: Workers KV bound as ${binding}`);
  const keyOf = (group: string, name: string) => `mcp-gen:op:${group}:${name}`;
  return {
    async put(name, sealed, ttlMs, group) {
      const live = await listedRecords(kv, `mcp-gen:op:${group.name}:`);
      for (const old of live.slice(0, Math.max(0, live.length - group.limit + 1))) await kv.delete(old.name);
      const e = Date.now() + ttlMs;
      const record = JSON.stringify({ s: sealed, e } satisfies KvRecord);
      const expirationTtl = Math.max(WORKERS_KV_MIN_TTL_S, Math.ceil(ttlMs / 1000));
      await kv.put(keyOf(group.name, name), record, { expirationTtl, metadata: { e } });
    },
    async take(name, group) {
      const text = await kv.get(keyOf(group, name));
      if (text === null) return undefined;
      await kv.delete(keyOf(group, name));
      const record = JSON.parse(text) as KvRecord;
      return record.e > Date.now() ? record.s : undefined;
    },
    // a binding has no connection of its own to let go of
    close: () => Promise.resolve(),
  };
}

/** The live records under `prefix`, oldest first (their expiry is in each key's metadata). */
async function listedRecords(kv: WorkersKv, prefix: string) {
  const live: { name: string; e: number }[] = [];
  const now = Date.now();
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const key of page.keys) {
      const e = (key.metadata as { e?: number } | undefined)?.e ?? 0;
      if (e > now) live.push({ name: key.name, e });
    }
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  return live.sort((a, b) => a.e - b.e);
}
