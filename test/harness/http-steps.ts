// Steps of the web core's request path served alone by a real node:http server on 127.0.0.1,
// and a raw client that sends any header (fetch forbids Host and adds its own).
import { createServer, request, type Agent, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientAddress } from '../../src/runtime/http/connections.js';
import { NodeExchange, requestUrl } from '../../src/runtime/http/node-web.js';
import type { WebContext, WebStep } from '../../src/runtime/web/web-steps.js';
import type { Logger } from '../../src/runtime/start/log.js';
import type { ToolTable } from '../../src/contract/table.js';

export interface StepServer {
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves web steps (web/web-steps.ts) in order through the Node adapter, as the core runs them;
 * a request that passes them all is answered 200 `{ passed: true, body }`.
 */
export function serveWebSteps(...steps: WebStep[]): Promise<StepServer> {
  return serveWeb({
    async fetch(request, info) {
      const url = new URL(request.url);
      const context: WebContext = { address: info.remoteAddr.hostname };
      for (const step of steps) {
        const answered = await step(request, url, context);
        if (answered !== undefined) return answered;
      }
      return Response.json({ passed: true, body: context.body });
    },
  });
}

/** A web handler (the web core) served on 127.0.0.1 through the Node adapter (node-web.ts), told each client's address. */
export function serveWeb(handler: {
  fetch(request: Request, info: { remoteAddr: { hostname: string } }): Promise<Response>;
}): Promise<StepServer> {
  return listenLocally(
    createServer((req, res) => {
      const exchange = new NodeExchange(req, res);
      // As the listener makes it: the Host's name, the port the connection came in on.
      const url = requestUrl(req.url, req.headers.host, req.socket.localPort) as URL;
      void handler
        .fetch(exchange.request(url), { remoteAddr: { hostname: clientAddress(req.socket) } })
        .then((answer) => exchange.write(answer));
    }),
  );
}

export async function listenLocally(server: Server): Promise<StepServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Sent {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A keep-alive agent, to send on the connection of an earlier request. */
  agent?: Agent;
}

export interface Received {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The text parsed as JSON, or undefined. */
  json: unknown;
  /** This side's port: the same for requests sent on one connection. */
  clientPort: number | undefined;
}

export function send(port: number, { method = 'GET', path = '/', headers = {}, body, agent }: Sent = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const clientPort = res.socket?.localPort;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, clientPort });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends a chunked POST (no Content-Length) of `size` bytes, and what comes back (status, Connection, text), or the socket's error. */
export function postChunked(
  port: number,
  path: string,
  contentType: string,
  size: number,
): Promise<{ status: number; connection: string | undefined; text: string } | Error> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
    });
    req.on('error', (error) => resolve(error));
    const chunk = 'x'.repeat(8_192);
    for (let sent = 0; sent < size; sent += chunk.length) req.write(chunk);
    req.end();
  });
}

/** A Logger that keeps what it is told, as `level: message` lines. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), notice: at('notice') };
}

/** A table of one API at https://api.example with no tools: a server whose steps, not its tools, are under test. */
export function apiWithoutTools(more: Partial<ToolTable> = {}): ToolTable {
  return {
    format: 1,
    name: 'acme',
    version: '1.0.0',
    servers: [{ url: 'https://api.example' }],
    defs: {},
    auth: {},
    tools: [],
    ...more,
  } as ToolTable;
}
