// A generated server's life cycle, end to end: SIGTERM drains in-flight calls and then exits
// (and a call longer than the grace period does not hold it up), sessions are capped and
// closed when idle, and a stdio server ends on SIGTERM with nothing but JSON-RPC on stdout.
import { spawn } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { Children, exitOf, type Exit } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 't', SWAGGER_PETSTORE_API_KEY: 'k' };
const VERSION = '2025-06-18';
let dir: string;
let upstream: Upstream;
let base: string;
const children = new Children();
const arrivalWaiters: { path: string; resolve: () => void }[] = [];

beforeAll(async () => {
  // GET /v2/pet/<ms> answers the pet <ms> after <ms> milliseconds, so that calls can be in flight.
  upstream = await startUpstream((req) => {
    for (const waiter of arrivalWaiters.filter((w) => w.path === req.path)) waiter.resolve();
    const ms = Number(/^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1] ?? 0);
    return { delayMs: ms, body: JSON.stringify(pet(ms)) };
  });
  base = `${upstream.url}/v2`;
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-lifecycle');
  await buildProject(dir);
});

afterAll(async () => {
  await children.stopAll();
  await upstream?.close();
});

const pet = (id: number) => ({ id, name: `pet-${id}`, photoUrls: [] as string[] });

/** Resolves when the upstream receives a request for `path`. */
const arrival = (path: string) => new Promise<void>((resolve) => arrivalWaiters.push({ path, resolve }));

async function serve(args: string[], transport: 'http' | 'sse' = 'http'): Promise<RunningServer> {
  const server = await startServer(dir, transport, [...args, '--base-url', base], SECRETS);
  children.track(server.process);
  return server;
}

/** Resolves with the time when the server's stderr first matches, rejects after `ms`. */
function logged(server: RunningServer, pattern: RegExp, ms = 10_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(server.stderr())) return;
      clearTimeout(timer);
      server.process.stderr?.off('data', check);
      resolve(Date.now());
    };
    const timer = setTimeout(() => {
      server.process.stderr?.off('data', check);
      reject(new Error(`stderr never matched ${pattern} in ${ms} ms:\n${server.stderr()}`));
    }, ms);
    // the harness's own listener (added first) has already appended the chunk
    server.process.stderr?.on('data', check);
    check();
  });
}

/** A fresh TCP connection (no pool): the status, or the socket error's code. */
function freshGet(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      resolve(`HTTP ${res.statusCode}`);
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

const call = (client: Client, petId: number, timeout = 15_000) =>
  client.callTool({ name: 'getPetById', arguments: { petId } }, { timeout });

/** Settles a promise into a value that can be compared whole. */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value, at: Date.now() }),
    (error: Error) => ({ ok: false as const, error, at: Date.now() }),
  );

/**
 * SIGTERM while a call is in flight (upstream answers in 800 ms): the call gets its normal
 * answer, and the process exits 0 after it, well before the 5 s grace timer would.
 * `whileDraining` runs between the signal and the answer.
 */
async function drainsCallInFlight(server: RunningServer, exit: Promise<Exit>, kind: 'http' | 'sse', whileDraining = async () => {}) {
  const client = await connect(kind, server.url);
  try {
    const reached = arrival('/v2/pet/800');
    const inFlight = settle(call(client, 800));
    await reached;
    const signalled = Date.now();
    server.process.kill('SIGTERM');
    await whileDraining();
    const answered = await inFlight;
    expect(answered.ok && answered.value).toEqual({
      content: [{ type: 'text', text: JSON.stringify(pet(800)) }],
      structuredContent: pet(800),
    });
    const ended = await exit;
    expect(ended).toMatchObject({ code: 0, signal: null });
    expect(ended.at).toBeGreaterThanOrEqual(answered.at - 50);
    expect(ended.at - signalled).toBeLessThan(3_000);
  } finally {
    await client.close();
  }
}

// Raw Streamable HTTP, for the status codes.
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const post = (url: string, message: object, sessionId?: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION } : {}) },
    body: JSON.stringify(message),
  });
