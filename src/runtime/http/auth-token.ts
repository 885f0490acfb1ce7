// Who may use the MCP endpoints with one shared token (--auth-token): one step in the request
// pipeline. The OAuth 2.1 resource-server check (oauth.ts) takes its place with --oauth-issuer.

import { isLoopback, type ServerConfig } from '../start/config.js';
import type { HttpStep } from './pipeline.js';
import type { Logger } from '../start/log.js';
import { equalBytes, latin1Bytes, sha256 } from '../start/crypto.js';

/** One shared bearer token (RFC 6750); without a token every request passes. */
export function bearerAuth(token: string | undefined): HttpStep {
  if (token === undefined) return () => true;
  const expected = sha256(latin1Bytes(token));
  return ({ req, res }) => {
    // Exactly "Bearer " and the token, compared as the bytes that came (Node reads header
    // bytes as latin1). Nothing is trimmed, so no look-alike space or padding passes.
    const given = /^Bearer (.*)$/is.exec(req.headers.authorization ?? '')?.[1];
    if (given !== undefined && equalBytes(sha256(latin1Bytes(given)), expected)) return true;
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': given === undefined ? 'Bearer realm="mcp"' : 'Bearer realm="mcp", error="invalid_token"',
    });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized: send Authorization: Bearer <token>' }, id: null }),
    );
    return false;
  };
}

/** An open endpoint on a reachable interface lends the API's credentials to anyone: say so. */
export function warnIfOpen(config: Pick<ServerConfig, 'host' | 'authToken' | 'oauth'>, log: Logger): void {
  if (isLoopback(config.host) || config.authToken !== undefined || config.oauth !== undefined) return;
  log.warn(
    `serving on ${config.host} without MCP_AUTH_TOKEN (--allow-unauthenticated): anyone who reaches this port calls the API with its credentials`,
  );
}
