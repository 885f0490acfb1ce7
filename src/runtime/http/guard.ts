// Host and Origin must name this server: DNS-rebinding protection, required by the MCP
// transport spec for local servers.

import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import type { ServerConfig } from '../start/config.js';
import type { HttpStep } from './pipeline.js';

/** The names of loopback a Host header may carry: always this server's. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/**
 * Loopback names are always allowed; when bound to another interface the operator lists the
 * public names with --allowed-hosts/--allowed-origins. Answers 403 otherwise.
 */
export function hostOriginGuard(config: Pick<ServerConfig, 'allowedHosts' | 'allowedOrigins' | 'corsOrigins' | 'oauth'>): HttpStep {
  // The public URL names this server as clients reach it: its host is this server's by definition.
  const publicHost = config.oauth?.publicUrl === undefined ? [] : [hostnameOf(config.oauth.publicUrl)];
  const hosts = [...LOOPBACK_NAMES, ...publicHost, ...config.allowedHosts.map(hostnameOf)];
  const origins = [
    ...LOOPBACK_NAMES,
    ...publicHost,
    ...config.allowedOrigins.map(hostnameOf),
    ...config.allowedHosts.map(hostnameOf),
    ...config.corsOrigins.filter((origin) => origin !== '*').map(hostnameOf),
  ];
  const checkHost = hostHeaderValidation(hosts);
  // With CORS `*` any Origin is welcome by choice (config.ts then requires MCP_AUTH_TOKEN);
  // the Host check still stands against DNS rebinding.
  const checkOrigin = config.corsOrigins.includes('*') ? () => true : originValidation(origins);
  return ({ req, res }) => checkHost(req, res) && checkOrigin(req, res);
}

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
