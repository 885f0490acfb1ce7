// The MCP endpoints as an OAuth 2.1 resource server (--oauth-issuer): what its web steps
// (web-resource-server.ts) are made of: the protected-resource metadata (RFC 9728), the token
// check (401 with the metadata's URL), and the scope check of a tool call (403
// insufficient_scope naming the scopes to ask for: step-up). Loaded only when OAuth is on:
// it brings jose.

import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type AuthorizationServerMetadata,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import { isLoopback, type OAuthConfig, type ServerConfig } from '../../start/config.js';
import type { WebEndpoints } from '../../web/web-steps.js';
import type { Logger } from '../../start/log.js';
import { discoverAuthorizationServer } from './discovery.js';
import { metadataUrlOf, resourceIdentifiers, type ResourceIdentifiers } from './resource.js';
import type { AuthorizationServer } from '../authorization-server/authorization-server.js';
import { introspectionVerifier, jwtVerifier, type VerifierFor } from './verify.js';
import { callTarget, type ScopePolicy } from '../../mcp/tool-scopes.js';
import type { ToolSpec, ToolTable } from '../../../contract/table.js';

/**
 * Longest Authorization header considered: access tokens are one to a few kilobytes (an Entra
 * ID token with many groups, ~6 KiB); more is refused unread. Node itself stops at 16 KiB (431).
 */
const MAX_AUTHORIZATION_BYTES = 8_192;
/** RFC 6750 §2.1: `Bearer` and one b64token. */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** What the resource server's web steps (web-resource-server.ts) are made of. */
export interface ResourceServerCore {
  /** The authorization server's metadata. */
  metadata: AuthorizationServerMetadata;
  verifierFor: VerifierFor;
  resources: ResourceIdentifiers;
  /** The protected-resource metadata (RFC 9728) of one identifier. */
  document(resource: string): OAuthProtectedResourceMetadata;
  names: ScopeNames;
  byName: ReadonlyMap<string, ToolSpec>;
}

export async function resourceServerCore(
  config: ServerConfig & { oauth: OAuthConfig },
  served: { table: ToolTable; policy: ScopePolicy },
  log: Logger,
  own?: AuthorizationServer,
): Promise<ResourceServerCore> {
  const oauth = config.oauth;
  const metadata = own?.metadata ?? (await discoverAuthorizationServer(oauth.issuer));
  const names = scopeNames(oauth.scopePrefix);
  const documents = new Map<string, OAuthProtectedResourceMetadata>();
  const document = (resource: string) => {
    let found = documents.get(resource);
    if (found === undefined) {
      found = buildOAuthProtectedResourceMetadata({
        oauthMetadata: metadata,
        resourceServerUrl: new URL(resource),
        scopesSupported: names.advertised(served.policy.supported),
        resourceName: served.table.title ?? served.table.name,
        dangerouslyAllowInsecureIssuerUrl: isLoopback(new URL(metadata.issuer).hostname),
      });
      if (documents.size < 16) documents.set(resource, found);
    }
    return found;
  };
  // Fails at start, not at the first request, on an issuer the SDK will not publish.
  if (oauth.publicUrl !== undefined) document(oauth.publicUrl);
  if (own === undefined) log.notice(`OAuth resource server: tokens from ${metadata.issuer}, checked by ${oauth.tokenCheck}`);
  return {
    metadata,
    verifierFor: own?.verifierFor ?? verifierOf(oauth, metadata),
    resources: resourceIdentifiers(config),
    document,
    names,
    byName: new Map<string, ToolSpec>(served.table.tools.map((t) => [t.name, t])),
  };
}

/**
 * Scope names as the authorization server knows them and as tools.json and the settings name
 * them: Entra ID wants `api://<app>/mcp.read` asked for and puts `mcp.read` in the token.
 */
interface ScopeNames {
  advertised(scopes: readonly string[]): string[];
  held(scopes: readonly string[]): string[];
}

function scopeNames(prefix: string | undefined): ScopeNames {
  if (prefix === undefined) return { advertised: (scopes) => [...scopes], held: (scopes) => [...scopes] };
  return {
    advertised: (scopes) => scopes.map((s) => `${prefix}${s}`),
    held: (scopes) => scopes.map((s) => (s.startsWith(prefix) ? s.slice(prefix.length) : s)),
  };
}

/** The authorization server in this process (authorization-server.ts, loaded only then). */
export async function ownAuthorizationServer(
  config: ServerConfig & { oauth: OAuthConfig },
  served: { table: ToolTable; policy: ScopePolicy },
  log: Logger,
): Promise<AuthorizationServer> {
  return (await import('../authorization-server/authorization-server.js')).authorizationServer(config, served, log);
}

