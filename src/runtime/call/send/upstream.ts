// Talking to the upstream API, which is not trusted: it may redirect anywhere, answer without
// end, or fail with messages that quote what was sent. So redirects are followed here, not by
// the HTTP client, and credentials go only to the origin they were configured for; bodies are
// read up to a limit; and every text that can reach a client is redacted first.

import { abortSignalOf, type Cancellation } from './call-limit.js';
import { joinChunks, type UpstreamResponse } from './upstream-response.js';
import type { OutgoingRequest } from '../../hooks-api.js';
import { namesASecret, ownValue, type ToolTable } from '../../../contract/table.js';
import { platform } from '../../start/platform.js';
import { methodOnTheWire } from '../../../contract/http-methods.js';

/** Redirect hops followed before giving up (browsers allow 20; an API needs one or two). */
const MAX_REDIRECTS = 5;

/** Where credentials travel in a request: the headers and query parameters to drop when the origin changes. */
export interface CredentialPlaces {
  headers: Set<string>;
  query: Set<string>;
}

/** Every place any security scheme or secret hidden argument of the table puts a credential, plus the generic ones. */
export function credentialPlaces(table: ToolTable): CredentialPlaces {
  const headers = new Set(['authorization', 'proxy-authorization', 'cookie']);
  const query = new Set<string>();
  for (const scheme of Object.values(table.auth)) {
    if (scheme.type !== 'apiKey') continue;
    if (scheme.in === 'header') headers.add(scheme.name.toLowerCase());
    if (scheme.in === 'query') query.add(scheme.name);
  }
  // A hidden argument read from a variable named as a secret is a credential too (redact.ts).
  for (const tool of table.tools) {
    for (const param of tool.http.params) {
      const hidden = ownValue(tool.hidden, param.arg);
      if (hidden === undefined || !('env' in hidden) || !namesASecret(hidden.env)) continue;
      if (param.in === 'header') headers.add(param.name.toLowerCase());
      if (param.in === 'query') query.add(param.name);
    }
  }
  return { headers, query };
}

/** The parsed URL of each request, by request object: a call names, paces and sends its request by one parse of its URL. */
const parsedUrls = new WeakMap<{ url: string }, { text: string; url: URL }>();

/**
 * `request.url` parsed, once per request and URL text (a hook or a credential in the query
 * changes the text, and so the parse). The URL is shared: read it, never change it.
 */
export function urlOf(request: { url: string }): URL {
  const known = parsedUrls.get(request);
  if (known !== undefined && known.text === request.url) return known.url;
  const url = new URL(request.url);
  parsedUrls.set(request, { text: request.url, url });
  return url;
}

export class RedirectError extends Error {}

// The Node client (node:http, node:zlib) loads where the platform sends through it, with the
// first request; once loaded, a request takes it without a turn of the event loop.
let nodeClient: typeof import('./node-upstream.js') | undefined;
const loadNodeClient = async () => (nodeClient = await import('./node-upstream.js'));
// The address checks (node:dns) load with the first request that needs them: most servers never do.
let addressChecks: Promise<typeof import('../../../contract/addresses.js')> | undefined;
const addresses = () => (addressChecks ??= import('../../../contract/addresses.js'));

/**
 * One request, no redirect followed: by fetch where the platform sends with it (and for a
 * hook's body only fetch frames), otherwise by node:http (node-upstream.ts, which adds the
 * headers fetch adds by default, so that the upstream sees the same request from either).
 * `publicOnly`: refuse an internal address.
 */
export async function sendOnce(
  url: URL,
  asked: string,
  headers: Record<string, string>,
  body: unknown,
  signal: Cancellation,
  publicOnly = false,
): Promise<UpstreamResponse> {
  // A hook may spell a fixed field's method in lower case (`patch`): node:http sent it as PATCH, and so does this.
  const method = methodOnTheWire(asked);
  // FormData, Blob, a stream: only a hook sends these, and fetch knows how to frame them. A
  // method not in capitals (an OAS 3.2 additionalOperations key, sent as written: RFC 9110
  // §9.1) goes by fetch too, since node:http upper-cases every method.
  const viaFetch =
    platform().upstream === 'fetch' ||
    (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) ||
    method !== method.toUpperCase();
  if (publicOnly) await refuseInternal(url, viaFetch);
  if (viaFetch) {
    return fromWebResponse(
      await fetch(url, { method, headers, body: body as RequestInit['body'], signal: abortSignalOf(signal), redirect: 'manual' }),
    );
  }
  const node = nodeClient ?? (await loadNodeClient());
  return node.sendWithNodeHttp(url, method, headers, body as string | Uint8Array | undefined, signal, publicOnly);
}

/**
 * An IP address is connected to without a lookup: checked here. fetch takes no lookup hook, so
 * for it a name is checked here too, just before.
 */
async function refuseInternal(url: URL, viaFetch: boolean): Promise<void> {
  const { InternalAddressError, internalAddressOf, ipLiteral } = await addresses();
  if (!viaFetch && ipLiteral(url) === undefined) return;
  const internal = await internalAddressOf(url);
  if (internal !== undefined) throw new InternalAddressError(url.hostname.replace(/^\[|\]$/g, ''), internal);
}

