// Talking to the upstream API, which is not trusted: it may redirect anywhere, answer without
// end, or fail with messages that quote what was sent. So redirects are followed here, not by
// the HTTP client, and credentials go only to the origin they were configured for; bodies are
// read up to a limit; and every text that can reach a client is redacted first.

import type { Agent, IncomingMessage, request as HttpRequest } from 'node:http';
import { pipeline, Readable, type Duplex } from 'node:stream';
import { abortSignalOf, type Cancellation } from './call-limit.js';
import type { OutgoingRequest } from '../../hooks-api.js';
import type { ToolTable } from '../../../contract/table.js';
import { platform } from '../../start/platform.js';

/** Redirect hops followed before giving up (browsers allow 20; an API needs one or two). */
const MAX_REDIRECTS = 5;

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

/**
 * The upstream's answer, as much of it as a tool result needs: from node:http on the common
 * path, or from fetch (a hook's body that only fetch can send, or a hook's own Response).
 */
export interface UpstreamResponse {
  status: number;
  statusText: string;
  header(name: string): string | null;
  /** Every header, a name once per value (Set-Cookie may repeat). */
  headerList(): [string, string][];
  /** The body, decoded from its content-coding (gzip, deflate, br); null when there is none. */
  body: AsyncIterable<Uint8Array> | null;
  /** Stops the download and frees the connection (a redirect, a retry). */
  discard(): void;
}

// One keep-alive pool per protocol and process (and one more for connections that must reach
// public addresses only, so that no socket is shared between the two). node:http with a
// keep-alive agent rather than fetch (undici), which costs ~0.14 ms more CPU on every call.
// node:http and node:https (TLS: ~10 ms) load on the first request that needs them, not at
// start-up, where every millisecond delays `initialize`.
interface Client {
  request: typeof HttpRequest;
  agent: Agent;
}
/** Per protocol: loading, then (replaced once loaded) the client itself, which a request takes without a turn of the event loop. */
const clients = new Map<string, Client | Promise<Client>>();
// The address checks (node:dns) load with the first request that needs them: most servers never do.
let addressChecks: Promise<typeof import('../../../contract/addresses.js')> | undefined;
const addresses = () => (addressChecks ??= import('../../../contract/addresses.js'));
function clientFor(protocol: string, publicOnly: boolean): Client | Promise<Client> | undefined {
  if (protocol !== 'http:' && protocol !== 'https:') return undefined;
  const key = publicOnly ? `${protocol} public` : protocol;
  let client = clients.get(key);
  if (!client) {
    const loading = protocol === 'https:' ? import('node:https') : import('node:http');
    // The lookup runs as each connection is made: the address checked is the address used.
    const lookup = publicOnly ? addresses().then((a) => ({ lookup: a.publicOnlyLookup })) : Promise.resolve({});
    client = Promise.all([loading, lookup]).then(([m, options]) => {
      const made = { request: m.request as typeof HttpRequest, agent: new m.Agent({ keepAlive: true, ...options }) };
      clients.set(key, made);
      return made;
    });
    clients.set(key, client);
  }
  return client;
}

/** RFC 9110 §9.2.2 (and QUERY, draft-ietf-httpbis-safe-method-w-body §2): a request that can be sent again when a kept-alive socket was closed under it. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'QUERY']);
/** Methods whose empty body fetch announces as `Content-Length: 0` (RFC 9110 §8.6): the same here. */
const BODY_EXPECTED = new Set(['POST', 'PUT', 'PATCH']);

/**
 * One request, no redirect followed. The headers fetch adds by default (`Accept-Encoding`,
 * `User-Agent`) are added here too, so that the upstream sees the same request whichever of
 * the two clients sends it; the length is always computed here, never taken from a header.
 * `publicOnly`: refuse an internal address.
 */
export async function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: unknown,
  signal: Cancellation,
  publicOnly = false,
): Promise<UpstreamResponse> {
  // FormData, Blob, a stream: only a hook sends these, and fetch knows how to frame them.
  const viaFetch = platform().upstream === 'fetch' || (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array));
  if (publicOnly) await refuseInternal(url, viaFetch);
  if (viaFetch) {
    return fromWebResponse(
      await fetch(url, { method, headers, body: body as RequestInit['body'], signal: abortSignalOf(signal), redirect: 'manual' }),
    );
  }
  // As fetch does: credentials in the URL are refused, not sent as Basic auth (which node:http
  // would do); a credential belongs in a security scheme, which keeps it to its origin.
  if (url.username || url.password) throw new TypeError(`a URL with a user name or password cannot be requested: ${url.href}`);
  const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  const out: Record<string, string> = {};
  let hasEncoding = false;
  let hasAgent = false;
  // One pass over the headers (a call's hot path): copied but Content-Length, and fetch's defaults noted.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const lower = name.toLowerCase();
    if (lower === 'content-length') continue;
    hasEncoding ||= lower === 'accept-encoding';
    hasAgent ||= lower === 'user-agent';
    out[name] = headers[name] as string;
  }
  if (!hasEncoding) out['accept-encoding'] = 'gzip, deflate, br';
  if (!hasAgent) out['user-agent'] = 'node';
  if (payload !== undefined || BODY_EXPECTED.has(method)) out['content-length'] = String(payload?.byteLength ?? 0);
  for (let attempt = 0; ; attempt++) {
    try {
      return await exchangeOnce(url, method, out, payload, signal, publicOnly);
    } catch (error) {
      // A kept-alive socket the upstream closed while idle fails the first write: the request
      // never arrived. Node's documented remedy is to send it again on a new socket.
      const stale = (error as { reusedSocket?: boolean }).reusedSocket === true;
      if (attempt === 0 && stale && IDEMPOTENT.has(method) && !signal.aborted) continue;
      throw error;
    }
  }
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

