// The names a request to this server may carry in Host and Origin: the rule of the DNS-rebinding
// protection the MCP transport spec requires of local servers, shared by every platform's guard.

import type { ServerConfig } from '../start/config.js';

/** The names of loopback a Host header may carry: always this server's. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** `https://app.example.com:8443` and `app.example.com:8443` both name `app.example.com`. */
export function hostnameOf(entry: string): string {
  try {
    return new URL(entry.includes('://') ? entry : `http://${entry}`).hostname;
  } catch {
    return entry;
  }
}

/** The Host names a request to this server may carry: loopback, the public URL's, --allowed-hosts. */
export function ownHostNames(publicUrl: string | undefined, allowedHosts: readonly string[]): string[] {
  return [...LOOPBACK_NAMES, ...(publicUrl === undefined ? [] : [hostnameOf(publicUrl)]), ...allowedHosts.map(hostnameOf)];
}

type GuardSettings = Pick<ServerConfig, 'allowedHosts' | 'allowedOrigins' | 'corsOrigins' | 'oauth'>;

/** The Host and Origin names of the MCP endpoints; `origins: undefined` when CORS `*` welcomes any Origin by choice. */
export function guardedNames(config: GuardSettings): { hosts: string[]; origins: string[] | undefined } {
  const hosts = ownHostNames(config.oauth?.publicUrl, config.allowedHosts);
  // With CORS `*` any Origin is welcome (config.ts then requires MCP_AUTH_TOKEN); the Host check still stands.
  if (config.corsOrigins.includes('*')) return { hosts, origins: undefined };
  const origins = [...hosts, ...config.allowedOrigins.map(hostnameOf), ...config.corsOrigins.map(hostnameOf)];
  return { hosts, origins };
}
