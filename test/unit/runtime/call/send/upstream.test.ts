// The runtime's HTTP client for upstream requests (src/runtime/call/send/upstream.ts), against real
// servers on 127.0.0.1: framing, content-codings, the stale keep-alive retry, and the hand-over
// to fetch's types for hooks.
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readLimited,
  sendFollowingRedirects,
  sendOnce,
  toWebResponse,
  fromWebResponse,
} from '../../../../../src/runtime/call/send/upstream.js';
import { InternalAddressError } from '../../../../../src/contract/addresses.js';

const never = new AbortController().signal;
const places = { headers: new Set(['authorization']), query: new Set<string>() };

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function listen(server: Server | NetServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

describe('sendOnce', () => {
  const seen: Seen[] = [];
  const text = 'héllo wörld '.repeat(200);
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const coding = req.url?.slice(1) ?? '';
      const encoded: Record<string, Buffer> = {
        gzip: gzipSync(text),
        deflate: deflateSync(text),
        br: brotliCompressSync(text),
        identity: Buffer.from(text),
      };
      if (coding === 'cookies') {
        res.writeHead(201, 'Made', [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
          ['x-rate-limit', '7'],
          ['content-type', 'text/plain'],
        ]);
        return res.end('made');
      }
      if (coding === 'empty') return res.writeHead(204).end();
      if (coding === 'reset') return res.writeHead(205).end();
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...(coding !== 'identity' ? { 'content-encoding': coding } : {}) });
      res.end(encoded[coding] ?? Buffer.from(text));
    });
  });
  let base = '';
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each(['gzip', 'deflate', 'br', 'identity'])('decodes a %s body, and the size limit counts decoded bytes', async (coding) => {
    const whole = await readLimited(await sendOnce(new URL(`${base}/${coding}`), 'GET', {}, undefined, never), 1 << 20);
    expect(Buffer.from(whole.bytes).toString('utf8')).toBe(text);
    const cut = await readLimited(await sendOnce(new URL(`${base}/${coding}`), 'GET', {}, undefined, never), 100);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes.length).toBe(100);
  });

  it("adds fetch's default Accept-Encoding and User-Agent only when the request has none", async () => {
    seen.length = 0;
    await readLimited(await sendOnce(new URL(`${base}/identity`), 'GET', {}, undefined, never), 10);
    await readLimited(
      await sendOnce(new URL(`${base}/identity`), 'GET', { 'Accept-Encoding': 'identity', 'User-Agent': 'mine/1' }, undefined, never),
      10,
    );
    expect(seen.map((s) => [s.headers['accept-encoding'], s.headers['user-agent']])).toEqual([
      ['gzip, deflate, br', 'node'],
      ['identity', 'mine/1'],
    ]);
  });

  it('computes Content-Length itself: bytes of a UTF-8 body, 0 for an empty POST, none for a GET', async () => {
    seen.length = 0;
    const post = (body: string | undefined, headers: Record<string, string> = {}) =>
      sendOnce(new URL(`${base}/identity`), 'POST', headers, body, never).then((r) => readLimited(r, 10));
    await post('ünï', { 'content-length': '999' });
    await post(undefined);
    await sendOnce(new URL(`${base}/identity`), 'GET', {}, undefined, never).then((r) => readLimited(r, 10));
    expect(seen.map((s) => [s.method, s.headers['content-length'], s.headers['transfer-encoding'], s.body])).toEqual([
      ['POST', '5', undefined, 'ünï'],
      ['POST', '0', undefined, ''],
      ['GET', undefined, undefined, ''],
    ]);
  });

  it('refuses a URL with a user name or password, as fetch does, instead of sending them as Basic auth', async () => {
    seen.length = 0;
    const url = new URL(base.replace('http://', 'http://ann:SECRET@'));
    await expect(sendOnce(url, 'GET', {}, undefined, never)).rejects.toThrow(/user name or password/);
    expect(seen).toEqual([]);
  });

  it('sends a body only fetch can frame (a hook may set FormData) through fetch', async () => {
    seen.length = 0;
    const form = new FormData();
    form.set('name', 'doggie');
    const answer = await sendOnce(new URL(`${base}/identity`), 'POST', {}, form, never);
    expect(answer.status).toBe(200);
    expect(seen[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain('name="name"\r\n\r\ndoggie');
  });

  it('hands hooks a fetch Response with every header, and reads theirs back', async () => {
    const answer = await sendOnce(new URL(`${base}/cookies`), 'GET', {}, undefined, never);
    const web = toWebResponse(answer);
    expect([web.status, web.statusText, web.headers.get('x-rate-limit'), web.headers.getSetCookie()]).toEqual([
      201,
      'Made',
      '7',
      ['a=1', 'b=2'],
    ]);
    const back = fromWebResponse(web);
    expect(Buffer.from((await readLimited(back, 100)).bytes).toString()).toBe('made');
    // A Response with a body and a null-body status (204, 205, 304) cannot be constructed.
    for (const [path, status] of [
      ['empty', 204],
      ['reset', 205],
    ] as const) {
      const none = toWebResponse(await sendOnce(new URL(`${base}/${path}`), 'GET', {}, undefined, never));
      expect([none.status, none.body]).toEqual([status, null]);
    }
  });
});

/**
 * A keep-alive server that answers the first request on each connection and resets the
 * connection on the second, as an upstream that closed an idle socket the client reused.
 */
