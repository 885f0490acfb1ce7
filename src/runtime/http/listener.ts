// The HTTP listener both HTTP transports share: node:http around the web core (web/web-server.ts),
// which answers every request as it does on the other platforms. What is Node's own stays here:
// the server's timeouts, connection slots, the drain on SIGTERM/SIGINT, a request target that is
// no URL, and legacy HTTP+SSE, which the core guards and hands back (passOn) to be served on req/res.

import { createServer, type IncomingMessage, type Server as HttpServer, type ServerOptions, type ServerResponse } from 'node:http';
import type { ServerConfig } from '../start/config.js';
import { clientAddress, shareConnectionSlots } from './connections.js';
import { jsonRpcError } from './answer.js';
import { warnIfOpen } from './auth-token.js';
import { Drain } from './drain.js';
import type { HttpEndpoints } from './endpoints.js';
import { NodeExchange, requestUrl } from './node-web.js';
import type { Logger } from '../start/log.js';
import type { Serving } from '../start/serving.js';
import { createWebCore, type PassOn } from '../web/web-server.js';
import { memorySessions } from '../web/sessions-memory.js';

/** What one listener serves: Streamable HTTP at /mcp (the core), legacy HTTP+SSE (on req/res), or both. */
export interface Served {
  serving: Serving;
  streamable: boolean;
  legacy?: HttpEndpoints;
}

/**
 * The exchange as a web Request, or undefined where the fetch standard forbids one that node:http
 * accepts (the method TRACE): `new Request` would throw inside node:http's handler, which ends
 * the process.
 */
function webRequestOf(exchange: NodeExchange, url: URL): Request | undefined {
  try {
    return exchange.request(url);
  } catch {
    return undefined;
  }
}

export async function listen(config: ServerConfig, log: Logger, served: Served): Promise<HttpServer> {
  warnIfOpen(config, log);
  const drain = new Drain(config, log);
  const exchanges = new WeakMap<Request, { req: IncomingMessage; res: ServerResponse }>();
  const sessions = memorySessions((state) => core.session(state), config);
  const core = createWebCore({
    platform: 'node',
    config,
    serving: served.serving,
    log,
    sessions,
    draining: () => drain.isDraining,
    mcp: served.streamable,
    ...(served.legacy !== undefined ? { passOn: legacyPassOn(served.legacy, exchanges) } : {}),
  });
  const server = createServer(serverOptions(config), (req, res) => {
    if (!drain.admit(req, res)) return;
    const url = requestUrl(req.url, req.headers.host, req.socket.localPort);
    if (url === undefined) return jsonRpcError(res, 400, -32600, 'Bad request: the request target is not a valid URL');
    const exchange = new NodeExchange(req, res);
    const request = webRequestOf(exchange, url);
    if (request === undefined) return jsonRpcError(res, 400, -32600, 'Bad request: no request this server takes has this method');
    exchanges.set(request, { req, res });
    core
      .fetch(request, { remoteAddr: { hostname: clientAddress(req.socket) } })
      .then((answer) => (res.headersSent ? undefined : exchange.write(answer)))
      .catch((error: unknown) => {
        log.error(`${req.method} ${url.pathname}: ${(error as Error).message}`);
        jsonRpcError(res, 500, -32603, 'Internal server error');
      });
  });
  shareConnectionSlots(server, config, log);
  const port = await listenOn(server, config);
  const origin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const describe = [
    served.streamable ? `Streamable HTTP at /mcp${config.stateless ? ' (stateless)' : ''}` : undefined,
    served.legacy?.describe,
  ];
  log.notice(`serving MCP on ${origin}: ${describe.filter(Boolean).join('; ')}`);
  drain.stopOnSignals(server, [{ close: () => core.close() }, ...(served.legacy !== undefined ? [served.legacy] : [])]);
  return server;
}

/**
 * Legacy HTTP+SSE past the core's steps: its endpoints answer on the exchange's req/res, with
 * the body the core parsed and the caller's token (as `req.auth`, which sse.ts reads); the core's
 * Response is then not written (the listener sees the head already sent).
 */
function legacyPassOn(legacy: HttpEndpoints, exchanges: WeakMap<Request, { req: IncomingMessage; res: ServerResponse }>): PassOn {
  return {
    describe: legacy.describe,
    async answer(request, url, context) {
      const exchange = exchanges.get(request);
      if (exchange === undefined) return undefined;
      if (context.auth !== undefined) (exchange.req as IncomingMessage & { auth?: unknown }).auth = context.auth;
      for (const [name, value] of Object.entries(context.corsHeaders ?? {})) exchange.res.setHeader(name, value);
      return (await legacy.handle(exchange.req, exchange.res, url, context.body)) ? new Response(null, { status: 204 }) : undefined;
    },
  };
}

function serverOptions(config: ServerConfig): ServerOptions {
  // Node requires headersTimeout <= requestTimeout.
  const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  return {
    // Time to receive a whole request. A GET is complete once its headers are in, so the
    // long-lived SSE streams (GET /mcp, GET /sse) are not cut; a slow POST body is (408).
    requestTimeout: config.requestTimeoutMs,
    // It also bounds a new connection that sends nothing or half a head, which would
    // otherwise hold a connection slot for the whole request timeout.
    headersTimeout,
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, headersTimeout / 4)),
    // Above the ~60-65 s idle timeout of common client pools and load balancers, so that the
    // client, not the server, closes an idle pooled socket (with Node's 5 s default, a call
    // after a pause fails with "other side closed"). headersTimeout counts from a request's
    // first byte, not from the idle spell, so it need not exceed this.
    keepAliveTimeout: 70_000,
  };
}

/** Why the server cannot listen, with the setting that changes it. */
function listenError(config: ServerConfig, error: NodeJS.ErrnoException): string {
  const where = `${config.host}:${config.port}`;
  if (error.code === 'EADDRINUSE') return `port ${config.port} is already in use on ${config.host}: choose another with --port (or PORT)`;
  if (error.code === 'EACCES') return `not allowed to listen on ${where}: choose a port above 1023 with --port (or PORT)`;
  if (error.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: this machine has no such address (--host)`;
  return `cannot listen on ${where} (${error.code ?? error.message})`;
}

/** The port actually bound (config.port may be 0). */
async function listenOn(server: HttpServer, config: ServerConfig): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(listenError(config, error));
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : config.port;
}
