// Hostile or greedy MCP clients get nowhere: an exposed server without a token refuses to
// start, one client cannot take every session, connection or the event loop, slow requests
// are cut, CORS `*` works, pooled sockets survive a pause, and an oversized stdio line is
// reported. Clients are told apart by remote address: Linux routes all of 127/8 to lo, so a
// request bound to localAddress 127.0.0.2 is "another client".
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { Children, exitOf } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 't', SWAGGER_PETSTORE_API_KEY: 'k' };
let dir: string;
let upstream: Upstream;
let base: string;
const children = new Children();

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    const id = Number(/^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1] ?? 0);
    return { body: JSON.stringify({ id, name: `pet-${id}`, photoUrls: [] }) };
  });
  base = `${upstream.url}/v2`;
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-clients-security');
  await buildProject(dir);
}, 300_000);

afterAll(async () => {
  await children.stopAll();
  await upstream?.close();
});

async function serve(
  transport: 'http' | 'sse' | 'http+sse',
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const server = await startServer(dir, transport, [...args, '--base-url', base], { ...SECRETS, ...env });
  children.track(server.process);
  return server;
}

/** Spawns the server as given and resolves with its exit code, or with its port once it serves. */
function launch(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; port?: number; stderr: string; child: ChildProcess }> {
  const child = spawn('node', [join(dir, 'dist/main.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...SECRETS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.track(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`neither served nor exited in 20 s:\n${stderr}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const port = /serving MCP on http:\/\/[^ ]+:(\d+)/.exec(stderr)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ code: null, port: Number(port), stderr, child });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, child });
    });
  });
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request to the server's 127.0.0.1 address, from `localAddress` (default 127.0.0.1). */
function send(
  url: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string; localAddress?: string; agent?: Agent },
): Promise<Reply & { reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${options.path ?? '/mcp'}`,
      { method: options.method ?? 'POST', headers: options.headers, localAddress: options.localAddress, agent: options.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'greedy', version: '1' } },
});
const initialize = (url: string, localAddress: string) => send(url, { headers: JSON_HEADERS, body: INITIALIZE, localAddress });

/** Opens GET /sse from `localAddress`; resolves with the status and a way to hang up. */
function openSse(
  url: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: () => string; ended: () => boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/sse`, { headers: { accept: 'text/event-stream', ...headers }, localAddress, agent: false }, (res) => {
      let body = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('close', () => (ended = true));
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: () => body, ended: () => ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A fetch for the official client whose connections leave from `localAddress` (a client of its own). */
function fetchFrom(localAddress: string): FetchLike {
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init.headers).entries()),
          localAddress,
          agent: false,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          const status = res.statusCode ?? 0;
          const body = status === 202 || status === 204 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status, headers }));
        },
      );
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}

/** The official client over Streamable HTTP, connecting from `localAddress`. */
async function connectFrom(url: string, localAddress: string): Promise<Client> {
  const client = new Client({ name: 'other-address', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: fetchFrom(localAddress) }));
  return client;
}

/** Sends `head` (and nothing else) on a raw connection from 127.0.0.1; resolves once connected. */
function rawConnection(port: number, head: string): Promise<{ socket: Socket; answer: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ port, host: '127.0.0.1', localAddress: '127.0.0.1' });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined); // a reset is what a refused connection looks like
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now())));
    socket.once('connect', () => {
      if (head) socket.write(head, 'latin1');
      resolve({ socket, answer: () => answer, closed });
    });
    socket.once('error', reject);
  });
}

