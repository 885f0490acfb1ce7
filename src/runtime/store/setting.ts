// Whether a store setting (--operation-store, --token-store) can be served where the server runs:
// each shared store is one platform's (the file store Node's), and every one needs
// MCP_TOKEN_STORE_KEY to seal what it holds. Checked at start, before anything is served (main.ts
// loads this module only when a setting names a store).
import { parseKeyRing, SealingKeyError } from './sealing.js';

/**
 * The platforms whose store each form names. Redis serves the function platforms too: they run
 * Node and its redis client (test/e2e/platforms-oauth-server.test.ts, platforms-state.test.ts).
 */
const STORES: { form: RegExp; on: string[] }[] = [
  { form: /^file$/, on: ['node'] },
  { form: /^rediss?:\/\//i, on: ['node', 'lambda', 'vercel'] },
  { form: /^deno-kv(:|$)/, on: ['deno'] },
  { form: /^workers-kv:/, on: ['cloudflare'] },
  { form: /^durable-object:/, on: ['cloudflare'] },
];

/** Why the operation store cannot be used on platform `on` (its key included), or undefined. */
export function operationStoreProblem(store: { location: string; keys: string }, on: string): string | undefined {
  return storeProblem('operation-store', store, on);
}

/** Why the token store cannot be used on platform `on` (its key included), or undefined. */
export function tokenStoreProblem(store: { location: string; keys: string }, on: string): string | undefined {
  return storeProblem('token-store', store, on);
}

function storeProblem(flag: string, store: { location: string; keys: string }, on: string): string | undefined {
  const served = STORES.find((s) => s.form.test(store.location))?.on;
  if (!served?.includes(on))
    return `--${flag}: that store is served on ${served?.join(', ') ?? 'no platform'}, and this server runs on ${on}`;
  try {
    parseKeyRing(store.keys);
  } catch (error) {
    if (error instanceof SealingKeyError) return error.message;
    throw error;
  }
  return undefined;
}
