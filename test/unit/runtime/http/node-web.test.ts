// The node:http ↔ web conversion (node-web.ts), met by web endpoints (as the sign-in's) served
// through it on a real listener: bodies streamed both ways, a body left unread past its limit
// answered rather than cut, cookies kept apart, an SSE answer stopped when its client goes.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readForm } from '../../../../src/runtime/oauth/authorization-server/forms.js';
import type { WebEndpoints } from '../../../../src/runtime/web/web-steps.js';
import { postChunked, send, serveWeb, type StepServer } from '../../../harness/http-steps.js';

/** Endpoints at /form (the sign-in forms' reader, 16 KiB at most), /cookies and /events. */
function endpoints(events: { cancelled: boolean }): WebEndpoints {
  return {
    serves: (path) => ['/form', '/cookies', '/events'].includes(path),
    async answer(req, url, address) {
      if (url.pathname === '/form') {
        const form = await readForm(req);
        if (form === undefined) return new Response('form too large', { status: 413 });
        return Response.json({ form: Object.fromEntries(form), address, tag: req.headers.get('x-tag') });
      }
      if (url.pathname === '/cookies') {
        const headers = new Headers();
        headers.append('set-cookie', 'a=1; Path=/');
        headers.append('set-cookie', 'b=2; Path=/');
        return new Response(null, { status: 204, headers });
      }
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode('event: message\ndata: first\n\n')),
        cancel: () => void (events.cancelled = true),
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    },
  };
}

/** The endpoints served through the Node adapter, as the web core serves the sign-in's. */
function serveEndpoints(served: WebEndpoints): Promise<StepServer> {
  return serveWeb({
    fetch(request, info) {
      const url = new URL(request.url);
      return served.serves(url.pathname)
        ? served.answer(request, url, info.remoteAddr.hostname)
        : Promise.resolve(new Response(null, { status: 404 }));
    },
  });
}

describe('node:http as a web Request and Response (node-web.ts)', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());
  const events = { cancelled: false };

  it('streams a body to the endpoint, with its headers and the client address', async () => {
    server = await serveEndpoints(endpoints(events));
    const answer = await send(server.port, {
      method: 'POST',
      path: '/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-tag': 'one' },
      body: 'name=ada&role=admin',
    });
    expect(answer).toMatchObject({ status: 200, json: { form: { name: 'ada', role: 'admin' }, address: '127.0.0.1', tag: 'one' } });
    expect(answer.headers['content-length']).toBe(String(answer.text.length));
  });

  it('answers a chunked body over the endpoint’s limit, and closes the connection rather than read the rest', async () => {
    server = await serveEndpoints(endpoints(events));
    const answer = await postChunked(server.port, '/form', 'application/x-www-form-urlencoded', 1_000_000);
    expect(answer).toEqual({ status: 413, connection: 'close', text: 'form too large' });
  });

  it('keeps each Set-Cookie apart', async () => {
    server = await serveEndpoints(endpoints(events));
    const answer = await send(server.port, { path: '/cookies' });
    expect(answer.status).toBe(204);
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });

  it('writes an event stream as it comes, and cancels it when the client goes', async () => {
    server = await serveEndpoints(endpoints(events));
    const port = server.port;
    const first = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/events' }, (res) => {
        res.setEncoding('utf8').once('data', (chunk: string) => {
          resolve(chunk);
          req.destroy();
        });
      });
      req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
      req.end();
    });
    expect(first).toBe('event: message\ndata: first\n\n');
    await expect.poll(() => events.cancelled, { timeout: 2_000 }).toBe(true);
  });
});
