// The token store's records in a platform's key-value store, loaded by token-store.ts for
// `deno-kv[:PATH]` (Deno KV), `workers-kv:BINDING` (the Workers KV namespace bound under that
// name) or `durable-object:BINDING` (the Durable Object of token-store-object.ts bound so). Values arrive sealed and names hashed; this module only moves strings. It imports nothing
// of token-store.ts (which imports it): what it returns fits RecordBackend by shape.
//
// Deno KV writes conditionally (a versionstamp check), and a Durable Object runs one operation at
// a time, so take and putIfAbsent are atomic: a code or refresh token is honoured once. Workers KV has no conditional write and is eventually
// consistent across Cloudflare's locations (up to 60 s): there a code or refresh token presented
// twice at once, or at two locations within that time, may be honoured twice; once the first use
// has spread, a second one revokes the grant as everywhere else (docs/deploy.md says so).
// A cap is counted by listing its kind's live records, then written: writers racing at the cap
// may pass it by a few; a flood is still refused.
import type { Logger } from '../../start/log.js';
import { platform } from '../../start/platform.js';
import type { StoreOperation } from './token-store-object.js';
import {
  listedRecords,
  liveRecords,
  liveValue,
  openDenoKv,
  takeDenoKv,
  takeWorkersKv,
  workersKvBinding,
  workersKvRecord,
  type DenoKv,
  type KvRecord,
  type WorkersKv,
} from '../../store/kv.js';

const WHAT = 'the token store';

/** The cap a record is written against (token-store.ts's Budget). */
interface Budget {
  name: string;
  limit: number;
}

/** The backend `location` names; an Error naming the binding or Deno's flag when it is not there. */
export async function openKvBackend(location: string, log: Logger) {
  const [kind, ...rest] = location.split(':');
  const name = rest.join(':');
  if (kind === 'deno-kv') {
    const kv = await openDenoKv(name, WHAT);
    log.info(`token store: Deno KV${name === '' ? '' : ` at ${name}`}`);
    return denoKvBackend(kv);
  }
  if (kind === 'durable-object') {
    log.info(`token store: the Durable Object bound as ${name}`);
    return durableObjectBackend(name);
  }
  const kv = workersKvBinding(name, WHAT);
  log.info(`token store: Workers KV bound as ${name}`);
  return workersKvBackend(kv);
}

/** The part of a Durable Object namespace binding this uses. */
interface ObjectNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(url: string, init: RequestInit): Promise<Response> };
}

/** Every operation sent to one Durable Object, which the whole store is. */
function durableObjectBackend(binding: string) {
  const namespace = platform().bindings?.[binding] as ObjectNamespace | undefined;
  if (typeof namespace?.idFromName !== 'function') {
    throw new Error(`${WHAT} durable-object:${binding} needs a Durable Object bound as ${binding} (durable_objects in wrangler.jsonc)`);
  }
  const send = async <T>(operation: StoreOperation): Promise<T> => {
    // A stub is the request's own I/O object in workerd: one per operation, not one per isolate.
    const store = namespace.get(namespace.idFromName('mcp-gen-token-store'));
    const answer = await store.fetch('https://token-store.internal/', { method: 'POST', body: JSON.stringify(operation) });
    if (!answer.ok) throw new Error(`${WHAT}'s Durable Object answered ${answer.status}`);
    return ((await answer.json()) as { value: T }).value;
  };
  return {
    get: async (name: string) => (await send<string | null>({ op: 'get', name })) ?? undefined,
    put: (name: string, sealed: string, ttlMs: number, budget?: Budget) =>
      send<boolean>({ op: 'put', name, sealed, ttlMs, ...(budget !== undefined ? { budget } : {}) }),
    putIfAbsent: (name: string, sealed: string, ttlMs: number) => send<boolean>({ op: 'putIfAbsent', name, sealed, ttlMs }),
    take: async (name: string) => (await send<string | null>({ op: 'take', name })) ?? undefined,
    delete: async (name: string) => void (await send({ op: 'delete', name })),
    // a binding has no connection of its own to let go of
    close: () => Promise.resolve(),
  };
}

function denoKvBackend(kv: DenoKv) {
  const keyOf = (name: string) => ['mcp-gen', 'tok', name];
  const memberOf = (budget: string, name: string) => ['mcp-gen', 'tok-budget', budget, name];
  const record = (sealed: string, ttlMs: number): KvRecord => ({ s: sealed, e: Date.now() + ttlMs });
  return {
    async get(name: string) {
      return liveValue((await kv.get(keyOf(name))).value as KvRecord | null);
    },
    async put(name: string, sealed: string, ttlMs: number, budget?: Budget) {
      if (budget !== undefined && !(await denoRoomIn(kv, budget, memberOf(budget.name, name)))) return false;
      let write = kv.atomic().set(keyOf(name), record(sealed, ttlMs), { expireIn: ttlMs });
      if (budget !== undefined) write = write.set(memberOf(budget.name, name), record('', ttlMs), { expireIn: ttlMs });
      await write.commit();
      return true;
    },
    async putIfAbsent(name: string, sealed: string, ttlMs: number) {
      const entry = await kv.get(keyOf(name));
      // an expired record still kept counts as absent: the write checks it is the one read
      if (liveValue(entry.value as KvRecord | null) !== undefined) return false;
      const check = { key: keyOf(name), versionstamp: entry.versionstamp };
      return (await kv.atomic().check(check).set(keyOf(name), record(sealed, ttlMs), { expireIn: ttlMs }).commit()).ok;
    },
    take: (name: string) => takeDenoKv(kv, keyOf(name)),
    delete: (name: string) => kv.delete(keyOf(name)),
    close: () => Promise.resolve(kv.close()),
  };
}

/** Whether a record `member` names may be written under `budget`: it is one of it already, or the budget has room. */
async function denoRoomIn(kv: DenoKv, budget: Budget, member: unknown[]): Promise<boolean> {
  if (liveValue((await kv.get(member)).value as KvRecord | null) !== undefined) return true;
  const live = await liveRecords(kv.list({ prefix: member.slice(0, -1) }));
  return live.length < budget.limit;
}

function workersKvBackend(kv: WorkersKv) {
  const keyOf = (name: string) => `mcp-gen:tok:${name}`;
  const budgetPrefix = (budget: string) => `mcp-gen:tok-budget:${budget}:`;
  return {
    async get(name: string) {
      const text = await kv.get(keyOf(name));
      return text === null ? undefined : liveValue(JSON.parse(text) as KvRecord);
    },
    async put(name: string, sealed: string, ttlMs: number, budget?: Budget) {
      if (budget !== undefined) {
        const live = await listedRecords(kv, budgetPrefix(budget.name));
        const member = `${budgetPrefix(budget.name)}${name}`;
        if (live.length >= budget.limit && !live.some((m) => m.name === member)) return false;
        await kv.put(member, '', workersKvRecord('', ttlMs)[1]);
      }
      await kv.put(keyOf(name), ...workersKvRecord(sealed, ttlMs));
      return true;
    },
    /** Not atomic (see above): the refresh of a user's API token may then run at two isolates at once. */
    async putIfAbsent(name: string, sealed: string, ttlMs: number) {
      if ((await this.get(name)) !== undefined) return false;
      await kv.put(keyOf(name), ...workersKvRecord(sealed, ttlMs));
      return true;
    },
    take: (name: string) => takeWorkersKv(kv, keyOf(name)),
    delete: (name: string) => kv.delete(keyOf(name)),
    // a binding has no connection of its own to let go of
    close: () => Promise.resolve(),
  };
}
