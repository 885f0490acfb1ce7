// What a store the replicas share holds, whatever it is (Redis, Workers KV, Deno KV): sealed
// records under hashed names, each in its owner's group. The port between the operation store
// (long-running/operation-store.ts) and its backends.
import { sha256, toHex } from '../start/crypto.js';

/** Where a shared store's sealed records live: Redis, Workers KV, Deno KV. Names are hashes, values sealed. */
export interface SharedRecords {
  /**
   * Writes `sealed` under `name` for `ttlMs`, one of `group`'s records (the owner's): at most
   * `limit` live ones, the group's oldest going first to make room.
   */
  put(name: string, sealed: string, ttlMs: number, group: { name: string; limit: number }): Promise<void>;
  /** Reads and deletes the record (atomically where the backend can: Redis, Deno KV). */
  take(name: string, group: string): Promise<string | undefined>;
  /** Lets go of the connection (a server's process ends without it: its exit closes everything). */
  close(): Promise<void>;
}

/** A record's name in a shared store: a hash of what names it (the server's namespace first), so that the store reads none of it. */
export function recordName(...parts: string[]): string {
  return toHex(sha256(parts.join('\0')));
}
