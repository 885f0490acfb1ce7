// The HTTP listener both HTTP transports share: the server's timeouts, the one place where
// the request pipeline is composed, connection slots, and the drain on SIGTERM/SIGINT.

import { createServer, type Server as HttpServer, type ServerOptions } from 'node:http';
import type { ServerConfig } from '../start/config.js';
import { shareConnectionSlots } from './connections.js';
import { jsonRpcError } from './answer.js';
import { bearerAuth, warnIfOpen } from './auth-token.js';
import { jsonBody } from './body.js';
import { cors } from './cors.js';
import { Drain } from './drain.js';
import { describeAll, routeTo, type HttpEndpoints } from './endpoints.js';
import { hostOriginGuard } from './guard.js';
import { healthCheck } from './health.js';
import { pipeline, type HttpStep } from './pipeline.js';
import type { Logger } from '../start/log.js';
import type { ResourceServerSteps } from '../oauth/resource-server/resource-server.js';
import type { ScopePolicy } from '../mcp/tool-scopes.js';
import type { ToolTable } from '../../contract/table.js';

/** What the endpoints serve, as the resource server's checks need it (--oauth-issuer). */
export interface Served {
  table: ToolTable;
  /** Set when the server is an OAuth resource server. */
  policy?: ScopePolicy;
}

export async function listen(config: ServerConfig, log: Logger, endpoints: HttpEndpoints[], served: Served): Promise<HttpServer> {
  warnIfOpen(config, log);
  const drain = new Drain(config, log);
  const oauth = await resourceServerSteps(config, served, log);
  const serve = pipeline(requestSteps(config, drain, endpoints, oauth));
  const server = createServer(serverOptions(config), (req, res) => {
    if (!drain.admit(req, res)) return;
    const url = requestUrl(req.url);
    if (url === undefined) return jsonRpcError(res, 400, -32600, 'Bad request: the request target is not a valid URL');
    serve({ req, res, url }).catch((error: unknown) => {
      log.error(`${req.method} ${url.pathname}: ${(error as Error).message}`);
      jsonRpcError(res, 500, -32603, 'Internal server error');
    });
  });
  shareConnectionSlots(server, config, log);
  const port = await listenOn(server, config);
  const origin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.notice(`serving MCP on ${origin}: ${describeAll(endpoints)}`);
  drain.stopOnSignals(server, endpoints);
  return server;
}

/**
 * The request target as a URL, or undefined when it cannot be one (`GET http://[`): node:http
 * passes any target through, and a throw here would end the whole server.
 */
function requestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/** The OAuth resource server's steps, loaded (with jose) only when --oauth-issuer is set. */
async function resourceServerSteps(config: ServerConfig, served: Served, log: Logger): Promise<ResourceServerSteps | undefined> {
  const { oauth } = config;
  if (oauth === undefined || served.policy === undefined) return undefined;
  return (await import('../oauth/resource-server/resource-server.js')).resourceServer(
    { ...config, oauth },
    { table: served.table, policy: served.policy },
    log,
  );
}

/**
 * Every request's way, in order. The readiness probe comes first: a balancer's probe carries
 * neither a listed host name nor the token; the OAuth metadata is public, for any origin. A
 * body is read only from a request let in; a tool call's scopes are checked once it is read.
 */
export function requestSteps(
  config: ServerConfig,
  drain: Drain,
  endpoints: readonly HttpEndpoints[],
  oauth?: ResourceServerSteps,
): HttpStep[] {
  return [
    healthCheck(() => drain.isDraining),
    ...(oauth ? [oauth.metadata] : []),
    ...(oauth?.authorization ? [oauth.authorization] : []),
    cors(config.corsOrigins),
    hostOriginGuard(config),
    oauth ? oauth.gate : bearerAuth(config.authToken),
    jsonBody(config.maxRequestBytes),
    ...(oauth ? [oauth.scopes] : []),
    routeTo(endpoints),
  ];
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
