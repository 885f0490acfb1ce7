import type { ServerSpec, ToolTable } from '../contract/table.js';
import { resolveServerUrl } from '../contract/server-url.js';

/** The absolute URL the generated server will call by default, or undefined when there is none. */
export function resolveDefaultServer(servers: ServerSpec[]): string | undefined {
  const first = servers[0];
  if (!first) return undefined;
  const url = resolveServerUrl(first);
  return /^https?:\/\//i.test(url) ? url : undefined;
}

/**
 * The variables a server must be given before it can reach its upstreams: API_BASE_URL when
 * the spec names no absolute server, or, over several APIs, each API's `<NAMESPACE>_BASE_URL`
 * whose spec names none.
 */
export function missingBaseUrls(table: Pick<ToolTable, 'servers' | 'apis'>): string[] {
  if (table.apis === undefined) return resolveDefaultServer(table.servers) === undefined ? ['API_BASE_URL'] : [];
  return Object.values(table.apis).flatMap((api) => (resolveDefaultServer(api.servers) === undefined ? [api.baseUrlEnv] : []));
}