const remove = (url: string, sessionId: string) =>
  fetch(`${url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION } });

/** initialize + notifications/initialized over raw HTTP: the new session's id. */
async function rawSession(url: string): Promise<string> {
  const opened = await post(url, INITIALIZE);
  expect(opened.status).toBe(200);
  await opened.text();
  const id = opened.headers.get('mcp-session-id') ?? '';
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  expect(initialized.status).toBe(202);
  await initialized.text();
  return id;
}

const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };
const TOO_MANY = { jsonrpc: '2.0', error: { code: -32000, message: 'Too many open sessions (2); close one or try later' }, id: null };

describe('graceful shutdown (SIGTERM)', () => {
  it('an in-flight call finishes with its result, new connections are refused, then the process exits 0 on its own', async () => {
    const server = await serve(['--shutdown-grace-ms', '5000']);
    const exit = exitOf(server.process);
    await drainsCallInFlight(server, exit, 'http', async () => {
      await logged(server, /info: SIGTERM: shutting down/);
      // The listener is closed: a new connection is refused, by the SDK client too.
      expect(await freshGet(`${server.url}/healthz`)).toBe('ECONNREFUSED');
      const late = await settle(connect('http', server.url));
      expect(late.ok).toBe(false);
      expect(late.ok ? undefined : (late.error.cause as NodeJS.ErrnoException | undefined)?.code).toBe('ECONNREFUSED');
    });
    expect(server.stderr()).not.toMatch(/error:/);
  }, 30_000);

  it('a request on a connection kept alive from before SIGTERM gets 503 "Server is shutting down" and Connection: close', async () => {
    const server = await serve(['--shutdown-grace-ms', '5000']);
    const exit = exitOf(server.process);
    const sessionId = await rawSession(server.url);
    // One TCP connection: a tools/call (in flight at SIGTERM), then GET /healthz on the same connection.
    const socket = tcpConnect(Number(new URL(server.url).port), '127.0.0.1');
    let wire = '';
    socket.on('data', (chunk: Buffer) => (wire += chunk.toString()));
    socket.on('error', (error) => (wire += `\n[socket error: ${error.message}]`)); // shown by the assertions below
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'getPetById', arguments: { petId: 800 } },
      });
      const reached = arrival('/v2/pet/800');
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: ${VERSION}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await reached;
      server.process.kill('SIGTERM');
      await logged(server, /info: SIGTERM: shutting down/);
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await closed;

      const [first, second] = wire.split(/(?=HTTP\/1\.1 )/);
      expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      // answered as application/json: the whole JSON-RPC response is the body
      expect(first).toMatch(/\r\ncontent-type: application\/json\r\n/);
      expect(first).toContain(`\r\n\r\n{"result":{"content":[{"type":"text","text":${JSON.stringify(JSON.stringify(pet(800)))}}]`);
      expect(first).toContain('"jsonrpc":"2.0","id":7}');
      expect(second).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(second).toMatch(/\r\nconnection: close\r\n/i);
      const refusal = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Server is shutting down' }, id: null });
      expect(second?.split('\r\n\r\n').slice(1).join('\r\n\r\n')).toBe(
        `${Buffer.byteLength(refusal).toString(16)}\r\n${refusal}\r\n0\r\n\r\n`,
      );
      expect(await exit).toMatchObject({ code: 0, signal: null });
    } finally {
      socket.destroy();
    }
  }, 30_000);

  it('legacy SSE: an in-flight call (answered on the GET stream) also finishes before the exit', async () => {
    const server = await serve(['--shutdown-grace-ms', '5000'], 'sse');
    const exit = exitOf(server.process);
    await drainsCallInFlight(server, exit, 'sse');
  }, 30_000);

  it('a call longer than --shutdown-grace-ms does not keep the process alive: it exits 0 once the grace is over', async () => {
    const server = await serve(['--shutdown-grace-ms', '300']);
    const exit = exitOf(server.process);
    const client = await connect('http', server.url);
    try {
      const reached = arrival('/v2/pet/5000');
      const inFlight = settle(call(client, 5000, 2_000));
      await reached;
      const signalled = Date.now();
      server.process.kill('SIGTERM');
      const ended = await exit;
      expect(ended).toMatchObject({ code: 0, signal: null });
      expect(ended.at - signalled).toBeGreaterThanOrEqual(250);
      expect(ended.at - signalled).toBeLessThan(3_000);
      // The call was cut off: the client never gets an answer. Its POST is answered with JSON,
      // not a stream whose head was already sent, so the connection closes with nothing.
      const outcome = await inFlight;
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? undefined : outcome.error.message).toMatch(/fetch failed/);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('session limits', () => {
  it('--max-sessions 2: a third initialize is refused with 503 until a session is DELETEd', async () => {
    const server = await serve(['--max-sessions', '2']);
    const clients: Client[] = [];
    const open = async () => {
      const client = await connect('http', server.url);
      clients.push(client);
      return client;
    };
    const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
    try {
      const [a, b] = [await open(), await open()];
      expect(sessionOf(a)).toMatch(/^[0-9a-f-]{36}$/);
      expect(sessionOf(b)).toMatch(/^[0-9a-f-]{36}$/);
      expect(sessionOf(a)).not.toBe(sessionOf(b));
      expect((await call(a, 1)).structuredContent).toEqual(pet(1));
      expect((await call(b, 2)).structuredContent).toEqual(pet(2));

      // The third: raw, for the status and body; then with the SDK client.
      const refused = await post(server.url, INITIALIZE);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('mcp-session-id')).toBeNull();
      expect(await refused.json()).toEqual(TOO_MANY);
      const third = await settle(connect('http', server.url));
      expect(third.ok).toBe(false);
      expect(third.ok ? undefined : third.error).toMatchObject({ name: 'SdkHttpError', data: { status: 503 } });
      expect(third.ok ? '' : third.error.message).toContain('Too many open sessions (2); close one or try later');

      // The cap is on sessions: a stateless 2026-07-28 client is still served.
      const modern = await connect('http', server.url, { negotiate: true });
      clients.push(modern);
      expect((modern.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined();
      expect((await call(modern, 3)).structuredContent).toEqual(pet(3));
      // Raw, its JSON answer is written whole, with its length (not chunked).
      const claim = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const discovered = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'server/discover', params: { _meta: claim } }),
      });
      const answer = Buffer.from(await discovered.arrayBuffer());
      expect(discovered.status).toBe(200);
      expect(discovered.headers.get('content-type')).toMatch(/^application\/json/);
      expect(discovered.headers.get('transfer-encoding')).toBeNull();
      expect(discovered.headers.get('content-length')).toBe(String(answer.byteLength));

      // client.close() only aborts the client's streams (SDK 2.4.0 sends no DELETE): the slot stays taken...
      const aId = sessionOf(a);
      await a.close();
      const stillFull = await post(server.url, INITIALIZE);
      expect(stillFull.status).toBe(503);
      expect(await stillFull.json()).toEqual(TOO_MANY);
      // ...until the session is DELETEd (by id: it still exists, hence 200).
      const deleted = await remove(server.url, aId);
      expect(deleted.status).toBe(200);
      await deleted.text();
      const c = await open();
      expect((await call(c, 4)).structuredContent).toEqual(pet(4));

      // The SDK's own DELETE: terminateSession() frees a slot as well.
      const bId = sessionOf(b);
      await (b.transport as StreamableHTTPClientTransport).terminateSession();
      await b.close();
      const gone = await remove(server.url, bId);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual(SESSION_NOT_FOUND);
      const d = await open();
      expect((await call(d, 5)).structuredContent).toEqual(pet(5));
      expect((await post(server.url, INITIALIZE)).status).toBe(503);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 30_000);

  it('--session-idle-ms 1000: an unused session is closed and its id then gets 404; a session busy with a longer call is kept', async () => {
    const server = await serve(['--session-idle-ms', '1000', '--log-level', 'debug']);
    const busy = await connect('http', server.url);
    try {
      const busyId = (busy.transport as StreamableHTTPClientTransport).sessionId ?? '';
      const idleId = await rawSession(server.url);
      const listed = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, idleId);
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('"name":"getPetById"');
      const lastUsed = Date.now();

      // A call of 2.5 s, longer than the idle time plus the sweep interval (1 s each).
      const long = settle(call(busy, 2500));
      const closedAt = await logged(server, new RegExp(`debug: session ${idleId} idle: closed`), 5_000);
      expect(closedAt - lastUsed).toBeGreaterThanOrEqual(1_000);
      expect(closedAt - lastUsed).toBeLessThan(3_500);

      for (const stale of [
        await post(server.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, idleId),
        await fetch(`${server.url}/mcp`, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': idleId, 'mcp-protocol-version': VERSION },
        }),
        await remove(server.url, idleId),
      ]) {
        expect(stale.status).toBe(404);
        expect(await stale.json()).toEqual(SESSION_NOT_FOUND);
      }

      const answered = await long;
      expect(answered.ok && answered.value.structuredContent).toEqual(pet(2500));
      expect(server.stderr()).not.toContain(`session ${busyId} idle`);
      expect((await call(busy, 6)).structuredContent).toEqual(pet(6));
    } finally {
      await busy.close();
    }
  }, 30_000);
});

describe('stdio', () => {
  it('SIGTERM ends a stdio server promptly, with nothing but JSON-RPC lines on stdout', async () => {
    const child = spawn('node', [join(dir, 'dist/main.js'), '--base-url', base], {
      cwd: dir,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ...SECRETS },
    });
    children.track(child);
    const exit = exitOf(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const answer = (id: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${id} in 10 s; stdout:\n${stdout}\nstderr:\n${stderr}`)), 10_000);
        const check = () => {
          if (!stdout.split('\n').some((line) => line.includes(`"id":${id}`))) return;
          clearTimeout(timer);
          child.stdout.off('data', check);
          resolve();
        };
        child.stdout.on('data', check);
      });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);

    const initialized = answer(1);
    send({ ...INITIALIZE, id: 1 });
    await initialized;
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A call in flight when the signal comes: it must not leave half a line behind.
    const reached = arrival('/v2/pet/900');
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getPetById', arguments: { petId: 900 } } });
    await reached;

    const signalled = Date.now();
    child.kill('SIGTERM');
    const ended = await exit;
    // stdio.ts installs no signal handler: Node's default action ends the process by the signal.
    expect(ended).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(ended.at - signalled).toBeLessThan(2_000);

    expect(stdout.endsWith('\n')).toBe(true);
    const lines = stdout.trimEnd().split('\n');
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: { protocolVersion?: string } });
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1]);
    expect(messages[0]?.result?.protocolVersion).toBe(VERSION);
  }, 30_000);
});
