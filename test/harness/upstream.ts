// A real HTTP server on 127.0.0.1 (or another of this machine's addresses) standing in for the
// API: it records every request exactly as received, and answers as the test says.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isInternalAddress } from '../../src/contract/addresses.js';

export interface Recorded {
  method: string;
  /** Path and query exactly as they arrived on the wire. */
  url: string;
  path: string;
  query: URLSearchParams;
  /** Lower-cased names. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The client's port: the same for requests that came on one kept-alive connection. */
  clientPort: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Wait this long before answering (for timeouts). */
  delayMs?: number;
  /** Close the connection instead of answering, as an upstream that crashed mid-request does. */
  reset?: boolean;
  /**
   * A body written piece by piece as the generator yields them (a streaming API), ended when
   * it returns. `closed` settles when the client closes the connection: the generator is then
   * stopped at its next yield.
   */
  stream?: (connection: { closed: Promise<void> }) => AsyncIterable<string>;
}

export interface Upstream {
  url: string;
  requests: Recorded[];
  clear(): void;
  close(): Promise<void>;
}

/**
 * An IPv4 address of this machine that the address rules count as public, if it has one: where a
 * test stands a "public" host (on this kind of machine, eth0's documentation-range address).
 */
export const publicAddress: string | undefined = Object.values(networkInterfaces())
  .flat()
  .find((a) => a?.family === 'IPv4' && !isInternalAddress(a.address))?.address;

export async function startUpstream(respond?: (req: Recorded) => Answer | Promise<Answer>, host = '127.0.0.1'): Promise<Upstream> {
  const requests: Recorded[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const parsed = new URL(url, 'http://upstream');
      const recorded: Recorded = {
        method: req.method ?? '',
        url,
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
        clientPort: req.socket.remotePort ?? 0,
      };
      requests.push(recorded);
      void Promise.resolve(
        respond ? respond(recorded) : { body: JSON.stringify({ ok: true, method: recorded.method, path: recorded.path }) },
      ).then(async (answer) => {
        if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
        if (res.destroyed) return;
        if (answer.reset) return void req.socket.destroy();
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        if (answer.stream) return writeStream(res, answer.stream).catch(() => void res.destroy());
        res.end(answer.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    requests,
    clear: () => void requests.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A streamed body: each piece written as it comes (waiting for a full socket to drain), until the end or the client's close. */
async function writeStream(res: ServerResponse, stream: NonNullable<Answer['stream']>): Promise<void> {
  const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
  for await (const piece of stream({ closed })) {
    if (res.destroyed) return;
    if (!res.write(piece)) await Promise.race([once(res, 'drain'), closed]);
  }
  res.end();
}

/** Petstore's getPetById as the tests' upstreams answer it: `pet-<id>` at GET /v2/pet/<id>, 404 for anything else. */
export function petAnswer(req: Recorded): Answer {
  const id = /^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1];
  if (req.method === 'GET' && id) return { body: JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }) };
  return { status: 404, body: JSON.stringify({ code: 404, message: `unexpected ${req.method} ${req.path}` }) };
}

/**
 * An upstream of JOBS_SPEC's startJob (specs.ts): each POST /jobs starts job `j<n>` and answers
 * 202 with its Operation-Location; its status says Running (Retry-After: 1) until the test adds
 * its id to `finished`, then Succeeded with `{ id }`.
 */
export async function startJobsUpstream(): Promise<{ upstream: Upstream; jobs: () => number; finished: Set<string> }> {
  let jobs = 0;
  const finished = new Set<string>();
  const upstream: Upstream = await startUpstream((req): Answer => {
    if (req.method === 'POST' && req.path === '/jobs') {
      const id = `j${++jobs}`;
      return { status: 202, headers: { 'operation-location': `${upstream.url}/status/${id}`, 'retry-after': '0' } };
    }
    const id = /^\/status\/(j\d+)$/.exec(req.path)?.[1];
    if (id !== undefined && finished.has(id)) return { body: JSON.stringify({ status: 'Succeeded', result: { id } }) };
    if (id !== undefined) return { headers: { 'retry-after': '1' }, body: JSON.stringify({ status: 'Running' }) };
    return { status: 404, body: '{}' };
  });
  return { upstream, jobs: () => jobs, finished };
}

/**
 * An upstream that records each request line exactly as it arrived: node:http's server refuses a
 * method its parser does not know (POLL) or spells otherwise (Refresh), so this one reads the
 * socket itself. It answers every request `200 {}` and closes the connection.
 */
export async function startRequestLineUpstream(): Promise<{ url: string; lines: string[]; close(): Promise<void> }> {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      lines.push(head.slice(0, head.indexOf('\r\n')));
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}');
      head = '';
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    lines,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
