// The platforms' key-value stores as the shared stores use them (the operation store's
// long-running/operation-store-kv.ts, the token store's oauth/authorization-server/token-store-kv.ts):
// Deno KV (`Deno.openKv`, which needs --unstable-kv) and a Workers KV namespace bound under a
// name (which the Cloudflare entry passes in as a binding). Records are kept as `{ s, e }`: the
// sealed value and its expiry in ms, since neither store drops a record at the exact moment
// (Workers KV keeps one at least 60 s, Deno KV deletes expired ones eventually).
import { platform } from '../start/platform.js';

/** A record as kept: the sealed value, and when it expires (ms; a store may keep it a little longer). */
export interface KvRecord {
  s: string;
  e: number;
}

/** Workers KV's least expirationTtl, in seconds. */
const WORKERS_KV_MIN_TTL_S = 60;

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

export interface WorkersKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number; metadata?: unknown }): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix: string; cursor?: string }): Promise<{
    keys: { name: string; metadata?: unknown }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

/** Deno KV at `path` (Deno's default database when ''), for `what` ('the token store'). */
export async function openDenoKv(path: string, what: string): Promise<DenoKv> {
  const deno = (globalThis as { Deno?: { openKv?: (path?: string) => Promise<DenoKv> } }).Deno;
  if (typeof deno?.openKv !== 'function') throw new Error(`${what} deno-kv needs Deno started with --unstable-kv`);
  return deno.openKv(path === '' ? undefined : path);
}

/** The Workers KV namespace bound as `binding`, for `what` ('the token store'). */
export function workersKvBinding(binding: string, what: string): WorkersKv {
  const kv = platform().bindings?.[binding] as WorkersKv | undefined;
  if (typeof kv?.get !== 'function') {
    throw new Error(`${what} workers-kv:${binding} needs a KV namespace bound as ${binding} (kv_namespaces in wrangler.jsonc)`);
  }
  return kv;
}

/** The record's text and the put options that keep it at least `ttlMs` (Workers KV: 60 s at least). */
export function workersKvRecord(sealed: string, ttlMs: number): [string, { expirationTtl: number; metadata: { e: number } }] {
  const e = Date.now() + ttlMs;
  return [
    JSON.stringify({ s: sealed, e } satisfies KvRecord),
    { expirationTtl: Math.max(WORKERS_KV_MIN_TTL_S, Math.ceil(ttlMs / 1000)), metadata: { e } },
  ];
}

/** A kept record's sealed value while it has not expired. */
export function liveValue(record: KvRecord | null | undefined): string | undefined {
  return record !== null && record !== undefined && record.e > Date.now() ? record.s : undefined;
}

/** Deno KV entries' live records (their value's `e`), oldest first. */
export async function liveRecords(entries: AsyncIterable<{ key: unknown[]; value: unknown }>) {
  const live: { key: unknown[]; e: number }[] = [];
  const now = Date.now();
  for await (const entry of entries) {
    const e = (entry.value as KvRecord).e;
    if (e > now) live.push({ key: entry.key, e });
  }
  return live.sort((a, b) => a.e - b.e);
}

/** The live records under `prefix` in Workers KV, oldest first (their expiry is in each key's metadata). */
export async function listedRecords(kv: WorkersKv, prefix: string) {
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

/** Reads and deletes a Deno KV record atomically (a versionstamp check): of two takers, the one whose delete commits first gets it. */
export async function takeDenoKv(kv: DenoKv, key: unknown[]): Promise<string | undefined> {
  const entry = await kv.get(key);
  const sealed = liveValue(entry.value as KvRecord | null);
  if (sealed === undefined) return undefined;
  const taken = await kv.atomic().check({ key, versionstamp: entry.versionstamp }).delete(key).commit();
  return taken.ok ? sealed : undefined;
}

/**
 * Reads, then deletes, a Workers KV record: not atomic (Workers KV has no conditional write, and
 * is eventually consistent across locations, up to 60 s), so two takers may both get it.
 */
export async function takeWorkersKv(kv: WorkersKv, key: string): Promise<string | undefined> {
  const text = await kv.get(key);
  if (text === null) return undefined;
  await kv.delete(key);
  return liveValue(JSON.parse(text) as KvRecord);
}
