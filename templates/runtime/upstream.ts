// Talking to the upstream API, which is not trusted: it may redirect anywhere, answer without
// end, or fail with messages that quote what was sent. So redirects are followed here, not by
// fetch, and credentials go only to the origin they were configured for; bodies are read up to
// a limit; and every text that can reach a client is redacted first.

import type { OutgoingRequest } from './hooks-api.js';
import type { ToolTable } from './table.js';

/** Redirect hops followed before giving up (browsers allow 20; an API needs one or two). */
export const MAX_REDIRECTS = 5;

/** Where credentials travel in a request: the headers and query parameters to drop when the origin changes. */
export interface CredentialPlaces {
  headers: Set<string>;
  query: Set<string>;
}

/** Every place any security scheme of the table puts a credential, plus the generic ones. */
export function credentialPlaces(table: ToolTable): CredentialPlaces {
  const headers = new Set(['authorization', 'proxy-authorization', 'cookie']);
  const query = new Set<string>();
  for (const scheme of Object.values(table.auth)) {
    if (scheme.type !== 'apiKey') continue;
    if (scheme.in === 'header') headers.add(scheme.name.toLowerCase());
    if (scheme.in === 'query') query.add(scheme.name);
  }
  return { headers, query };
}

export class RedirectError extends Error {}

/**
 * fetch with redirects followed by hand (RFC 9110 §15.4). fetch's own following strips only
 * Authorization and Cookie on a new origin, so an apiKey header or query parameter went to
 * wherever the API redirected. Here a change of origin (scheme, host or port: https → http
 * on the same host counts) drops every credential place; 301/302 turn a POST into a GET and
 * 303 anything but HEAD, without a body; 307/308 keep method and body.
 */
export async function fetchFollowingRedirects(request: OutgoingRequest, signal: AbortSignal, places: CredentialPlaces): Promise<Response> {
  let url = new URL(request.url);
  let method = request.method;
  let headers: Record<string, string> = { ...request.headers };
  let body = request.body;
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (![301, 302, 303, 307, 308].includes(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    if (hop === MAX_REDIRECTS) throw new RedirectError(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RedirectError('a redirect to an invalid URL');
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new RedirectError(`a redirect to a ${next.protocol} URL`);
    if (next.origin !== url.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !places.headers.has(name.toLowerCase())));
      for (const name of places.query) next.searchParams.delete(name);
    }
    if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-/i.test(name)));
    }
    url = next;
  }
}

/** Reads at most `limit` bytes and stops the download there. */
export async function readLimited(response: Response, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}

/** `user:password@` in any URL of a text, which fetch quotes in its errors. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

/**
 * Removes every credential value in use, and URL userinfo, from a text bound for a client or
 * a log. Values shorter than 4 characters are left: replacing them would mangle the text and
 * hide nothing.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let out = text.replace(USERINFO, '$1***@');
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}

/**
 * Why a credential value cannot be sent, if it cannot: control characters (a line break would
 * end the header, and fetch's refusal quotes the value), and for header use anything beyond
 * the field-value characters of RFC 9110 §5.5 (visible ASCII, space, tab, obs-text).
 */
export function badCredential(value: string, inHeader: boolean): string | undefined {
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'contains a line break or control character';
  if (inHeader && /[^\x09\x20-\x7e\x80-\xff]/.test(value)) return 'contains characters an HTTP header cannot carry';
  return undefined;
}
