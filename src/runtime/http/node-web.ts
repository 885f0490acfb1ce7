// A node:http exchange as the web-standard Request a web handler takes, and that handler's
// Response written back: the one conversion between the Node listener and the web core
// (web/web-server.ts) that serves every platform. The body streams both
// ways with backpressure: a request's socket is paused while its stream is full, an answer's
// stream is read only as fast as the socket drains. No node: module is imported here.

import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bytes of a request body buffered ahead of its reader before the socket is paused. */
const BODY_HIGH_WATER_MARK = 64 * 1024;

/** One request and its response, for a web handler. */
export class NodeExchange {
  /** Aborted when the client goes before its answer is written, as toNodeHandler's signal is. */
  readonly gone: AbortSignal;
  /** Set when the handler stopped reading the body (past its size limit): the connection is then closed after the answer. */
  private bodyLeftUnread = false;
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

  /** The request as a web Request at `url`, its body (any method but GET and HEAD) streamed from the socket. */
  request(url: URL | string): Request {
    const method = this.req.method ?? 'GET';
    const init: RequestInit & { duplex?: 'half' } = { method, headers: headerList(this.req) };
    if (method !== 'GET' && method !== 'HEAD') {
      init.body = this.bodyStream();
      init.duplex = 'half';
    }
    return withSignal(new Request(url, init), this.gone);
  }

  /** Writes `response`: a JSON body in one write with its length, any other (an SSE stream) as it comes, until the client goes. */
  async write(response: Response): Promise<void> {
    const headers = responseHeaders(response);
    // The rest of the body is not read (past the size limit, or refused on its Content-Length):
    // node:http would read it all to keep the connection.
    if (this.bodyLeftUnread || !this.req.complete) headers['connection'] = 'close';
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
