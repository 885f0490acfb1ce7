// The shared task store's records in Deno KV (--operation-store deno-kv[:PATH]), loaded by
// tasks-shared.ts only then. An index entry per task (what admit() of tasks.ts reads, and the
// number of parts of its record) and its sealed record, in parts of CHUNK characters, since Deno
// KV keeps at most 64 KiB under one key and a result may be larger. A running task's rewrite (a
// status message, its end) is one atomic commit, checked against the entry's versionstamp: of a
// cancellation and the run's end, one wins, and nothing is written over an ended task. Admission reads then writes, so replicas starting tasks at one instant may pass the
// caps by a few (as the operation store's groups there).
import type { Logger } from '../start/log.js';
import type { TaskRecords } from '../store/task-records.js';
import { openDenoKv, type DenoKv } from '../store/kv.js';
import { admit, type TaskEntry } from './tasks.js';

/** A record's part, in characters of its sealed text (base64url: one byte each). */
const CHUNK = 60_000;

interface KvTaskEntry extends TaskEntry {
  parts: number;
}

export async function openKvTaskRecords(location: string, space: string, log: Logger): Promise<TaskRecords> {
  const [kind, ...rest] = location.split(':');
  if (kind !== 'deno-kv') throw new Error(`tasks are not kept in ${kind}: only Redis and Deno KV keep them`);
  const path = rest.join(':');
  const kv = await openDenoKv(path, 'the task store');
  log.info(`task store: Deno KV${path === '' ? '' : ` at ${path}`}`);
  const indexKey = (name: string) => ['mcp-gen', 'task', space, 'index', name];
  const partKey = (name: string, part: number) => ['mcp-gen', 'task', space, 'record', name, part];
  const live = () => liveEntries(kv, ['mcp-gen', 'task', space, 'index']);

  /** The entry and its record's parts, set in `atomic`; parts the record had beyond the new ones deleted. */
  const write = (atomic: ReturnType<DenoKv['atomic']>, name: string, entry: TaskEntry, sealed: string, hadParts: number) => {
    const expireIn = Math.max(1, entry.expires - Date.now());
    const parts = Math.max(1, Math.ceil(sealed.length / CHUNK));
    atomic.set(indexKey(name), { ...entry, parts } satisfies KvTaskEntry, { expireIn });
    for (let part = 0; part < parts; part++) atomic.set(partKey(name, part), sealed.slice(part * CHUNK, (part + 1) * CHUNK), { expireIn });
    for (let part = parts; part < hadParts; part++) atomic.delete(partKey(name, part));
    return atomic.commit();
  };
  const remove = (name: string, parts: number) => {
    const atomic = kv.atomic().delete(indexKey(name));
    for (let part = 0; part < parts; part++) atomic.delete(partKey(name, part));
    return atomic.commit();
  };

  return {
    async add(name, entry, sealed) {
      const entries = await live();
      const admitted = admit(entries, entry.owner);
      if (admitted === 'busy' || admitted === 'full') return admitted;
      const evicted = admitted.evict === undefined ? undefined : entries.get(admitted.evict);
      if (evicted !== undefined) await remove(admitted.evict as string, evicted.parts);
      await write(kv.atomic(), name, entry, sealed, 0);
      return 'added';
    },
    async replaceRunning(name, entry, sealed) {
      const current = await kv.get(indexKey(name));
      const was = current.value as KvTaskEntry | null;
      if (was === null || was.status !== 'working' || was.expires <= Date.now()) return false;
      const checked = kv.atomic().check({ key: indexKey(name), versionstamp: current.versionstamp });
      return (await write(checked, name, entry, sealed, was.parts)).ok;
    },
    async read(name) {
      const entry = (await kv.get(indexKey(name))).value as KvTaskEntry | null;
      if (entry === null || entry.expires <= Date.now()) return undefined;
      const parts = await Promise.all(Array.from({ length: entry.parts }, (_, part) => kv.get(partKey(name, part))));
      return parts.every((p) => typeof p.value === 'string') ? parts.map((p) => p.value as string).join('') : undefined;
    },
    async owned(owner) {
      return [...(await live())].filter(([, entry]) => entry.owner === owner).map(([name]) => name);
    },
    async ended(names) {
      const entries = await live();
      return names.filter((name) => entries.get(name)?.status !== 'working');
    },
    close: () => Promise.resolve(kv.close()),
  };
}

/** The live index entries under `prefix`, by name. */
async function liveEntries(kv: DenoKv, prefix: unknown[]): Promise<Map<string, KvTaskEntry>> {
  const entries = new Map<string, KvTaskEntry>();
  const now = Date.now();
  for await (const { key, value } of kv.list({ prefix })) {
    const entry = value as KvTaskEntry;
    if (entry.expires > now) entries.set(key[key.length - 1] as string, entry);
  }
  return entries;
}
