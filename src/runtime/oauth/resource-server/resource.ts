// This server's resource identifiers (RFC 8707, RFC 9728) as the resource server uses them: the
// base URL a request reached, the identifier of each MCP endpoint under it, the audiences a
// token may name, and which identifier a path-suffixed metadata URL stands for.

import { validateHostHeader } from '@modelcontextprotocol/server';
import type { OAuthConfig, ServerConfig, TransportName } from '../../start/config.js';
import { ownHostNames } from '../../http/host-names.js';

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The MCP endpoints by request path, and the identifier path each stands for. RFC 9728 §3.3: the
 * metadata a 401 points to names the very URL the client used, so `/mcp` is `<base>/mcp`; a
 * legacy SSE client posts to /messages, but connected to (and signed in for) /sse.
 */
const ENDPOINTS: Record<TransportName, Record<string, string>> = {
  stdio: {},
  http: { '/mcp': '/mcp' },
  sse: { '/sse': '/sse', '/messages': '/sse' },
  'http+sse': { '/mcp': '/mcp', '/sse': '/sse', '/messages': '/sse' },
};

export interface ResourceIdentifiers {
  /** The identifier a request to `path` is for: its endpoint's, else the base. */
  resourceAt(base: string, path: string): string;
  /** The `aud` values a token may carry by default: every identifier, with or without a trailing slash. */
  audiences(base: string): string[];
  /** The identifier whose metadata `path` (a URL path under METADATA_PATH) is, or undefined for none of ours. */
  documentedAt(base: string, path: string): string | undefined;
}

/** Every identifier a client may name for this server under `base`: the base, and each endpoint's URL. */
export function identifiersUnder(base: string, transport: TransportName): string[] {
  return [base, ...[...new Set(Object.values(ENDPOINTS[transport]))].map((path) => `${base}${path}`)];
}

export function resourceIdentifiers(config: ServerConfig & { oauth: OAuthConfig }): ResourceIdentifiers {
  const endpoints = ENDPOINTS[config.transport];
  const identifiers = (base: string) => identifiersUnder(base, config.transport);
  return {
    resourceAt: (base, path) => `${base}${endpoints[path] ?? ''}`,
    // Clients differ in which they ask for (RFC 8707 `resource`): the base, which the root
    // metadata names, or the endpoint's URL, which its own metadata names and the MCP spec calls
    // the server's canonical URI. A token for either is for this server.
    audiences: (base) => identifiers(base).flatMap((id) => [id, `${id}/`]),
    documentedAt: (base, path) => {
      const wanted = path.replace(/\/+$/, '');
      if (wanted === METADATA_PATH) return base;
      return identifiers(base).find((id) => new URL(metadataUrlOf(id)).pathname === wanted);
    },
  };
}

/**
 * The base URL of a web Request: MCP_PUBLIC_URL, else the URL's name and port, which the Node
 * adapter makes of the Host header's name and the port the connection came in on, never the Host
 * header's: a token issued for another local server (another port) must not pass here because
 * the client said that port. Undefined for a Host the guard refuses.
 */
export function requestBaseLocator(config: ServerConfig & { oauth: OAuthConfig }): (request: Request, url: URL) => string | undefined {
  const fixed = config.oauth.publicUrl;
  if (fixed !== undefined) return () => fixed;
  const names = ownHostNames(undefined, config.allowedHosts);
  return (request, url) => (validateHostHeader(request.headers.get('host'), names).ok ? url.origin : undefined);
}

/** RFC 9728 §3.1: the metadata URL of `https://host/path` is `https://host/.well-known/oauth-protected-resource/path`. */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${METADATA_PATH}${path}`;
}
