// The OAuth 2.1 resource server (--oauth-issuer) as steps of the web core, which serves every
// platform, Node included: the protected-resource metadata
// (RFC 9728), the token check, and once the body is read the scope check of a tool call; and the
// sign-in endpoints when the server is its own authorization server (--oauth-api-client-id) or
// links API accounts. The base URL is MCP_PUBLIC_URL: a platform tells no port the connection
// came in on; on Node, without it, the request's own (resource.ts, requestBaseLocator).

import type { OAuthConfig, ServerConfig } from '../../start/config.js';
import type { Logger } from '../../start/log.js';
import type { ScopePolicy } from '../../mcp/tool-scopes.js';
import type { WebEndpoints, WebStep } from '../../web/web-steps.js';
import {
  checkBearer,
  linkEndpoints,
  ownAuthorizationServer,
  resourceServerCore,
  scopeRefusal,
  type ResourceServerCore,
} from './resource-server.js';
import { METADATA_PATH, requestBaseLocator } from './resource.js';
import type { ToolTable } from '../../../contract/table.js';

const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

export interface WebResourceServer {
  /** Before the guard: the metadata documents are public. */
  metadata: WebStep;
  /** Before the guard too, with checks of their own: the sign-in endpoints, when this server has them. */
  endpoints?: WebEndpoints;
  /** After the guard: the token check. */
  gate: WebStep;
  /** After the body: a tool call needs its tool's scopes. */
  scopes: WebStep;
}

export async function webResourceServer(
  config: ServerConfig & { oauth: OAuthConfig },
  served: { table: ToolTable; policy: ScopePolicy },
  log: Logger,
): Promise<WebResourceServer> {
  const own = config.oauth.tokenCheck === 'self' ? await ownAuthorizationServer(config, served, log) : undefined;
  const core = await resourceServerCore(config, served, log, own);
  const links =
    own === undefined && config.oauth.signIn !== undefined ? await linkEndpoints(config, core.metadata, served.table, log) : undefined;
  const endpoints = own?.endpoints ?? links;
  const baseOf = requestBaseLocator(config);
  return {
    metadata: metadataStep(core, baseOf),
    ...(endpoints !== undefined ? { endpoints } : {}),
    gate: async (request, url, context) => {
      if (request.method === 'OPTIONS') return undefined;
      const base = baseOf(request, url) as string; // the guard has passed: a Host it allows, or MCP_PUBLIC_URL
      const request_ = { authorization: request.headers.get('authorization') ?? undefined, base, path: url.pathname };
      const checked = await checkBearer(core, config.oauth, served.policy, log, request_);
      if ('refusal' in checked) return checked.refusal;
      context.auth = checked.auth;
      return undefined;
    },
    scopes: (request, url, context) => {
      if (context.auth === undefined || request.method !== 'POST') return undefined;
      const resource = core.resources.resourceAt(baseOf(request, url) as string, url.pathname);
      return scopeRefusal({ ...core, policy: served.policy }, context.auth, context.body, resource);
    },
  };
}

/**
 * The protected-resource metadata at its root URL and at the path-suffixed URL of each endpoint
 * (`/.well-known/oauth-protected-resource/mcp` names `<base>/mcp`: RFC 9728 §3.3), and the
 * authorization server's own metadata for 2025-03-26 clients that look for it on this origin
 * (RFC 8414 §3.1: an issuer with a path has its metadata at the path-inserted URL).
 */
function metadataStep(core: ResourceServerCore, baseOf: (request: Request, url: URL) => string | undefined): WebStep {
  return (request, url) => {
    const path = url.pathname;
    const ours = path === METADATA_PATH || path.startsWith(`${METADATA_PATH}/`);
    if (!ours && path !== AS_METADATA_PATH && !path.startsWith(`${AS_METADATA_PATH}/`)) return undefined;
    const base = baseOf(request, url);
    if (base === undefined) return undefined; // the guard answers
    if (request.method === 'OPTIONS') return publicAnswer(request, 204, undefined);
    if (request.method !== 'GET' && request.method !== 'HEAD') return publicAnswer(request, 405, { error: 'method_not_allowed' });
    if (!ours) return publicAnswer(request, 200, core.metadata);
    const resource = core.resources.documentedAt(base, path);
    return resource === undefined
      ? publicAnswer(request, 404, { error: 'not_found' })
      : publicAnswer(request, 200, core.document(resource));
  };
}

/** A public document: any origin may read it (RFC 9728 clients run in browsers too). */
function publicAnswer(request: Request, status: number, body: object | undefined): Response {
  const headers: Record<string, string> = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': 'MCP-Protocol-Version, Content-Type',
    ...(status === 405 ? { allow: 'GET, HEAD, OPTIONS' } : {}),
    ...(body !== undefined ? { 'content-type': 'application/json', 'cache-control': 'max-age=300' } : {}),
  };
  return new Response(body !== undefined && request.method !== 'HEAD' ? JSON.stringify(body) : null, { status, headers });
}
