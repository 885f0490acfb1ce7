// A node:http exchange as the web-standard Request a web handler takes, and that handler's
// Response written back: the one conversion between the Node listener and the web core
// (web/web-server.ts) that serves every platform. The body streams both
// ways with backpressure: a request's socket is paused while its stream is full, an answer's
// stream is read only as fast as the socket drains. No node: module is imported here.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { READ_BODY_WITHIN } from '../web/web-steps.js';

/** Bytes of a request body buffered ahead of its reader before the socket is paused. */
const BODY_HIGH_WATER_MARK = 64 * 1024;

/** One request and its response, for a web handler. */
export class NodeExchange {
  /** Aborted when the client goes before its answer is written, as toNodeHandler's signal is. */
  readonly gone: AbortSignal;
  /** Set when the handler stopped reading the body (past its size limit): the connection is then closed after the answer. */
  private bodyLeftUnread = false;
  /** Set when a reader began on the body (readWithin, or its stream). */
  private bodyRead = false;
  private answered = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    const gone = new AbortController();
    res.once('close', () => {
      if (!this.answered) gone.abort();
    });
    if (res.destroyed) gone.abort();
    this.gone = gone.signal;
  }

  /**
   * The request as a web Request at `url`. Its body (any method but GET and HEAD) is left on the
   * socket until it is asked for: the web core's steps read it straight from there (readText),
   * anything else gets it as a stream. A body a web Request holds is a web stream in undici,
   * whose making and reading cost more CPU per call than the rest of the conversion.
   */
  request(url: URL | string): Request {
    const method = this.req.method ?? 'GET';
    const init = { method, headers: headerList(this.req) };
    if (method === 'GET' || method === 'HEAD') return withSignal(new Request(url, init), this.gone);
    return withSignal(new NodeRequest(url, init, this), this.gone);
  }

  /** The whole body, straight from the socket; undefined past `maxBytes` (the rest left unread, the connection closed after the answer). */
  readWithin(maxBytes: number): Promise<Uint8Array | undefined> {
    const req = this.req;
    this.bodyRead = true;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = () => {
        req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size <= maxBytes) return void chunks.push(chunk);
        stop();
        this.bodyLeftUnread = !req.readableEnded;
        req.pause();
        resolve(undefined);
      };
      const onEnd = () => {
        stop();
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      };
      const onError = (error: Error) => {
        stop();
        reject(error);
      };
      const onClose = () => onError(new Error('the client went before the end of its request'));
      req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
    });
  }

  /** A body of a declared length within BODY_HIGH_WATER_MARK that no one began to read. */
  private smallBodyUnread(): boolean {
    const length = Number(this.req.headers['content-length'] ?? Number.NaN);
    return !this.bodyRead && length <= BODY_HIGH_WATER_MARK;
  }

  /** The body as a stream, for a reader other than readText. */
  stream(): ReadableStream<Uint8Array> {
    this.bodyRead = true;
    return this.bodyStream();
  }

  /** Writes `response`: a JSON body in one write with its length, any other (an SSE stream) as it comes, until the client goes. */
  async write(response: Response): Promise<void> {
    const headers = responseHeaders(response);
    // The rest of the body is not read (past the size limit, or refused on its Content-Length):
    // node:http would read it all to keep the connection. A small one nobody asked for (a
    // request refused before its body was read) it may read and drop.
    if (this.bodyLeftUnread || !(this.req.complete || this.smallBodyUnread())) headers['connection'] = 'close';
    const type = response.headers.get('content-type') ?? '';
    if (response.body !== null && type.startsWith('application/json')) {
      const bytes = await wholeBody(response.body);
      headers['content-length'] = String(bytes.byteLength); // set before writeHead, or node:http sends it chunked
      this.res.writeHead(response.status, headers).end(bytes);
    } else {
      // Sent now, not with the first chunk: an SSE stream may stay quiet for minutes, and its
      // client waits for the status before it reads any event.
      this.res.writeHead(response.status, headers).flushHeaders();
      await this.streamBody(response.body);
      this.res.end();
    }
    this.answered = true;
  }

  /** The body as a stream the reader pulls: the socket is paused while BODY_HIGH_WATER_MARK bytes wait unread. */
  private bodyStream(): ReadableStream<Uint8Array> {
    const req = this.req;
    let done = false;
    const onData = (chunk: Buffer, controller: ReadableStreamDefaultController<Uint8Array>) => {
      if (done) return;
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      if ((controller.desiredSize ?? 0) <= 0) req.pause();
    };
    const finish = (controller: ReadableStreamDefaultController<Uint8Array>, error?: Error) => {
      if (done) return;
      done = true;
      if (error === undefined) controller.close();
      else controller.error(error);
    };
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          req.on('data', (chunk: Buffer) => onData(chunk, controller));
          req.once('end', () => finish(controller));
          req.on('error', (error) => finish(controller, error));
          req.once('close', () =>
            finish(controller, req.readableEnded ? undefined : new Error('the client went before the end of its request')),
          );
        },
        pull: () => {
          if (!done) req.resume();
        },
        cancel: () => {
          done = true;
          this.bodyLeftUnread = !req.readableEnded;
          req.pause();
        },
      },
      { highWaterMark: BODY_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
    );
  }

  /** An answer's body written as it comes, waiting for the socket to drain, until the client goes. */
  private async streamBody(body: ReadableStream<Uint8Array> | null): Promise<void> {
    if (body === null) return;
    const res = this.res;
    let drained: (() => void) | undefined;
    res.on('drain', () => {
      drained?.();
      drained = undefined;
    });
    const reader = body.getReader();
    // Cancelled when the client goes: the pending read ends, and so does the handler's stream (a session's call is no longer busy).
    const closed = new Promise<void>((resolve) =>
      this.gone.addEventListener(
        'abort',
        () => {
          void reader.cancel().catch(() => {});
          resolve();
        },
        { once: true },
      ),
    );
    try {
      for (let read = await reader.read(); !read.done && !this.gone.aborted; read = await reader.read()) {
        if (!res.write(read.value)) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), closed]);
      }
    } catch {
      // the stream failed or was cancelled: the answer ends here, as toNodeHandler ends it
    }
  }
}

