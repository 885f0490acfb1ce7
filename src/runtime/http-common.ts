// What both HTTP transports share: DNS-rebinding guards, /healthz, listening, shutdown.

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import { isLoopback, type ServerConfig } from './config.js';
import { clientAddress, shareConnectionSlots } from './connections.js';
import { jsonDeeperThan } from '../contract/limits.js';
import type { Logger } from './log.js';

/** One HTTP transport's endpoints: `handle` answers the requests it owns and returns true. */
export interface HttpEndpoints {
  describe: string;
  /** `body` is the parsed JSON body of a POST, already checked for size and depth. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<boolean>;
  /** Calls still being answered outside a request of their own (legacy SSE answers on its GET stream). */
  pendingCalls?(): number;
  close(): Promise<void>;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]', '::1'];

/**
 * Host and Origin must name this server (DNS-rebinding protection, required by the MCP
 * transport spec for local servers). Loopback names are always allowed; when bound to
 * another interface the operator lists the public names with --allowed-hosts/--allowed-origins.
 */
function guards(config: ServerConfig) {
  const hosts = [...LOOPBACK, ...config.allowedHosts.map(hostnameOf)];
  const origins = [
    ...LOOPBACK,
    ...config.allowedOrigins.map(hostnameOf),
    ...config.allowedHosts.map(hostnameOf),
    ...config.corsOrigins.filter((o) => o !== '*').map(hostnameOf),
  ];
  const checkHost = hostHeaderValidation(hosts);
  // With CORS `*` any Origin is welcome by choice (config.ts then requires MCP_AUTH_TOKEN);
  // the Host check still stands against DNS rebinding.
  const checkOrigin = config.corsOrigins.includes('*') ? () => true : originValidation(origins);
  return (req: IncomingMessage, res: ServerResponse) => checkHost(req, res) && checkOrigin(req, res);
}

/** `https://app.example.com:8443` and `app.example.com:8443` both name `app.example.com`. */
function hostnameOf(entry: string): string {
  try {
    return new URL(entry.includes('://') ? entry : `http://${entry}`).hostname;
  } catch {
    return entry;
  }
}

/**
 * The simple protection for the MCP endpoint: one shared bearer token (RFC 6750). This is the
 * seam where an OAuth 2.1 resource-server check (token introspection or JWT validation, with
 * protected-resource metadata) would go: it receives the request and accepts or answers 401.
 */
function bearerCheck(token: string | undefined): (req: IncomingMessage, res: ServerResponse) => boolean {
  if (token === undefined) return () => true;
  const expected = sha256(Buffer.from(token, 'latin1'));
  return (req, res) => {
    // Exactly "Bearer " and the token, compared as the bytes that came (Node reads header
    // bytes as latin1). Nothing is trimmed, so no look-alike space or padding passes.
    const given = /^Bearer (.*)$/is.exec(req.headers.authorization ?? '')?.[1];
    if (given !== undefined && timingSafeEqual(sha256(Buffer.from(given, 'latin1')), expected)) return true;
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': given === undefined ? 'Bearer realm="mcp"' : 'Bearer realm="mcp", error="invalid_token"',
    });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized: send Authorization: Bearer <token>' }, id: null }),
    );
    return false;
  };
}

/** Equal-length digests, so that timingSafeEqual can compare tokens of any length. */
const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

/** Open sessions or connections by client address, against a cap. */
class CountByAddress {
  private readonly open = new Map<string, number>();

  /** Counts one more for `address` and returns true, or returns false when it holds `max`. */
  take(address: string, max: number): boolean {
    const open = this.open.get(address) ?? 0;
    if (open >= max) return false;
    this.open.set(address, open + 1);
    return true;
  }

  /** Gives one back; returns how many `address` still holds. */
  give(address: string): number {
    const open = (this.open.get(address) ?? 1) - 1;
    if (open > 0) this.open.set(address, open);
    else this.open.delete(address);
    return open;
  }
}

// Open sessions (Streamable HTTP and SSE together) by client IP address. One greedy client
// holding --max-sessions (1,000 opened and never closed) locked every other client out until
// they went idle; a per-client cap keeps room for the rest.
const sessionsByClient = new CountByAddress();

/**
 * Counts a new session against the requesting client, or answers 429 and returns undefined.
 * Call `releaseSession` with the returned key when the session ends.
 */
export function claimSession(req: IncomingMessage, res: ServerResponse, config: ServerConfig): string | undefined {
  const client = clientAddress(req.socket);
  if (!sessionsByClient.take(client, config.maxSessionsPerClient)) {
    jsonRpcError(
      res,
      429,
      -32000,
      `Too many open sessions from ${client} (${config.maxSessionsPerClient}); close one (DELETE /mcp, or end the SSE stream) or wait for it to go idle`,
    );
    return undefined;
  }
  return client;
}