/** One whole request written byte for byte (fetch would refuse or rewrite odd headers); resolves with the status. */
async function rawStatus(port: number, authorization: string): Promise<number> {
  const head =
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nAuthorization: ${authorization}\r\n` +
    `Content-Length: ${Buffer.byteLength(INITIALIZE)}\r\nConnection: close\r\n\r\n${INITIALIZE}`;
  const raw = await rawConnection(port, head);
  await raw.closed;
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw.answer())?.[1] ?? 0);
}

describe('exposure beyond loopback', () => {
  it('--host 0.0.0.0 without a token: exit 2 with one line saying what to do', async () => {
    const run = await launch(['--transport', 'http', '--host', '0.0.0.0', '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /--host 0\.0\.0\.0 serves beyond loopback: set MCP_AUTH_TOKEN .*--allow-unauthenticated \(MCP_ALLOW_UNAUTHENTICATED=1\)/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('with MCP_AUTH_TOKEN it starts, and a request with Host: localhost still needs the token', async () => {
    const run = await launch(['--transport', 'http', '--host', '0.0.0.0', '--port', '0'], { MCP_AUTH_TOKEN: 'secret' });
    expect(run.port).toBeGreaterThan(0);
    const url = `http://127.0.0.1:${run.port}`;
    const refused = await send(url, { headers: { ...JSON_HEADERS, host: 'localhost' }, body: INITIALIZE });
    expect(refused.status).toBe(401);
    const admitted = await send(url, { headers: { ...JSON_HEADERS, host: 'localhost', authorization: 'Bearer secret' }, body: INITIALIZE });
    expect(admitted.status).toBe(200);
    run.child.kill('SIGKILL');
  });

  it.each([[''], ['  ']])('--auth-token %j (an unset shell variable) refuses to start, in one line', async (token) => {
    const run = await launch(['--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--auth-token', token]);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toMatch(/: --auth-token is empty: give the token, or leave the option out to serve without one$/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('the token is compared byte for byte: no trimming, no other spaces, no look-alike characters', async () => {
    const run = await launch(['--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--auth-token', 'secret']);
    const port = run.port as number;
    expect(await rawStatus(port, 'Bearer secret')).toBe(200);
    expect(await rawStatus(port, 'bearer secret')).toBe(200); // the scheme is case-insensitive (RFC 7235)
    for (const variant of [
      'Bearer \xc2\xa0',
      'Bearer \xa0',
      'Bearer secret\xa0',
      'Bearer  secret',
      'Bearer\tsecret',
      'Bearer secret x',
      'Bearer',
    ])
      expect(await rawStatus(port, variant), JSON.stringify(variant)).toBe(401);
    run.child.kill('SIGKILL');
  });

  it.each([
    [['--allow-unauthenticated'], {}],
    [[], { MCP_ALLOW_UNAUTHENTICATED: '1' }],
  ])('the opt-out %j %j starts and warns', async (flags, env) => {
    const run = await launch(['--transport', 'http', '--host', '0.0.0.0', '--port', '0', ...flags], env);
    expect(run.port).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/warn: serving on 0\.0\.0\.0 without MCP_AUTH_TOKEN/);
    run.child.kill('SIGKILL');
  });
});

describe('sessions per client', () => {
  it('one address gets --max-sessions-per-client sessions (Streamable HTTP and SSE together), others still get theirs', async () => {
    const server = await serve('http+sse', ['--max-sessions-per-client', '3']);
    for (let i = 0; i < 3; i++) expect((await initialize(server.url, '127.0.0.1')).status).toBe(200);
    const extra = await initialize(server.url, '127.0.0.1');
    expect(extra.status).toBe(429);
    expect(extra.body).toMatch(/Too many open sessions from 127\.0\.0\.1 \(3\)/);
    // another client is not locked out
    const other = await initialize(server.url, '127.0.0.2');
    expect(other.status).toBe(200);
    expect(other.headers['mcp-session-id']).toBeTruthy();

    // legacy SSE streams count against the same cap
    const streams = [await openSse(server.url, '127.0.0.3'), await openSse(server.url, '127.0.0.3')];
    try {
      expect(streams.map((s) => s.status)).toEqual([200, 200]);
      expect((await initialize(server.url, '127.0.0.3')).status).toBe(200);
      const refused = await openSse(server.url, '127.0.0.3');
      expect(refused.status).toBe(429);
      // a session closed gives its place back
      const closed = streams.pop() as (typeof streams)[number];
      closed.close();
      await new Promise((r) => setTimeout(r, 300));
      const again = await openSse(server.url, '127.0.0.3');
      expect(again.status).toBe(200);
      streams.push(again);
    } finally {
      for (const s of streams) s.close();
    }
  });
});

