// The web core as the Node server serves it (http/listener.ts): on a real node:http
// listener through the Node adapter (node-web.ts). Made from settings read elsewhere
// (createWebCore), its readiness probe says when the server drains, as Node's does
// (http/health.ts). 2025-era sessions kept in memory (sessions-memory.ts), with the official SDK
// client of the 2025 era. A session opens on initialize,
// counts against --max-sessions-per-client, frees its place when the client ends it, and ends
// itself once idle for MCP_SESSION_IDLE_MS.
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createWebCore, type PassOn, type WebCore, type WebCoreInput } from '../../../../src/runtime/web/web-server.js';
import { memorySessions, type MemorySessions } from '../../../../src/runtime/web/sessions-memory.js';
import { configFrom, type ServerConfig } from '../../../../src/runtime/start/config.js';
import { prepareServing } from '../../../../src/runtime/start/serving.js';
import { summarize } from '../../../../src/contract/summary.js';
import { connect } from '../../../../harness/project.js';
import { apiWithoutTools, postChunked, recordingLogger, send, serveWeb, type Sent, type StepServer } from '../../../harness/http-steps.js';

const TABLE = apiWithoutTools();

/** The web core as Node makes it, from its settings (createWebCore). */
function coreOf(env: Record<string, string>, more: Partial<WebCoreInput> = {}): WebCore {
  const config = configFrom({ transport: 'http' }, { API_BASE_URL: 'https://api.example', ...env }) as ServerConfig;
  const log = recordingLogger();
  const serving = prepareServing(summarize(TABLE), { load: () => TABLE }, {}, config, log);
  return createWebCore({ platform: 'node', config, serving, log, ...more });
}

/** The web core with sessions in memory, at most one per client, served on 127.0.0.1 through the Node adapter. */
async function serveCore(
  env: Record<string, string>,
): Promise<{ listener: StepServer; sessions: MemorySessions; core: WebCore; url: string }> {
  // The objects are the core's own (its `session`), and the core is given the store that makes them.
  const sessions = memorySessions((state) => core.session(state), { maxSessions: 1000, maxSessionsPerClient: 1 });
  const core = coreOf(env, { sessions });
  const listener = await serveWeb(core);
  return { listener, sessions, core, url: `http://127.0.0.1:${listener.port}` };
}

const sessionIdOf = (client: Client) => (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;

describe('2025-era sessions in memory behind the web core', () => {
  let served: Awaited<ReturnType<typeof serveCore>> | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    await served?.sessions.close();
    await served?.listener.close();
  });

  it('opens one per initialize, within the per-client cap, and frees its place when the client ends it', async () => {
    served = await serveCore({});
    const first = await connect('http', served.url);
    clients.push(first);
    expect(sessionIdOf(first)).toMatch(/^[0-9a-f-]{36}$/);
    expect((await first.listTools()).tools).toEqual([]);
    expect(served.sessions.size).toBe(1);

    await expect(connect('http', served.url)).rejects.toThrow(/Too many open sessions from 127\.0\.0\.1 \(1\)/);

    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    expect(served.sessions.size).toBe(0);
    const next = await connect('http', served.url);
    clients.push(next);
    expect(served.sessions.size).toBe(1);
  });

  it("answers a session's plain POST in JSON, as Node's sessions do (no call of it may talk)", async () => {
    served = await serveCore({});
    const client = await connect('http', served.url);
    clients.push(client);
    const answer = await fetch(`${served.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionIdOf(client) as string,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: 7, result: { tools: [] } });
  });

  it('ends every session when the core closes (the server stops)', async () => {
    served = await serveCore({});
    const client = await connect('http', served.url);
    clients.push(client);
    expect(served.sessions.size).toBe(1);
    await served.core.close();
    expect(served.sessions.size).toBe(0);
    await expect(client.listTools()).rejects.toThrow(/Session not found/);
  });

  it('ends a session unused for MCP_SESSION_IDLE_MS, after which its id finds no session', async () => {
    served = await serveCore({ MCP_SESSION_IDLE_MS: '1000' });
    const client = await connect('http', served.url);
    clients.push(client);
    const id = sessionIdOf(client) as string;
    await expect.poll(() => served?.sessions.size, { timeout: 4_000, interval: 100 }).toBe(0);
    const answer = await fetch(`${served.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(answer.status).toBe(404);
  });
});

describe('the web core made from settings (createWebCore)', () => {
  let listener: StepServer | undefined;
  afterEach(() => listener?.close());

  it('answers /healthz 200 while serving and 503 once draining', async () => {
    let draining = false;
    listener = await serveWeb(coreOf({}, { draining: () => draining }));
    expect(await send(listener.port, { path: '/healthz' })).toMatchObject({ status: 200, json: { status: 'ok' } });
    draining = true;
    expect(await send(listener.port, { path: '/healthz' })).toMatchObject({ status: 503, json: { status: 'draining' } });
  });

  it('refuses a chunked body past MCP_MAX_REQUEST_BYTES unread (Connection: close), and JSON nested too deep', async () => {
    listener = await serveWeb(coreOf({ MCP_MAX_REQUEST_BYTES: '1000' }));
    const tooLarge = await postChunked(listener.port, '/mcp', 'application/json', 100_000);
    expect(tooLarge).toMatchObject({ status: 413, connection: 'close' });
    expect((tooLarge as { text: string }).text).toContain('Request body too large (more than 1000 bytes)');
    const deep = await send(listener.port, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json' },
      body: '['.repeat(500),
    });
    expect(deep).toMatchObject({ status: 400, json: { error: { code: -32600 } } });
  });

  it('keeps the connection of a POST refused before its small body was read (a wrong token), and serves the next request on it', async () => {
    listener = await serveWeb(coreOf({ MCP_AUTH_TOKEN: 'right-token' }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const post = (token: string) =>
        send(listener!.port, {
          method: 'POST',
          path: '/mcp',
          agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body,
        });
      const refused = await post('wrong-token');
      expect(refused.status).toBe(401);
      expect(refused.headers.connection).not.toBe('close');
      const served = await post('right-token');
      expect(served.status).toBe(200);
      expect(served.clientPort).toBe(refused.clientPort);
    } finally {
      agent.destroy();
    }
  });

  it('gives a body to a handler that reads it its own way (text(), the stream), as the client sent it', async () => {
    const bodies: string[] = [];
    listener = await serveWeb({
      async fetch(request) {
        bodies.push(new URL(request.url).pathname === '/text' ? await request.text() : await new Response(request.body).text());
        return Response.json({ bodyUsed: request.bodyUsed });
      },
    });
    const sent = '{"ü":"' + 'x'.repeat(100_000) + '"}';
    for (const path of ['/text', '/stream']) {
      const answer = await send(listener.port, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: sent });
      expect(answer).toMatchObject({ status: 200, json: { bodyUsed: true } });
    }
    expect(bodies).toEqual([sent, sent]);
  });

  it('refuses a body whose Content-Length is past MCP_MAX_REQUEST_BYTES before it arrives, and closes the connection', async () => {
    listener = await serveWeb(coreOf({ MCP_MAX_REQUEST_BYTES: '1000' }));
    const port = listener.port;
    // 10 MB announced, 64 KiB sent: the answer comes without the rest, which the server does not wait for.
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/mcp',
          headers: { 'content-type': 'application/json', 'content-length': '10000000' },
        },
        (res) => {
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          res.resume();
          req.destroy();
        },
      );
      req.on('error', reject);
      req.write('x'.repeat(65_536));
    });
    expect(answer).toEqual({ status: 413, connection: 'close' });
  });
});