function resettingServer(): { server: NetServer; requests: string[] } {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket: Socket) => {
    sockets.add(socket);
    let answered = 0;
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      while (buffer.includes('\r\n\r\n')) {
        const end = buffer.indexOf('\r\n\r\n') + 4;
        const head = buffer.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + length) return;
        buffer = buffer.slice(end + length);
        requests.push(head.split(' ', 1)[0] as string);
        if (answered++ === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
        else socket.resetAndDestroy();
      }
    });
    socket.on('error', () => undefined);
  });
  // close() waits for every connection, and the client's pool keeps its socket open
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  return { server, requests };
}

describe('a kept-alive socket the upstream closed', () => {
  // A server each: the pool keeps sockets per origin.
  const made: NetServer[] = [];
  const start = async () => {
    const { server, requests } = resettingServer();
    made.push(server);
    return { base: await listen(server), requests };
  };
  afterAll(() => Promise.all(made.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));

  it('an idempotent request is sent again on a new socket', async () => {
    const { base, requests } = await start();
    const first = await sendOnce(new URL(`${base}/a`), 'GET', {}, undefined, never);
    await readLimited(first, 10);
    const second = await sendOnce(new URL(`${base}/a`), 'GET', {}, undefined, never);
    expect(Buffer.from((await readLimited(second, 10)).bytes).toString()).toBe('ok');
    expect(requests).toEqual(['GET', 'GET', 'GET']);
  });

  it('a POST is not: it may have been received, and the caller sees the failure', async () => {
    const { base, requests } = await start();
    await readLimited(await sendOnce(new URL(`${base}/b`), 'POST', {}, 'x', never), 10);
    await expect(sendOnce(new URL(`${base}/b`), 'POST', {}, 'x', never)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(requests).toEqual(['POST', 'POST']);
  });
});

describe('sendFollowingRedirects', () => {
  const seen: Seen[] = [];
  const server = createHttpServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
    req.resume();
    if (req.url === '/from') return res.writeHead(302, { location: '/to' }).end('moving');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('here');
  });
  let base = '';
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('follows a 302 on the same origin with the credentials, turning a POST into a GET without its body', async () => {
    seen.length = 0;
    const answer = await sendFollowingRedirects(
      { tool: 't', method: 'POST', url: `${base}/from`, headers: { authorization: 'Bearer T', 'content-type': 'text/plain' }, body: 'x' },
      never,
      places,
    );
    expect(Buffer.from((await readLimited(answer, 10)).bytes).toString()).toBe('here');
    expect(seen.map((s) => [s.method, s.url, s.headers.authorization, s.headers['content-type']])).toEqual([
      ['POST', '/from', 'Bearer T', 'text/plain'],
      ['GET', '/to', 'Bearer T', undefined],
    ]);
  });
});

// The servers of a spec loaded from a URL (ToolTable.publicServers): no connection to an
// internal address, by IP or by a name that resolves to one, on any redirect hop; only the
// spec's own origin, when the user fetched it from an internal address, is exempt.
describe('public servers only', () => {
  const seen: string[] = [];
  const internal = createHttpServer((req, res) => {
    seen.push(`internal ${req.url}`);
    req.resume();
    res.writeHead(200).end('internal');
  });
  let internalBase = '';
  const trusted = createHttpServer((req, res) => {
    seen.push(`trusted ${req.url}`);
    req.resume();
    if (req.url === '/away') return res.writeHead(302, { location: `${internalBase}/admin` }).end();
    res.writeHead(200).end('trusted');
  });
  let trustedBase = '';
  beforeAll(async () => {
    internalBase = await listen(internal);
    trustedBase = await listen(trusted);
  });
  afterAll(() => Promise.all([internal, trusted].map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));
  const get = (url: string, publicServers: { trustedOrigin?: string } | undefined) =>
    sendFollowingRedirects({ tool: 't', method: 'GET', url, headers: {} }, never, places, publicServers);

  it.each([
    ['an internal IP address', () => `${internalBase}/x`, /^127\.0\.0\.1 is an internal address$/],
    [
      'a name that resolves to one',
      () => internalBase.replace('127.0.0.1', 'localhost') + '/x',
      /^localhost resolves to an internal address \((127\.0\.0\.1|::1)\)$/,
    ],
  ])('%s is refused before anything is sent', async (_label, url, message) => {
    seen.length = 0;
    const error = await get(url(), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalAddressError);
    expect((error as Error).message).toMatch(message);
    expect(seen).toEqual([]);
    // without the rule (a spec file, --allow-internal-servers, --base-url) the same request goes out
    await get(url(), undefined);
    expect(seen).toEqual(['internal /x']);
  });

  it("the spec's own internal origin is reached, but not where it redirects", async () => {
    seen.length = 0;
    const rule = { trustedOrigin: trustedBase };
    expect(Buffer.from((await readLimited(await get(`${trustedBase}/ok`, rule), 100)).bytes).toString()).toBe('trusted');
    const error = await get(`${trustedBase}/away`, rule).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalAddressError);
    expect(seen).toEqual(['trusted /ok', 'trusted /away']);
  });
});

describe('sendOnce: the method on the request line', () => {
  const lines: string[] = [];
  const server = createNetServer((socket: Socket) => {
    socket.once('data', (chunk: Buffer) => {
      lines.push(chunk.toString('latin1').split('\r\n')[0] ?? '');
      socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n');
    });
  });
  let base = '';
  beforeAll(async () => void (base = await listen(server)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a method not in capitals goes as written (RFC 9110 §9.1), but a fixed one a hook spelled in lower case in capitals', async () => {
    for (const method of ['PURGE', 'Refresh', 'patch']) {
      const answer = await sendOnce(new URL(`${base}/x`), method, {}, undefined, never);
      await readLimited(answer, 10);
    }
    expect(lines).toEqual(['PURGE /x HTTP/1.1', 'Refresh /x HTTP/1.1', 'PATCH /x HTTP/1.1']);
  });
});