export function releaseSession(client: string): void {
  sessionsByClient.give(client);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Deepest nesting of arrays and objects accepted in a request body. */
export const MAX_JSON_DEPTH = 100;

const isJson = (req: IncomingMessage) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(req.headers['content-type'] ?? '');

/**
 * Reads, bounds and parses a POST body for every endpoint, so that the size and depth checks
 * come before any SDK code parses it. Answers the error itself and returns undefined then.
 */
async function readJsonBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<{ body: unknown } | undefined> {
  if (!isJson(req)) {
    jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    return undefined;
  }
  const tooLarge = () => {
    res.setHeader('connection', 'close'); // the rest of the body is not read
    jsonRpcError(res, 413, -32000, `Request body too large (more than ${maxBytes} bytes)`);
    return undefined;
  };
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) return tooLarge();
      chunks.push(chunk);
    }
  } catch {
    return undefined; // the client went away, or the request timed out (Node answered 408)
  }
  const text = Buffer.concat(chunks).toString('utf8');
  // Before JSON.parse, which spends ~0.7 s of event loop on a 2 MB body nested a million deep
  // (the scan: a few ms): twenty such requests stalled every other client for seconds.
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
    jsonRpcError(res, 400, -32600, `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    return undefined;
  }
  try {
    return { body: JSON.parse(text) };
  } catch {
    jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    return undefined;
  }
}

export async function listen(config: ServerConfig, log: Logger, endpoints: HttpEndpoints[]): Promise<HttpServer> {
  const allowed = guards(config);
  const authenticate = bearerCheck(config.authToken);
  const cors = corsHeaders(config.corsOrigins);
  let stopping = false;
  // Between SIGTERM and the drain (--drain-delay-ms): requests are served, but readiness is
  // false, so that a balancer with probes stops routing here before the listener closes.
  let draining = false;
  // Requests being answered, which shutdown waits for. GET requests are the long-lived SSE
  // streams (GET /mcp, GET /sse): they carry no call of their own and would never end.
  const inFlight = new Set<ServerResponse>();
  if (!isLoopback(config.host) && config.authToken === undefined) {
    log.warn(
      `serving on ${config.host} without MCP_AUTH_TOKEN (--allow-unauthenticated): anyone who reaches this port calls the API with its credentials`,
    );
  }
  // Node requires headersTimeout <= requestTimeout.
  const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  const server = createServer(
    {
      // Time to receive a whole request. A GET is complete once its headers are in, so the
      // long-lived SSE streams (GET /mcp, GET /sse) are not cut; a slow POST body is (408).
      requestTimeout: config.requestTimeoutMs,
      // It also bounds a new connection that sends nothing or half a head, which would
      // otherwise hold a connection slot for the whole request timeout.
      headersTimeout,
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, headersTimeout / 4)),
      // Above the ~60-65 s idle timeout of common client pools and load balancers, so that the
      // client, not the server, closes an idle pooled socket (Node's 5 s default made a call
      // after a pause fail with "other side closed"). headersTimeout counts from a request's
      // first byte, not from the idle spell, so it need not exceed this.
      keepAliveTimeout: 70_000,
    },
    (req, res) => {
      if (stopping) {
        // Draining: the listener is closed, but a kept-alive connection can still bring a request.
        res.setHeader('connection', 'close');
        return jsonRpcError(res, 503, -32000, 'Server is shutting down');
      }
      if (req.method !== 'GET') {
        inFlight.add(res);
        res.once('close', () => inFlight.delete(res));
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/healthz' && req.method === 'GET')
        return draining ? sendJson(res, 503, { status: 'draining' }) : sendJson(res, 200, { status: 'ok' });
      if (!cors(req, res)) return;
      if (!allowed(req, res)) return;
      if (!authenticate(req, res)) return;
      void (async () => {
        let body: unknown;
        if (req.method === 'POST') {
          const read = await readJsonBody(req, res, config.maxRequestBytes);
          if (!read) return;
          body = read.body;
        }
        for (const endpoint of endpoints) if (await endpoint.handle(req, res, url, body)) return;
        jsonRpcError(res, 404, -32601, `Not found: ${req.method} ${url.pathname} (${endpoints.map((e) => e.describe).join('; ')})`);
      })().catch((error: unknown) => {
        log.error(`${req.method} ${url.pathname}: ${(error as Error).message}`);
        jsonRpcError(res, 500, -32603, 'Internal server error');
      });
    },
  );
  shareConnectionSlots(server, config, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const origin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.notice(`serving MCP on ${origin}: ${endpoints.map((e) => e.describe).join('; ')}`);

  // Closing the sessions at once (as this did) ended the streams that in-flight calls answer
  // on: the calls were lost and the process exited at once. So: stop listening, wait for the
  // calls to finish (up to the grace period), and only then close the sessions.
  const stop = (signal: string) => {
    if (draining) return;
    draining = true;
    if (config.drainDelayMs === 0) return drain(signal);
    log.info(`${signal}: /healthz answers 503; draining in ${config.drainDelayMs} ms`);
    setTimeout(() => drain(signal), config.drainDelayMs);
  };
  const drain = (signal: string) => {
    stopping = true;
    setTimeout(() => process.exit(0), config.shutdownGraceMs).unref(); // grace is over
    server.close(() => process.exit(0)); // no new connections; exit once every one has ended
    server.closeIdleConnections();
    log.info(`${signal}: shutting down`); // after close(): from this line on, connections are refused
    // close() also stops Node's request-timeout checks, so a body still trickling in would
    // hold the exit for the whole grace period. Its call has not started: refuse it now.
    for (const res of inFlight) {
      if (res.req.complete) continue;
      res.setHeader('connection', 'close');
      jsonRpcError(res, 503, -32000, 'Server is shutting down');
      res.req.socket.destroySoon();
    }
    const busy = () => inFlight.size > 0 || endpoints.some((e) => (e.pendingCalls?.() ?? 0) > 0);
    void (async () => {
      while (busy()) await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.allSettled(endpoints.map((e) => e.close()));
      server.closeAllConnections(); // what is left: idle keep-alive sockets and ended streams
    })();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return server;
}

/**
 * CORS is off unless origins are listed (--cors-origins): browsers then may call the
 * endpoint from those origins and read Mcp-Session-Id. Returns false when it answered.
 */
function corsHeaders(origins: string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  if (origins.length === 0) return () => true;
  const all = origins.includes('*');
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin && (all || origins.includes(origin))) {
      res.setHeader('access-control-allow-origin', all ? '*' : origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': 'Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept',
          'access-control-max-age': '600',
        });
        res.end();
        return false;
      }
    }
    return true;
  };
}