/** A POST of a 2025-era session's stream: GET /mcp with its id, kept open until `stop` aborts it. */
function openStream(url: string, sessionId: string | undefined, stop: AbortController): Promise<Response> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return fetch(`${url}/mcp`, { headers, signal: stop.signal });
}

describe("the web core keeps Node's answers where they differed from the other platforms", () => {
  let listener: StepServer | undefined;
  let served: Awaited<ReturnType<typeof serveCore>> | undefined;
  const clients: Client[] = [];
  const streams: AbortController[] = [];
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.abort();
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    await served?.sessions.close();
    await served?.listener.close();
    await listener?.close();
    served = undefined;
    listener = undefined;
  });

  it('answers 404 naming the method and the endpoints served, as Node does', async () => {
    served = await serveCore({});
    const answer = await send(served.listener.port, { path: '/nowhere' });
    expect(answer).toMatchObject({
      status: 404,
      json: { error: { code: -32601, message: 'Not found: GET /nowhere (Streamable HTTP at /mcp)' } },
    });
    listener = await serveWeb(coreOf({ MCP_STATELESS: 'true' }));
    const stateless = await send(listener.port, { method: 'DELETE', path: '/x' });
    expect(stateless.json).toMatchObject({ error: { message: 'Not found: DELETE /x (Streamable HTTP at /mcp (stateless))' } });
  });

  it("serves a listed public host name without a token on Node, whose rule is checked at start (nginx's Host line)", async () => {
    listener = await serveWeb(coreOf({ MCP_ALLOWED_HOSTS: 'mcp.example' }));
    const answer = await send(listener.port, { path: '/nowhere', headers: { host: 'mcp.example' } });
    expect(answer).toMatchObject({
      status: 404,
      json: { error: { message: 'Not found: GET /nowhere (Streamable HTTP at /mcp (stateless))' } },
    });
  });

  it('answers GET /mcp without a session as a server that keeps sessions, and names --stateless only under it', async () => {
    served = await serveCore({});
    const stop = new AbortController();
    streams.push(stop);
    const withSessions = await openStream(served.url, undefined, stop);
    expect(withSessions.status).toBe(400);
    const text = await withSessions.text();
    expect(text).toContain('needs the Mcp-Session-Id header');
    expect(text).not.toContain('stateless');
    listener = await serveWeb(coreOf({ MCP_STATELESS: 'true' }));
    const stateless = await send(listener.port, { path: '/mcp', headers: { accept: 'text/event-stream' } });
    expect(stateless.status).toBe(405);
    expect(stateless.text).toContain('this server runs with --stateless');
    expect(stateless.text).not.toContain('on node');
  });

  it("sends a session's GET stream its 200 and headers before any event (a client waits for them)", async () => {
    served = await serveCore({});
    const initialize = await fetch(`${served.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const id = initialize.headers.get('mcp-session-id') as string;
    await initialize.text();
    const stop = new AbortController();
    streams.push(stop);
    const waited = setTimeout(() => stop.abort(new Error('no headers within 2 s')), 2000);
    const stream = await openStream(served.url, id, stop).finally(() => clearTimeout(waited));
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
  });

  it("answers a session's second GET stream 409 while the first is open, as Node's transport does", async () => {
    served = await serveCore({});
    const client = await connect('http', served.url);
    clients.push(client);
    const id = sessionIdOf(client) as string;
    const first = new AbortController();
    const second = new AbortController();
    streams.push(first, second);
    // The SDK client may hold the session's stream already: one more is then the second.
    const answers = [await openStream(served.url, id, first), await openStream(served.url, id, second)];
    expect(answers.map((answer) => answer.status)).toContain(409);
  });
});

describe('a transport served outside the core (passOn: legacy HTTP+SSE on Node)', () => {
  let listener: StepServer | undefined;
  afterEach(() => listener?.close());

  /** A passOn that serves /sse and /messages by saying what the core gave it. */
  function recordingPassOn(): PassOn & { seen: string[] } {
    const seen: string[] = [];
    return {
      seen,
      describe: 'HTTP+SSE at /sse and /messages',
      answer(request, url, context) {
        if (url.pathname !== '/sse' && url.pathname !== '/messages') return Promise.resolve(undefined);
        seen.push(`${request.method} ${url.pathname}`);
        return Promise.resolve(Response.json({ body: context.body ?? null, address: context.address }));
      },
    };
  }

  it('is reached only past the guards and the token, with the body the core parsed', async () => {
    const passOn = recordingPassOn();
    listener = await serveWeb(coreOf({ MCP_AUTH_TOKEN: 'secret-token' }, { passOn }));
    const port = listener.port;
    expect((await send(port, { path: '/sse', headers: { host: 'evil.example' } })).status).toBe(403);
    expect((await send(port, { path: '/sse' })).status).toBe(401);
    const bearer = { authorization: 'Bearer secret-token' };
    expect(
      (await send(port, { method: 'POST', path: '/messages', headers: { ...bearer, 'content-type': 'text/plain' }, body: '{}' })).status,
    ).toBe(415);
    expect(passOn.seen).toEqual([]);

    const posted = await send(port, {
      method: 'POST',
      path: '/messages?sessionId=abc',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(posted).toMatchObject({ status: 200, json: { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, address: '127.0.0.1' } });
    expect(passOn.seen).toEqual(['POST /messages']);
    const missing = await send(port, { path: '/elsewhere', headers: bearer });
    expect(missing.json).toMatchObject({
      error: { message: 'Not found: GET /elsewhere (Streamable HTTP at /mcp (stateless); HTTP+SSE at /sse and /messages)' },
    });
  });
});

// The order of the core's steps (once http/listener.ts' requestSteps): readiness before
// everything, CORS preflight before the guard, the guard before the token, the token before
// the body is read.
describe('the order of the steps before the MCP handler', () => {
  let listener: StepServer | undefined;
  afterEach(() => listener?.close());

  const TOKEN = { authorization: 'Bearer t' };
  const JSON_TYPE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const INITIALIZE = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'order', version: '1' } },
  });

  it.each<[string, Sent, number]>([
    ['the probe needs neither a listed Host nor the token', { path: '/healthz', headers: { host: '10.0.0.7:3000' } }, 200],
    [
      'a preflight from a listed origin needs no token',
      { method: 'OPTIONS', path: '/mcp', headers: { origin: 'https://web.example', 'access-control-request-method': 'POST' } },
      204,
    ],
    [
      'a foreign Host is refused before the token is looked at',
      { method: 'POST', path: '/mcp', headers: { host: 'evil.example', ...TOKEN } },
      403,
    ],
    ['no token: 401 before the body is read', { method: 'POST', path: '/mcp', headers: JSON_TYPE, body: '{"broken":' }, 401],
    ['with the token the body is checked', { method: 'POST', path: '/mcp', headers: { ...JSON_TYPE, ...TOKEN }, body: '{"broken":' }, 400],
    ['then the MCP handler answers', { method: 'POST', path: '/mcp', headers: { ...JSON_TYPE, ...TOKEN }, body: INITIALIZE }, 200],
    ['an unknown path is 404', { path: '/nowhere', headers: TOKEN }, 404],
  ])('%s', async (_name, request, want) => {
    listener = await serveWeb(coreOf({ MCP_AUTH_TOKEN: 't', MCP_CORS_ORIGINS: 'https://web.example' }));
    expect((await send(listener.port, request)).status).toBe(want);
  });
});
