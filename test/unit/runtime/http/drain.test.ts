// Graceful shutdown: readiness off during the delay, then no new requests, the calls in flight
// finish, and only then are the sessions closed and the process exits.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson } from '../../../../src/runtime/http/answer.js';
import { Drain } from '../../../../src/runtime/http/drain.js';
import type { HttpEndpoints } from '../../../../src/runtime/http/endpoints.js';
import { listenLocally, recordingLogger, send, type StepServer } from '../../../harness/http-steps.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(condition()).toBe(true);
};

/** A server whose requests the drain admits; POST /slow is answered when `release` is called. */
async function drained(drainDelayMs: number) {
  const exits: number[] = [];
  const log = recordingLogger();
  const drain = new Drain({ drainDelayMs, shutdownGraceMs: 10_000 }, log, (code) => void exits.push(code));
  const waiting: (() => void)[] = [];
  const server = await listenLocally(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!drain.admit(req, res)) return;
      if (req.url === '/slow') {
        req.resume();
        waiting.push(() => sendJson(res, 200, { slow: true }));
      } else if (req.url === '/body') {
        req.on('data', () => {}); // the body never completes
      } else sendJson(res, 200, { ok: true });
    }),
  );
  const closed: string[] = [];
  let pending = 0;
  const endpoints: HttpEndpoints = {
    describe: 'test',
    handle: async () => false,
    pendingCalls: () => pending,
    close: async () => void closed.push('closed'),
  };
  return {
    drain,
    server,
    exits,
    log,
    closed,
    stop: () => drain.stop('SIGTERM', server.server, [endpoints]),
    release: () => waiting.splice(0).forEach((answer) => answer()),
    setPending: (n: number) => void (pending = n),
  };
}

/** Writes raw requests on one connection and collects everything that comes back. */
function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let ended = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (ended = true));
  socket.on('error', () => {});
  return { write: (text: string) => socket.write(text), received: () => received, ended: () => ended };
}

/** A request written on its own connection, the signal once the server has it. */
async function stopDuring(t: Awaited<ReturnType<typeof drained>>, rawRequest: string) {
  const connection = rawConnection(t.server.port);
  connection.write(rawRequest);
  await sleep(50);
  t.stop();
  return connection;
}

describe('Drain', () => {
  let server: StepServer | undefined;
  afterEach(async () => {
    server?.server.closeAllConnections();
    await server?.close().catch(() => {});
  });

  it('during the delay requests are served and readiness is off; then the drain closes and exits', async () => {
    const t = await drained(100);
    server = t.server;
    t.stop();
    expect(t.drain.isDraining).toBe(true);
    expect(await send(t.server.port)).toMatchObject({ status: 200 });
    expect(t.log.lines).toContain('info: SIGTERM: /healthz answers 503; draining in 100 ms');
    await until(() => t.exits.length > 0);
    expect(t.closed).toEqual(['closed']);
    expect(t.exits).toEqual([0]);
    expect(t.log.lines).toContain('info: SIGTERM: shutting down');
  });

  it('a second signal changes nothing', async () => {
    const t = await drained(0);
    server = t.server;
    t.stop();
    t.stop();
    await until(() => t.exits.length > 0);
    expect(t.log.lines.filter((line) => line.includes('shutting down'))).toHaveLength(1);
  });

  it('a call in flight is answered; a next request on its connection is refused with 503', async () => {
    const t = await drained(0);
    server = t.server;
    const connection = await stopDuring(t, 'POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n');
    expect(t.closed).toEqual([]); // the call holds the sessions open
    connection.write('GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await sleep(50);
    t.release();
    await until(() => /Server is shutting down/.test(connection.received()));
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*"slow":true[\s\S]*HTTP\/1\.1 503 [\s\S]*connection: close/i);
    await until(() => t.closed.length === 1);
  });

  it('a body still arriving at the drain is refused at once', async () => {
    const t = await drained(0);
    server = t.server;
    const connection = await stopDuring(t, 'POST /body HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"partial":');
    await until(() => connection.ended());
    expect(connection.received()).toMatch(/^HTTP\/1\.1 503 [\s\S]*Server is shutting down/);
    await until(() => t.closed.length === 1);
  });

  it('calls answered outside a request (pendingCalls) hold the sessions open until they are done', async () => {
    const t = await drained(0);
    server = t.server;
    t.setPending(1);
    t.stop();
    await sleep(100);
    expect(t.closed).toEqual([]);
    t.setPending(0);
    await until(() => t.closed.length === 1);
  });

  it('GET requests are not waited for: they are the long-lived streams', async () => {
    const t = await drained(0);
    server = t.server;
    await stopDuring(t, 'GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => t.closed.length === 1);
  });
});
