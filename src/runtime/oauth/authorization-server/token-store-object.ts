// The token store as one Cloudflare Durable Object (MCP_TOKEN_STORE=durable-object:BINDING): the
// Worker's entry exports this class, wrangler.jsonc binds it, and token-store-kv.ts sends it each
// operation. A Durable Object runs one event at a time and its storage calls do not let another
// in, so a take or a put-if-absent is atomic: a code or refresh token is honoured once, which
// Workers KV cannot promise. Records are `{ s, e }` (sealed value, expiry in ms) under their
// hashed names; a cap's members are kept beside them; an alarm sweeps expired records hourly.

/** The part of a Durable Object's storage this uses. */
interface ObjectStorage {
  get<T>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string | string[]): Promise<unknown>;
  list<T>(options: { prefix: string; limit?: number; startAfter?: string }): Promise<Map<string, T>>;
  getAlarm(): Promise<number | null>;
  setAlarm(time: number): Promise<void>;
}

/** One operation of token-store.ts's RecordBackend, as token-store-kv.ts sends it. */
export interface StoreOperation {
  op: 'get' | 'put' | 'putIfAbsent' | 'take' | 'delete';
  name: string;
  sealed?: string;
  ttlMs?: number;
  budget?: { name: string; limit: number };
}

interface Kept {
  s: string;
  e: number;
}

const RECORD = 'r:';
const MEMBER = 'b:';
const SWEEP_EVERY_MS = 3_600_000;
const SWEEP_PAGE = 1_000;

export class TokenStoreObject {
  readonly #storage: ObjectStorage;

  constructor(state: { storage: ObjectStorage }) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const operation = (await request.json()) as StoreOperation;
    return Response.json({ value: await this.#run(operation) });
  }

  async alarm(): Promise<void> {
    await this.#sweep();
  }

  #run(o: StoreOperation): Promise<unknown> {
    switch (o.op) {
      case 'get':
        return this.#live(o.name);
      case 'put':
        return this.#put(o.name, o.sealed as string, o.ttlMs as number, o.budget);
      case 'putIfAbsent':
        return this.#putIfAbsent(o.name, o.sealed as string, o.ttlMs as number);
      case 'take':
        return this.#take(o.name);
      case 'delete':
        return this.#storage.delete(RECORD + o.name).then(() => null);
    }
  }

  async #live(name: string): Promise<string | null> {
    const kept = await this.#storage.get<Kept>(RECORD + name);
    return kept !== undefined && kept.e > Date.now() ? kept.s : null;
  }

  async #put(name: string, sealed: string, ttlMs: number, budget: StoreOperation['budget']): Promise<boolean> {
    const e = Date.now() + ttlMs;
    if (budget !== undefined) {
      const member = `${MEMBER}${budget.name}:${name}`;
      if ((await this.#storage.get(member)) === undefined && (await this.#liveMembers(budget.name)) >= budget.limit) return false;
      await this.#storage.put(member, { s: '', e } satisfies Kept);
    }
    await this.#storage.put(RECORD + name, { s: sealed, e } satisfies Kept);
    await this.#sweepLater();
    return true;
  }

  async #putIfAbsent(name: string, sealed: string, ttlMs: number): Promise<boolean> {
    if ((await this.#live(name)) !== null) return false;
    return this.#put(name, sealed, ttlMs, undefined);
  }

  async #take(name: string): Promise<string | null> {
    const value = await this.#live(name);
    await this.#storage.delete(RECORD + name);
    return value;
  }

  async #liveMembers(budget: string): Promise<number> {
    const now = Date.now();
    let live = 0;
    for (const kept of (await this.#storage.list<Kept>({ prefix: `${MEMBER}${budget}:` })).values()) if (kept.e > now) live++;
    return live;
  }

  async #sweepLater(): Promise<void> {
    if ((await this.#storage.getAlarm()) === null) await this.#storage.setAlarm(Date.now() + SWEEP_EVERY_MS);
  }

  /** Deletes expired records and members, a page at a time. */
  async #sweep(): Promise<void> {
    const now = Date.now();
    let after: string | undefined;
    for (;;) {
      const page = await this.#storage.list<Kept>({ prefix: '', limit: SWEEP_PAGE, ...(after !== undefined ? { startAfter: after } : {}) });
      const expired = [...page].filter(([, kept]) => kept.e <= now).map(([key]) => key);
      // a Durable Object deletes at most 128 keys per call
      for (let at = 0; at < expired.length; at += 128) await this.#storage.delete(expired.slice(at, at + 128));
      if (page.size < SWEEP_PAGE) break;
      after = [...page.keys()].at(-1);
    }
    await this.#storage.setAlarm(Date.now() + SWEEP_EVERY_MS);
  }
}
