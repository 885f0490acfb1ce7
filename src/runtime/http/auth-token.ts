// The open-server warning of the Node server: it checks the rule as it starts, on the address
// it listens on (the web core's refuseOpenServer is for the platforms, which listen nowhere).

import { isLoopback, type ServerConfig } from '../start/config.js';
import type { Logger } from '../start/log.js';

/** An open endpoint on a reachable interface lends the API's credentials to anyone: say so. */
export function warnIfOpen(config: Pick<ServerConfig, 'host' | 'authToken' | 'oauth'>, log: Logger): void {
  if (isLoopback(config.host) || config.authToken !== undefined || config.oauth !== undefined) return;
  log.warn(
    `serving on ${config.host} without MCP_AUTH_TOKEN (--allow-unauthenticated): anyone who reaches this port calls the API with its credentials`,
  );
}
