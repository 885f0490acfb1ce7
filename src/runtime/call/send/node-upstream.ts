// The Node server's upstream client: node:http and node:https with keep-alive pools, node:zlib
// for content-codings. Loaded by upstream.ts with import() where the platform sends through
// node:http (Node); every other platform sends with fetch and never loads this module.

import type { Agent, IncomingMessage, request as HttpRequest } from 'node:http';
import { pipeline, Readable, type Duplex } from 'node:stream';
import type { Cancellation } from './call-limit.js';
import { joinChunks, type UpstreamResponse } from './upstream-response.js';
import { utf8Bytes } from '../../start/crypto.js';
import { isIdempotentMethod } from '../../../contract/http-methods.js';

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
// The address checks (node:dns) load with the first connection that must reach public addresses only: most servers never make one.
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

/** Methods whose empty body fetch announces as `Content-Length: 0` (RFC 9110 §8.6): the same here. */
const BODY_EXPECTED = new Set(['POST', 'PUT', 'PATCH']);

/**
 * One request over node:http, no redirect followed, with the headers fetch adds by default
 * (`Accept-Encoding`, `User-Agent`) and the length computed here. `publicOnly`: connections are
 * made only to public addresses, checked as each is made.
 */
export async function sendWithNodeHttp(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: Cancellation,
  publicOnly: boolean,
): Promise<UpstreamResponse> {
  // As fetch does: credentials in the URL are refused, not sent as Basic auth (which node:http
  // would do); a credential belongs in a security scheme, which keeps it to its origin.
  if (url.username || url.password) throw new TypeError(`a URL with a user name or password cannot be requested: ${url.href}`);
  const payload = body === undefined ? undefined : typeof body === 'string' ? utf8Bytes(body) : body;
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
      if (attempt === 0 && stale && isIdempotentMethod(method) && !signal.aborted) continue;
      throw error;
    }
  }
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

/** Whether a body is node:http's (a stream this module made), read by readStream. */
export const isNodeBody = (body: unknown): body is Readable => body instanceof Readable;

/**
 * readLimited (upstream.ts) for a node:http body, by its events: what `for await` does (the same chunks, the
 * same errors, the stream destroyed when cut), without the async iterator's bookkeeping.
 */
export function readStream(stream: Readable, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (stream.readableEnded) return Promise.resolve(joinChunks([], 0, false));
  if (stream.destroyed) return Promise.reject(stream.errored ?? prematureClose());
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const finish = (truncated: boolean) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      resolve(joinChunks(chunks, size, truncated));
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