async function exchangeOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: Uint8Array | undefined,
  signal: Cancellation,
  publicOnly: boolean,
): Promise<UpstreamResponse> {
  const client = clientFor(url.protocol, publicOnly);
  if (!client) throw new Error(`unsupported protocol ${url.protocol}`);
  const { request, agent } = client instanceof Promise ? await client : client;
  const codings = loadedDecoders ?? (await decoders());
  if (signal.aborted) throw abortError(signal.reason);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => resolve(fromNodeResponse(res, method, codings)));
    // The signal as node:http's own `signal` option would use it (destroy with an AbortError,
    // until the answer is read), without its stream bookkeeping, which costs more CPU than the rest of a small exchange.
    const onAbort = () => req.destroy(abortError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));
    req.on('error', (error: Error & { reusedSocket?: boolean }) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) error.reusedSocket = true;
      reject(error);
    });
    req.end(payload);
  });
}

/** node:http's error for a request its signal aborted. */
function abortError(reason: unknown): Error {
  return Object.assign(new Error('The operation was aborted', { cause: reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** Statuses whose response has no content (RFC 9110 §15.3.6, §15.3.5, §15.4.5), as fetch treats them. */
const NULL_BODY = new Set([204, 205, 304]);

function fromNodeResponse(res: IncomingMessage, method: string, codings: Record<string, () => Duplex>): UpstreamResponse {
  const status = res.statusCode ?? 0;
  const noBody = method === 'HEAD' || NULL_BODY.has(status) || status < 200;
  if (noBody) res.resume();
  const decoder = noBody ? undefined : codings[(header(res, 'content-encoding') ?? '').trim().toLowerCase()];
  // As fetch does: decode gzip, deflate and br, leniently about a missing end marker.
  const stream: Readable | null = noBody ? null : decoder ? pipeline(res, decoder(), () => undefined) : res;
  return {
    status,
    statusText: res.statusMessage ?? '',
    header: (name) => header(res, name),
    headerList: () =>
      Object.entries(res.headers).flatMap(([name, value]) =>
        Array.isArray(value)
          ? value.map((v): [string, string] => [name, v])
          : value === undefined
            ? []
            : [[name, value] as [string, string]],
      ),
    body: stream,
    discard: () => {
      // A body already received, or a small one, is read to its end so that the connection
      // stays open for the next request (a retry's); a large or compressed one is cut off.
      if (stream === res && (res.complete || Number(header(res, 'content-length') ?? Infinity) <= DRAINED_BYTES)) res.resume();
      else {
        stream?.destroy();
        res.destroy();
      }
    },
  };
}

/** Largest unread answer body read to its end on discard, to keep its connection. */
const DRAINED_BYTES = 64 * 1024;

/** Decoders by content-coding, with node:zlib loaded on the first request. */
let decoding: Promise<Record<string, () => Duplex>> | undefined;
let loadedDecoders: Record<string, () => Duplex> | undefined;
const decoders = () =>
  (decoding ??= import('node:zlib').then(({ default: zlib }) => {
    const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    const brotli = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };
    return (loadedDecoders = {
      gzip: () => zlib.createGunzip(lenient),
      'x-gzip': () => zlib.createGunzip(lenient),
      deflate: () => zlib.createInflate(lenient),
      br: () => zlib.createBrotliDecompress(brotli),
    });
  }));

function header(res: IncomingMessage, name: string): string | null {
  const value = res.headers[name.toLowerCase()];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/** A fetch Response (a hook's, or fetch's own) as an UpstreamResponse. */
export function fromWebResponse(response: Response): UpstreamResponse {
  const stream = response.body;
  return {
    status: response.status,
    statusText: response.statusText,
    header: (name) => response.headers.get(name),
    headerList: () => [...response.headers],
    body: stream ? iterate(stream) : null,
    discard: () => void stream?.cancel().catch(() => undefined),
  };
}

async function* iterate(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
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
 * `publicServers` (the table's rule for a spec from a URL) holds for every hop.
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
  for (let hop = 0; ; hop++) {
    const publicOnly = publicServers !== undefined && url.origin !== publicServers.trustedOrigin;
    const response = await sendOnce(url, method, headers, body, signal, publicOnly);
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
export function readLimited(response: Pick<UpstreamResponse, 'body'>, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return Promise.resolve({ bytes: new Uint8Array(0), truncated: false });
  if (response.body instanceof Readable) return readStream(response.body, limit);
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
  return joined(chunks, size, truncated);
}

/**
 * readLimited for a node:http body, by its events: what `for await` does (the same chunks, the
 * same errors, the stream destroyed when cut), without the async iterator's bookkeeping.
 */
function readStream(stream: Readable, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (stream.readableEnded) return Promise.resolve(joined([], 0, false));
  if (stream.destroyed) return Promise.reject(stream.errored ?? prematureClose());
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const finish = (truncated: boolean) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      resolve(joined(chunks, size, truncated));
    };
    const onData = (value: Uint8Array) => {
      if (size + value.length <= limit) {
        chunks.push(value);
        size += value.length;
        return;
      }
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      finish(true);
      stream.destroy();
    };
    const onEnd = () => finish(false);
    const onError = (error: Error) => {
      stream.off('data', onData).off('end', onEnd).off('close', onClose);
      reject(error);
    };
    // Closed with neither an end nor an error: what the async iterator calls a premature close.
    const onClose = () => onError(prematureClose());
    stream.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

const prematureClose = () => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/** The chunks as one array (the only one, when there is one). */
function joined(chunks: Uint8Array[], size: number, truncated: boolean): { bytes: Uint8Array; truncated: boolean } {
  if (chunks.length === 1 && !truncated) return { bytes: chunks[0] as Uint8Array, truncated };
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}
