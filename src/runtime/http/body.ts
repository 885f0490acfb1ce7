// Every POST body is read, bounded and parsed here, so that the size and depth checks come
// before any SDK code parses it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRpcError } from './answer.js';
import type { HttpStep } from './pipeline.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../contract/limits.js';

/** Sets `body` of a POST to its parsed JSON, or answers 415, 413 or 400; other methods pass. */
export function jsonBody(maxBytes: number): HttpStep {
  return (exchange) => {
    if (exchange.req.method !== 'POST') return true;
    return readJsonBody(exchange.req, exchange.res, maxBytes).then((read) => {
      if (read) exchange.body = read.body;
      return read !== undefined;
    });
  };
}

const isJson = (req: IncomingMessage) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(req.headers['content-type'] ?? '');

/** Answers the error itself and returns undefined then. */
async function readJsonBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<{ body: unknown } | undefined> {
  if (!isJson(req)) {
    jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    return undefined;
  }
  const tooLarge = () => {
    res.setHeader('connection', 'close'); // the rest of the body is not read
    jsonRpcError(res, 413, -32000, `Request body too large (more than ${maxBytes} bytes)`);
    return undefined;
  };
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return tooLarge();
  const bytes = await readBytes(req, maxBytes);
  if (bytes === 'too large') {
    const answered = tooLarge();
    req.destroy(); // as leaving a `for await` loop over it does
    return answered;
  }
  if (bytes === undefined) return undefined; // the client went away, or the request timed out (Node answered 408)
  const text = bytes.toString('utf8');
  // Before JSON.parse, which spends ~0.7 s of event loop on a 2 MB body nested a million deep
  // (the scan: a few ms): twenty such requests would stall every other client for seconds.
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
    jsonRpcError(res, 400, -32600, `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    return undefined;
  }
  try {
    return { body: JSON.parse(text) };
  } catch {
    jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    return undefined;
  }
}

/**
 * The body's bytes, read by its events: what `for await` over it gives, without the async
 * iterator's bookkeeping on every request. 'too large' past `maxBytes`; undefined when the
 * client went away before the end.
 */
function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too large' | undefined> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // The error listener stays: an error after the end must not go unhandled.
    const finish = (value: Buffer | 'too large' | undefined) => {
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish('too large');
      else chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks));
    const onClose = () => finish(undefined);
    req
      .on('data', onData)
      .once('end', onEnd)
      .once('close', onClose)
      .on('error', () => finish(undefined));
  });
}