/** The link endpoints of API accounts, with another authorization server (link.ts, loaded only then). */
export async function linkEndpoints(
  config: ServerConfig & { oauth: OAuthConfig },
  metadata: AuthorizationServerMetadata,
  table: ToolTable,
  log: Logger,
): Promise<WebEndpoints> {
  return (await import('../upstream-accounts/link.js')).linkEndpoints(config, metadata, table, log);
}

function verifierOf(oauth: OAuthConfig, metadata: AuthorizationServerMetadata): VerifierFor {
  if (oauth.tokenCheck === 'jwt') return jwtVerifier(metadata);
  return introspectionVerifier(metadata, {
    clientId: oauth.clientId as string,
    clientSecret: oauth.clientSecret as string,
    cacheMs: oauth.introspectionCacheMs,
  });
}

/**
 * The token of a request to `path` under `base` checked (RFC 6750, RFC 9728 §5.1): its AuthInfo,
 * with scopes as the settings name them, or the 401 that says where to sign in or what is wrong.
 */
export async function checkBearer(
  core: ResourceServerCore,
  oauth: OAuthConfig,
  policy: ScopePolicy,
  log: Logger,
  request: { authorization: string | undefined; base: string; path: string },
): Promise<{ auth: AuthInfo } | { refusal: Response }> {
  const resource = core.resources.resourceAt(request.base, request.path);
  // The 401 names every scope this server knows, so that one sign-in covers what the user may grant.
  const challenge = { requiredScopes: core.names.advertised(policy.supported), resourceMetadataUrl: metadataUrlOf(resource) };
  if (request.authorization === undefined) return { refusal: signInRefusal(challenge) };
  try {
    const audiences = oauth.audiences.length > 0 ? oauth.audiences : core.resources.audiences(request.base);
    const auth = await verifyBearerToken(bearerHeader(request.authorization), {
      verifier: core.verifierFor({ audiences, resource }),
      expectedResource: new URL(resource),
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    });
    return { auth: { ...auth, scopes: core.names.held(auth.scopes) } };
  } catch (error) {
    if (!(error instanceof OAuthError) || error.code === OAuthErrorCode.ServerError) {
      log.error(`token check: ${(error as Error).message}`);
    } else log.debug(`token refused: ${error.message}`);
    return { refusal: bearerAuthChallengeResponse(error, challenge) };
  }
}

/**
 * The 401 of a request without credentials: where to sign in and for which scopes, and no error
 * code (RFC 6750 §3.1: there is no token to be wrong yet). The SDK's challenge always has one.
 */
function signInRefusal(challenge: { requiredScopes: string[]; resourceMetadataUrl: string }): Response {
  const scope = challenge.requiredScopes.length > 0 ? `, scope=${quoted(challenge.requiredScopes.join(' '))}` : '';
  const message = 'Unauthorized: sign in at the authorization server this server names, then send Authorization: Bearer <token>';
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message }, id: null },
    {
      status: 401,
      headers: { 'www-authenticate': `Bearer realm="mcp"${scope}, resource_metadata=${quoted(challenge.resourceMetadataUrl)}` },
    },
  );
}

/** An RFC 9110 quoted-string of printable ASCII, as the SDK quotes its challenges. */
const quoted = (value: string): string => `"${value.replaceAll(/[\\"]/g, '\\$&').replaceAll(/[^\x20-\x7e]/g, ' ')}"`;

/**
 * The Authorization header as the SDK's parser expects it, or an OAuthError: one header, within
 * MAX_AUTHORIZATION_BYTES, exactly `Bearer <b64token>` (the SDK's split on spaces would take
 * `Bearer a b` as token `a`).
 */
function bearerHeader(header: string): string {
  if (header.length > MAX_AUTHORIZATION_BYTES) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the Authorization header is too long');
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, "the Authorization header must be 'Bearer <token>'");
  return `Bearer ${token}`;
}

/**
 * A tool call in `body` its caller's scopes do not allow, as the 403 insufficient_scope naming
 * the tool's own scopes (MCP 2025-11-25 step-up: the client adds them to those it holds); undefined when all are allowed.
 */
export function scopeRefusal(
  core: Pick<ResourceServerCore, 'byName' | 'names'> & { policy: ScopePolicy },
  auth: AuthInfo,
  body: unknown,
  resource: string,
): Response | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const tool = callTarget(message, core.byName);
    if (tool === undefined || core.policy.allows(tool, auth)) continue;
    const requiredScopes = core.names.advertised(core.policy.required(tool));
    const refused = new OAuthError(OAuthErrorCode.InsufficientScope, `${tool.name} needs the scope ${requiredScopes.join(' ')}`);
    return bearerAuthChallengeResponse(refused, { requiredScopes, resourceMetadataUrl: metadataUrlOf(resource) });
  }
  return undefined;
}
