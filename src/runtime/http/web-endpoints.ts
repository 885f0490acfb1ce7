// Web-standard endpoints (the OAuth sign-in's, written once for every platform) served by the
// Node listener: its request made a web Request (the body streamed, read only by the endpoint),
// the Response written back. Requests to other paths pass on untouched.

import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress } from './connections.js';
import type { HttpStep } from './pipeline.js';
import type { WebEndpoints } from '../web/web-steps.js';

export function nodeStepOf(endpoints: WebEndpoints): HttpStep {
  return async ({ req, res, url }) => {
    if (!endpoints.serves(url.pathname)) return true;
    await writeAnswer(res, await endpoints.answer(webRequestOf(req, url), url, clientAddress(req.socket)));
    return false;
  };
}

function webRequestOf(req: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });
  const body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
  return new Request(url, { method, headers, body, duplex: 'half' } as RequestInit);
}

async function writeAnswer(res: ServerResponse, answer: Response): Promise<void> {
  for (const [name, value] of answer.headers) if (name !== 'set-cookie') res.setHeader(name, value);
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.writeHead(answer.status);
  res.end(answer.body === null ? undefined : Buffer.from(await answer.arrayBuffer()));
}
