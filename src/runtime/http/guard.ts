// Host and Origin must name this server: DNS-rebinding protection, required by the MCP
// transport spec for local servers.

import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import type { ServerConfig } from '../start/config.js';
import { guardedNames } from './host-names.js';
import type { HttpStep } from './pipeline.js';

/**
 * Loopback names are always allowed; when bound to another interface the operator lists the
 * public names with --allowed-hosts/--allowed-origins. Answers 403 otherwise.
 */
export function hostOriginGuard(config: Pick<ServerConfig, 'allowedHosts' | 'allowedOrigins' | 'corsOrigins' | 'oauth'>): HttpStep {
  const names = guardedNames(config);
  const checkHost = hostHeaderValidation(names.hosts);
  const checkOrigin = names.origins === undefined ? () => true : originValidation(names.origins);
  return ({ req, res }) => checkHost(req, res) && checkOrigin(req, res);
}
