import type { ServerSpec } from '../contract/table.js';
import { resolveServerUrl } from '../contract/server-url.js';

/** The absolute URL the generated server will call by default, or undefined when there is none. */
export function resolveDefaultServer(servers: ServerSpec[]): string | undefined {
  const first = servers[0];
  if (!first) return undefined;
  const url = resolveServerUrl(first);
  return /^https?:\/\//i.test(url) ? url : undefined;
}