describe('slow and numerous connections', () => {
  it('a trickled POST body is cut after --request-timeout-ms, SSE streams are not, and SIGTERM drains at once', async () => {
    const server = await serve('http+sse', ['--request-timeout-ms', '1000', '--shutdown-grace-ms', '30000']);
    const stream = await openSse(server.url, '127.0.0.1');
    expect(stream.status).toBe(200);

    const port = Number(new URL(server.url).port);
    const socket = tcpConnect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    const cut = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    const began = Date.now();
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    let writes = 0;
    const trickle = setInterval(() => {
      if (++writes > 40 || socket.destroyed) return clearInterval(trickle);
      socket.write(' ');
    }, 200);
    const closedAt = await cut;
    clearInterval(trickle);
    expect(closedAt - began).toBeLessThan(6000); // 1 s timeout, checked every 250 ms; generous for CI
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);

    // the SSE stream outlived the request timeout
    expect(stream.ended()).toBe(false);
    expect(stream.body()).toMatch(/event: endpoint/);

    // a new trickler is in flight when SIGTERM comes: the exit does not wait for the 30 s grace
    const slow = tcpConnect(port, '127.0.0.1');
    slow.on('error', () => undefined);
    slow.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const slowTrickle = setInterval(() => !slow.destroyed && slow.write(' '), 200);
    await new Promise((r) => setTimeout(r, 300));
    const exited = exitOf(server.process);
    const signalled = Date.now();
    server.process.kill('SIGTERM');
    const exitAt = (await exited).at;
    clearInterval(slowTrickle);
    slow.destroy();
    stream.close();
    expect(exitAt - signalled).toBeLessThan(8000);
  }, 30_000);

  it('--max-connections: above the bound a new connection takes the slot of one still waiting for its head; when none waits it is closed unanswered, and room comes back', async () => {
    const server = await serve('http', ['--max-connections', '2', '--max-connections-per-address', '2']);
    const port = Number(new URL(server.url).port);
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const s = tcpConnect(port, '127.0.0.1', () => resolve(s));
        s.on('error', reject);
      });
    const healthz = (s: Socket): Promise<string> =>
      new Promise((resolve) => {
        let got = '';
        s.setEncoding('utf8');
        s.on('data', (chunk: string) => {
          got += chunk;
          if (got.includes('"status"')) resolve(got);
        });
        s.on('close', () => resolve(got));
        s.on('error', () => resolve(got));
        s.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      });
    const closed = (s: Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));
    // one answered connection and one that has sent nothing: a newcomer takes the silent one's slot
    const answered = await open();
    expect(await healthz(answered)).toMatch(/^HTTP\/1\.1 200/);
    const silent = await open();
    silent.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 100));
    const newcomer = await open();
    await closed(silent);
    expect(await healthz(newcomer)).toMatch(/^HTTP\/1\.1 200/);
    // both slots now hold answered connections: nothing waits, so a third is closed unanswered
    const third = await open();
    expect(await healthz(third)).toBe('');
    for (const s of [answered, newcomer]) s.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const later = await open();
    expect(await healthz(later)).toMatch(/^HTTP\/1\.1 200/);
    later.destroy();
  });

  it('a flood of half-sent heads from one address holds at most its share (half of --max-connections); clients from another address and from the same one still connect', async () => {
    const server = await serve('http', ['--max-connections', '40']);
    const port = Number(new URL(server.url).port);
    // Each holds its slot with a request line and Host and no end of the head, as the flood did.
    const flood = await Promise.all(
      Array.from({ length: 45 }, () => rawConnection(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`)),
    );
    try {
      await new Promise((r) => setTimeout(r, 500));
      const closed = flood.filter((c) => c.socket.destroyed || c.socket.readyState === 'closed');
      expect(closed.length).toBe(25);
      expect(closed.every((c) => c.answer() === '')).toBe(true); // closed unanswered
      for (const from of ['127.0.0.2', '127.0.0.1']) {
        const client = await connectFrom(server.url, from);
        try {
          const result = await client.callTool({ name: 'getPetById', arguments: { petId: 5 } });
          expect(result.isError, from).toBeFalsy();
        } finally {
          await client.close();
        }
      }
      // the address gets its share back as its connections end
      for (const c of flood) c.socket.destroy();
      await new Promise((r) => setTimeout(r, 300));
      expect((await send(server.url, { method: 'GET', path: '/healthz' })).status).toBe(200);
    } finally {
      for (const c of flood) c.socket.destroy();
    }
  }, 30_000);

  it('--headers-timeout-ms: a connection that sends nothing, or half a head, is closed in that time', async () => {
    const server = await serve('http', ['--headers-timeout-ms', '1000']);
    const port = Number(new URL(server.url).port);
    const began = Date.now();
    const silent = await rawConnection(port, '');
    const partial = await rawConnection(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    const [silentAt, partialAt] = await Promise.all([silent.closed, partial.closed]);
    // 1 s, checked every 250 ms; generous for a loaded machine
    expect(silentAt - began).toBeLessThan(4000);
    expect(partialAt - began).toBeLessThan(4000);
    expect(partial.answer()).toMatch(/^HTTP\/1\.1 408/);
  }, 20_000);

  it('an idle keep-alive socket is still there after 6 s (keepAliveTimeout above client pools)', async () => {
    const server = await serve('http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(server.url, { method: 'GET', path: '/healthz', agent });
      expect(first.status).toBe(200);
      await new Promise((r) => setTimeout(r, 6000));
      const second = await send(server.url, { method: 'GET', path: '/healthz', agent });
      expect(second.status).toBe(200);
      expect(second.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
  }, 20_000);
});

describe('malformed request targets', () => {
  it.each(['http://[', 'http://a b/mcp', '//[::1/mcp'])(
    'GET %s is answered 400 and the server goes on serving (over http+sse)',
    async (target) => {
      const server = await serve('http+sse');
      const port = Number(new URL(server.url).port);
      const raw = await rawConnection(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      await raw.closed;
      expect(raw.answer()).toMatch(/^HTTP\/1\.1 400 /);
      const client = await connect('http', server.url);
      try {
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    },
  );
});

describe('request heads a web Request cannot hold', () => {
  // Each made `new Request` throw inside node:http's request handler, which ended the process:
  // one request from anyone who reaches the port, before any token check. (CONNECT never gets
  // there: node:http closes a CONNECT that no 'connect' listener takes.)
  const ERROR = /^HTTP\/1\.1 4\d\d /;
  it.each([
    ['a Host with user info', ERROR, (port: number) => `POST /mcp HTTP/1.1\r\nHost: localhost:${port}@evil.example\r\n`],
    [
      'an absolute target with user info',
      ERROR,
      (port: number) => `POST http://user:pw@127.0.0.1:${port}/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`,
    ],
    ['the method TRACE', ERROR, (port: number) => `TRACE /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`],
    ['the method CONNECT', /^$/, (port: number) => `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`],
  ])('%s is answered so and the server goes on serving', async (_label, answered, head) => {
    const server = await serve('http');
    const port = Number(new URL(server.url).port);
    const raw = await rawConnection(port, `${head(port)}Content-Length: 0\r\nConnection: close\r\n\r\n`);
    await raw.closed;
    expect(raw.answer()).toMatch(answered);
    const client = await connect('http', server.url);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('deeply nested bodies', () => {
  /** A tools/call whose arguments nest `depth` arrays, padded to about `bytes`. */
  const nested = (depth: number, bytes: number) => {
    const inner = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const pad = 'x'.repeat(Math.max(0, bytes - inner.length - 200));
    return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"getPetById","arguments":{"petId":1,"pad":"${pad}","deep":${inner}}}}`;
  };

  it('a flood of 2 MB nested requests is refused with the depth error, and another client is served meanwhile', async () => {
    const server = await serve('http+sse');
    const client = await connect('http', server.url);
    try {
      const body = nested(1_000_000, 2 * 1024 * 1024);
      let flooding = true;
      const flood = Promise.all(
        Array.from({ length: 20 }, () => send(server.url, { headers: JSON_HEADERS, body, localAddress: '127.0.0.2' })),
      ).finally(() => (flooding = false));
      const latencies: number[] = [];
      for (let k = 0; k < 20 && (flooding || k < 3); k++) {
        const t = Date.now();
        const result = await client.callTool({ name: 'getPetById', arguments: { petId: 100 + k } });
        latencies.push(Date.now() - t);
        expect(result.isError).toBeFalsy();
      }
      const replies = await flood;
      for (const reply of replies) {
        expect(reply.status).toBe(400);
        expect(reply.body).toMatch(/nested deeper than 100 levels/);
      }
      expect(Math.max(...latencies)).toBeLessThan(2000);
    } finally {
      await client.close();
    }

    // the legacy SSE message endpoint checks the depth before the SDK parses the body
    const stream = await openSse(server.url, '127.0.0.1');
    try {
      await new Promise((r) => setTimeout(r, 200));
      const endpoint = /event: endpoint\ndata: (\S+)/.exec(stream.body())?.[1] as string;
      const reply = await send(server.url, { path: endpoint, headers: JSON_HEADERS, body: nested(500, 0) });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatch(/nested deeper than 100 levels/);
    } finally {
      stream.close();
    }
  }, 60_000);
});

describe('CORS *', () => {
  it('needs a token (or the opt-out) to start', async () => {
    const run = await launch(['--transport', 'http', '--port', '0', '--cors-origins', '*']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--cors-origins '\*' lets any web page call this server: set MCP_AUTH_TOKEN/);
  });

  it('with a token, a browser preflight and then the POST from any origin succeed', async () => {
    const server = await serve('http', ['--cors-origins', '*', '--auth-token', 'secret']);
    const origin = 'https://app.example.net';
    const preflight = await send(server.url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const post = await send(server.url, { headers: { ...JSON_HEADERS, origin, authorization: 'Bearer secret' }, body: INITIALIZE });
    expect(post.status).toBe(200);
    expect(post.headers['access-control-allow-origin']).toBe('*');
    expect(post.headers['mcp-session-id']).toBeTruthy();
  });

  it('legacy HTTP+SSE answers a listed origin with the CORS headers /mcp has: preflight, stream and message', async () => {
    const server = await serve('sse', ['--cors-origins', 'https://web.example', '--auth-token', 'secret']);
    const origin = 'https://web.example';
    const preflight = await send(server.url, {
      method: 'OPTIONS',
      path: '/messages',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    const stream = await openSse(server.url, '127.0.0.1', { origin, authorization: 'Bearer secret' });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['access-control-allow-origin']).toBe(origin);
      await expect.poll(() => /event: endpoint\ndata: (\S+)/.exec(stream.body())?.[1], { timeout: 5_000 }).toBeTruthy();
      const endpoint = /event: endpoint\ndata: (\S+)/.exec(stream.body())?.[1] as string;
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const posted = await send(server.url, {
        path: endpoint,
        headers: { ...JSON_HEADERS, origin, authorization: 'Bearer secret' },
        body: ping,
      });
      expect(posted.status).toBe(202);
      expect(posted.headers['access-control-allow-origin']).toBe(origin);
      expect(posted.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
    } finally {
      stream.close();
    }
  });
});

describe('stdio', () => {
  it('a line over the SDK limit is reported on stderr and ends the server with a non-zero code', async () => {
    const child = spawn('node', [join(dir, 'dist/main.js')], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ...SECRETS },
    });
    children.track(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on('error', () => undefined); // the server may be gone before the write ends
    const exited = exitOf(child);
    child.stdin.write(Buffer.alloc(11 * 1024 * 1024, 'a'));
    const { code } = await exited;
    expect(stderr).toMatch(/stdio: a message of more than 10485760 bytes arrived; closing/);
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
  }, 30_000);
});
