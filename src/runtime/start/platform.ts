// Where the server runs, as far as the runtime must know it: one value per process, set by the
// platform's entry before anything is served (Node's is the default). Each difference between
// platforms is one field here, read by the one module it concerns.

export type PlatformName = 'node' | 'cloudflare' | 'deno' | 'vercel' | 'lambda';

export interface Platform {
  name: PlatformName;
  /**
   * How requests reach the API: node:http with keep-alive pools (Node), or the platform's fetch
   * (every other platform: workerd has no node:http server nor client sockets of its own).
   */
  upstream: 'node-http' | 'fetch';
  /**
   * Whether an API address can be screened as it is connected to (node:http's lookup hook).
   * A platform's fetch resolves names itself and tells nothing of the address it reached.
   */
  screensAddresses: boolean;
  /** The variables and secrets: the settings and the API's credentials (process.env on Node). */
  env: Record<string, string | undefined>;
  /** The platform's bindings by name (Workers: KV namespaces), for the settings that name one. */
  bindings?: Record<string, unknown>;
}

let current: Platform = { name: 'node', upstream: 'node-http', screensAddresses: true, env: process.env };

/** The platform this process serves on. */
export function platform(): Platform {
  return current;
}

/** Set once by a platform's entry, before its first request. */
export function runOn(
  name: Exclude<PlatformName, 'node'>,
  env: Record<string, string | undefined>,
  bindings?: Record<string, unknown>,
): void {
  current = { name, upstream: 'fetch', screensAddresses: false, env, ...(bindings ? { bindings } : {}) };
}
