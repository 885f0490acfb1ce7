// What both HTTP transports share: DNS-rebinding guards, /healthz, listening, shutdown.

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import type { ServerConfig } from './config.js';
import type { Logger } from './log.js';

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]', '::1'];

/**
 * Host and Origin must name this server (DNS-rebinding protection, required by the MCP
 * transport spec for local servers). Loopback names are always allowed; when bound to
 * another interface the operator lists the public names with --allowed-hosts/--allowed-origins.
 */
function guards(config: ServerConfig) {
  const hosts = [...LOOPBACK, ...config.allowedHosts.map(hostnameOf)];
  const origins = [...LOOPBACK, ...config.allowedOrigins.map(hostnameOf), ...config.allowedHosts.map(hostnameOf)];
  const checkHost = hostHeaderValidation(hosts);
  const checkOrigin = originValidation(origins);
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
  const expected = createHash('sha256').update(token).digest();
  return (req, res) => {
    const header = req.headers.authorization ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (given !== undefined && timingSafeEqual(createHash('sha256').update(given).digest(), expected)) return true;
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': given === undefined ? 'Bearer realm="mcp"' : 'Bearer realm="mcp", error="invalid_token"',
    });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized: send Authorization: Bearer <token>' }, id: null }));
    return false;
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

export async function listen(
  config: ServerConfig,
  log: Logger,
  routes: Handler,
  onShutdown: () => Promise<void>,
  describe: string,
): Promise<HttpServer> {
  const allowed = guards(config);
  const authenticate = bearerCheck(config.authToken);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && req.method === 'GET') return sendJson(res, 200, { status: 'ok' });
    if (!allowed(req, res)) return;
    if (!authenticate(req, res)) return;
    Promise.resolve(routes(req, res, url)).catch((error: unknown) => {
      log.error(`${req.method} ${url.pathname}: ${(error as Error).message}`);
      jsonRpcError(res, 500, -32603, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info(`${describe} on http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: shutting down`);
    server.close();
    const force = setTimeout(() => process.exit(0), 5_000);
    force.unref();
    void onShutdown().finally(() => {
      server.closeAllConnections();
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return server;
}
