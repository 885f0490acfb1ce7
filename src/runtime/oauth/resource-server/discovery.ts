// The authorization server's metadata, found from its issuer as RFC 8414 and OpenID Connect
// Discovery place it: the resource server learns its JWKS, introspection and token endpoints
// there, and publishes its issuer in the protected-resource metadata.

import type { AuthorizationServerMetadata } from '@modelcontextprotocol/server';
import { fetchWithoutRedirect } from '../without-redirect.js';

/** Longest a discovery request may take: a start-up that waits on a dead server says so soon. */
const DISCOVERY_TIMEOUT_MS = 10_000;
/** A metadata document is a few kilobytes. */
const MAX_METADATA_BYTES = 1_048_576;

/**
 * The metadata URLs to try, in order: RFC 8414 (`/.well-known/oauth-authorization-server` placed
 * before the issuer's path), then OpenID Connect (`/.well-known/openid-configuration` after the
 * path, as Keycloak, Auth0, Entra ID, Okta and Google publish it, then before it).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
    ...(path === '' ? [] : [`${url.origin}/.well-known/openid-configuration${path}`]),
  ];
}

/** Discoveries by issuer: the resource server's start and the token exchanger share one. */
const discovered = new Map<string, Promise<AuthorizationServerMetadata>>();

/**
 * The issuer's metadata, fetched once per process; a failed discovery is not remembered, so the
 * next caller tries again.
 */
export function discoverAuthorizationServer(issuer: string): Promise<AuthorizationServerMetadata> {
  let found = discovered.get(issuer);
  if (found === undefined) {
    const fetching = discover(issuer);
    discovered.set(issuer, fetching);
    fetching.catch(() => discovered.get(issuer) === fetching && discovered.delete(issuer));
    found = fetching;
  }
  return found;
}

/**
 * Fetches the first metadata document that answers and names this issuer (RFC 8414 §3.3: a
 * document for another issuer must not be used). Throws one line saying what was tried.
 */
async function discover(issuer: string): Promise<AuthorizationServerMetadata> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const found = await fetchMetadata(url);
    if (typeof found === 'string') {
      tried.push(`${url}: ${found}`);
      continue;
    }
    if (sameIssuer(found.issuer, issuer)) return found;
    tried.push(`${url}: names issuer ${JSON.stringify(found.issuer)}`);
  }
  throw new Error(`cannot discover the authorization server ${issuer} (${tried.join('; ')})`);
}

/** The document, or why not. */
async function fetchMetadata(url: string): Promise<AuthorizationServerMetadata | string> {
  let response: Response;
  try {
    response = await fetchWithoutRedirect(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? 'no answer in time' : `unreachable (${(error as Error).message})`;
  }
  if (!response.ok) {
    await response.body?.cancel();
    return `HTTP ${response.status}`;
  }
  const text = await response.text();
  if (text.length > MAX_METADATA_BYTES) return 'too large';
  try {
    const document = JSON.parse(text) as AuthorizationServerMetadata;
    return typeof document === 'object' && document !== null && typeof document.issuer === 'string' ? document : 'not a metadata document';
  } catch {
    return 'not JSON';
  }
}

/** Issuers compare as strings; one trailing slash aside (Auth0 publishes `https://x.auth0.com/`). */
const sameIssuer = (a: string, b: string): boolean => a.replace(/\/$/, '') === b.replace(/\/$/, '');