/**
 * A request whose body stays on the socket until asked for (NodeExchange.request): read whole
 * by readText (READ_BODY_WITHIN), or as the stream `body` is, made on first use. The ways a
 * Request reads its own body go through that stream too, through a Response that holds it.
 */
class NodeRequest extends Request {
  #exchange: NodeExchange;
  #body: ReadableStream<Uint8Array> | undefined;
  #used = false;

  constructor(url: URL | string, init: RequestInit, exchange: NodeExchange) {
    super(url, init);
    this.#exchange = exchange;
  }

  // Request declares them as properties; they are accessors on its prototype.
  static {
    Object.defineProperty(this.prototype, 'body', {
      get(this: NodeRequest) {
        this.#body ??= this.#exchange.stream();
        return this.#body;
      },
    });
    Object.defineProperty(this.prototype, 'bodyUsed', {
      get(this: NodeRequest) {
        return this.#used || (this.#body?.locked ?? false);
      },
    });
    // A Request's own readers would find no body (it is not given to the constructor): they read the stream.
    for (const read of ['text', 'json', 'arrayBuffer', 'blob', 'formData'] as const) {
      Object.defineProperty(this.prototype, read, {
        value(this: NodeRequest) {
          return this.#whole()[read]();
        },
      });
    }
  }

  [READ_BODY_WITHIN](maxBytes: number): Promise<Uint8Array | undefined> {
    if (this.bodyUsed) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return this.#exchange.readWithin(maxBytes);
  }

  #whole(): Response {
    return new Response(this.body, { headers: this.headers });
  }
}

/**
 * The request target as a URL on the Host header's name and the port the connection came in on
 * (never the Host's port: OAuth's resource identifiers are made of it, resource.ts), or undefined
 * when it cannot be one (`GET http://[`): node:http passes any target through, and a throw here
 * would end the whole server. A Host that is no name is the guard's to refuse.
 */
export function requestUrl(target: string | undefined, host: string | undefined, port: number | undefined): URL | undefined {
  const url = URL.parse(target ?? '/', `http://${URL.canParse(`http://${host}`) ? host : 'localhost'}`) ?? undefined;
  if (url !== undefined && port !== undefined) url.port = String(port);
  // user info from the Host header (`localhost@evil.example`) or an absolute target means nothing
  // here, and a Request refuses a URL that has it
  if (url !== undefined) url.username = url.password = '';
  return url;
}

/**
 * `request` with `signal` as the signal its handler reads (an answer is abandoned when its client
 * goes), set on the Request itself: given as an option, undici would tie its own signal to it with
 * weak references and a finalizer, which cost more CPU than the rest of the conversion.
 */
function withSignal(request: Request, signal: AbortSignal): Request {
  Object.defineProperty(request, 'signal', { value: signal });
  return request;
}

/**
 * A request's headers as a list, which a Request takes as it is rather than copying a Headers
 * object: a repeated header once per value, HTTP/2 pseudo-headers left out.
 */
function headerList(req: IncomingMessage): [string, string][] {
  const headers: [string, string][] = [];
  for (const name in req.headers) {
    const value = req.headers[name];
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.push([name, item]);
    else headers.push([name, value]);
  }
  return headers;
}

/** A Response's headers for writeHead: Set-Cookie kept as its list (a Headers object joins the others). */
function responseHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return headers;
}

/** A body read to its end by its reader: less CPU than arrayBuffer() or async iteration (mostly one chunk). */
async function wholeBody(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}
