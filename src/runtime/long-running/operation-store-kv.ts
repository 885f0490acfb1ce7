// The shared operation store's records in a platform's key-value store, loaded by
// operation-store.ts for `deno-kv[:PATH]` (Deno KV, `Deno.openKv`, which needs --unstable-kv) or
// `workers-kv:BINDING` (the Workers KV namespace bound under that name, which the Cloudflare entry
// passes in). Values arrive sealed and names hashed. Deno KV takes a record atomically (a
// versionstamp check); Workers KV cannot (it reads, then deletes, and is eventually consistent
// across locations), so there a handle followed from two places at once may be followed twice.
import type { Logger } from '../start/log.js';
import type { SharedRecords } from '../store/shared-records.js';
import {
  listedRecords,
  liveRecords,
  openDenoKv,
  takeDenoKv,
  takeWorkersKv,
  workersKvBinding,
  workersKvRecord,
  type KvRecord,
} from '../store/kv.js';

const WHAT = 'the operation store';

export async function openKvRecords(location: string, log: Logger): Promise<SharedRecords> {
  const [kind, ...rest] = location.split(':');
  const name = rest.join(':');
  if (kind === 'deno-kv') return denoKv(name, log);
  if (kind === 'workers-kv') return workersKv(name, log);
  throw new Error(`the operation store cannot be ${kind}`);
}

// ---- Deno KV ----

async function denoKv(path: string, log: Logger): Promise<SharedRecords> {
  const kv = await openDenoKv(path, WHAT);
  log.info(`operation store: Deno KV${path === '' ? '' : ` at ${path}`}`);
  const keyOf = (group: string, name: string) => ['mcp-gen', 'op', group, name];
  return {
    async put(name, sealed, ttlMs, group) {
      const live = await liveRecords(kv.list({ prefix: ['mcp-gen', 'op', group.name] }));
      for (const old of live.slice(0, Math.max(0, live.length - group.limit + 1))) await kv.delete(old.key);
      await kv.set(keyOf(group.name, name), { s: sealed, e: Date.now() + ttlMs } satisfies KvRecord, { expireIn: ttlMs });
    },
    // Of two instances taking one handle, the one whose delete commits first gets it.
    take: (name, group) => takeDenoKv(kv, keyOf(group, name)),
    close: () => Promise.resolve(kv.close()),
  };
}

// ---- Workers KV ----

function workersKv(binding: string, log: Logger): SharedRecords {
  const kv = workersKvBinding(binding, WHAT);
  log.info(`operation store: Workers KV bound as ${binding}`);
  const keyOf = (group: string, name: string) => `mcp-gen:op:${group}:${name}`;
  return {
    async put(name, sealed, ttlMs, group) {
      const live = await listedRecords(kv, `mcp-gen:op:${group.name}:`);
      for (const old of live.slice(0, Math.max(0, live.length - group.limit + 1))) await kv.delete(old.name);
      await kv.put(keyOf(group.name, name), ...workersKvRecord(sealed, ttlMs));
    },
    take: (name, group) => takeWorkersKv(kv, keyOf(group, name)),
    // a binding has no connection of its own to let go of
    close: () => Promise.resolve(),
  };
}
