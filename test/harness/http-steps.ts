// Pieces of the HTTP request pipeline served alone by a real node:http server on 127.0.0.1,
// and a raw client that sends any header (fetch forbids Host and adds its own).
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonRpcError, sendJson } from '../../src/runtime/http/answer.js';
import { clientAddress } from '../../src/runtime/http/connections.js';
import { NodeExchange } from '../../src/runtime/http/node-web.js';
import { pipeline, type HttpStep } from '../../src/runtime/http/pipeline.js';
import type { Logger } from '../../src/runtime/start/log.js';

export interface StepServer {
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Serves the steps; a request that passes them all is answered 200 `{ passed: true, body }`. */
export async function serveSteps(...steps: HttpStep[]): Promise<StepServer> {
  const passed: HttpStep = ({ res, body }) => {
    sendJson(res, 200, { passed: true, body });
    return false;
  };
  const serve = pipeline([...steps, passed]);
  const server = createServer((req, res) => {
    serve({ req, res, url: new URL(req.url ?? '/', 'http://localhost') }).catch((error: unknown) =>
      jsonRpcError(res, 500, -32603, (error as Error).message),
    );
  });
  return listenLocally(server);
}

/** A web handler (the web core) served on 127.0.0.1 through the Node adapter (node-web.ts), told each client's address. */
export function serveWeb(handler: {
  fetch(request: Request, info: { remoteAddr: { hostname: string } }): Promise<Response>;
}): Promise<StepServer> {
  return listenLocally(
    createServer((req, res) => {
      const exchange = new NodeExchange(req, res);
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
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
}

export interface Received {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The text parsed as JSON, or undefined. */
  json: unknown;
}

export function send(port: number, { method = 'GET', path = '/', headers = {}, body }: Sent = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
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
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
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