/** A fetch Response (a hook's, or fetch's own) as an UpstreamResponse. */
export function fromWebResponse(response: Response): UpstreamResponse {
  const stream = response.body;
  // Once the body is being read its stream is locked, and only its reader can cancel it (a
  // streamed answer stopped at a limit while a read waits).
  const reading: { reader?: ReadableStreamDefaultReader<Uint8Array> } = {};
  return {
    status: response.status,
    statusText: response.statusText,
    header: (name) => response.headers.get(name),
    headerList: () => [...response.headers],
    body: stream ? iterate(stream, reading) : null,
    discard: () => void (reading.reader ?? stream)?.cancel().catch(() => undefined),
  };
}

async function* iterate(
  stream: ReadableStream<Uint8Array>,
  reading: { reader?: ReadableStreamDefaultReader<Uint8Array> },
): AsyncGenerator<Uint8Array> {
  const reader = (reading.reader = stream.getReader());
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The answer as a fetch Response, for the user's afterResponse hooks (their declared type). */
export function toWebResponse(answer: UpstreamResponse): Response {
  const headers = new Headers();
  for (const [name, value] of answer.headerList()) headers.append(name, value);
  // A status without content (204, 205, 304) comes with a null body from both sources.
  const source = answer.body?.[Symbol.asyncIterator]();
  const body = source
    ? new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await source.next();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: () => answer.discard(),
      })
    : null;
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers });
}

/** The statuses that redirect (RFC 9110 §15.4): 301, 302, 303, 307, 308. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A request with redirects followed by hand (RFC 9110 §15.4), never by the HTTP client: fetch's
 * own following strips only Authorization and Cookie on a new origin, so an apiKey header or
 * query parameter would go wherever the API redirects. Here a change of origin (scheme, host or
 * port: https → http on the same host counts) drops every credential place; 301/302 turn a POST
 * into a GET and 303 anything but HEAD, without a body; 307/308 keep method and body.
 * `publicServers` (the table's rule for a spec from a URL) holds for every hop. And an upstream
 * on a public address may not lead the server into the internal network: once a redirect
 * leaves its origin, every hop elsewhere must be public too (as a browser's Private Network
 * Access would have it), so an open redirect on the API cannot reach the cloud's metadata
 * service or an admin port beside the server. An upstream you run internally redirects freely.
 */
export async function sendFollowingRedirects(
  request: OutgoingRequest,
  signal: Cancellation,
  places: CredentialPlaces,
  publicServers?: ToolTable['publicServers'],
): Promise<UpstreamResponse> {
  let url = urlOf(request);
  let method = request.method;
  // Never changed in place (a hop that drops headers makes a new object): the request's own, uncopied.
  let headers: Record<string, string> = request.headers;
  let body: unknown = request.body;
  const start = url;
  let fromPublic: boolean | undefined; // decided at the first redirect away from `start`
  for (let hop = 0; ; hop++) {
    const redirectedOut = fromPublic === true && url.origin !== start.origin;
    const publicOnly = redirectedOut || (publicServers !== undefined && url.origin !== publicServers.trustedOrigin);
    const response = await sendOnce(url, method, headers, body, signal, publicOnly).catch((error: unknown) => {
      throw redirectedOut ? intoTheInternalNetwork(error, start) : error;
    });
    if (!REDIRECTS.has(response.status)) return response;
    const location = response.header('location');
    if (location === null) return response;
    response.discard();
    if (hop === MAX_REDIRECTS) throw new RedirectError(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RedirectError('a redirect to an invalid URL');
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new RedirectError(`a redirect to a ${next.protocol} URL`);
    if (next.origin !== start.origin) fromPublic ??= await isPublic(start);
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

/**
 * Whether a URL's host is, and resolves to, public addresses only (a name that does not resolve
 * counts as public: stricter). False where names cannot be resolved here (workerd has no
 * node:dns), and its fetch reaches no private network anyway.
 */
async function isPublic(url: URL): Promise<boolean> {
  try {
    return (await (await addresses()).internalAddressOf(url)) === undefined;
  } catch {
    return false;
  }
}

/** A hop refused for its internal address, said as the redirect it was (the rule is not the spec's servers'). */
function intoTheInternalNetwork(error: unknown, start: URL): unknown {
  if ((error as { code?: string }).code !== 'EINTERNAL') return error;
  return new RedirectError(`a redirect from the public ${start.origin} into the internal network: ${(error as Error).message}`);
}

/** Reads at most `limit` bytes and stops the download there. */
export function readLimited(response: Pick<UpstreamResponse, 'body'>, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return Promise.resolve({ bytes: new Uint8Array(0), truncated: false });
  if (nodeClient?.isNodeBody(response.body)) return nodeClient.readStream(response.body, limit);
  return readIterable(response.body, limit);
}

async function readIterable(body: AsyncIterable<Uint8Array>, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  // Leaving the loop early (break) ends the download: the stream is destroyed or cancelled.
  for await (const value of body) {
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      truncated = true;
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return joinChunks(chunks, size, truncated);
}
