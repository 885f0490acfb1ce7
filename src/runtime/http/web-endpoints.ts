// Web-standard endpoints (the OAuth sign-in's, written once for every platform) served by the
// Node listener: its request made a web Request (the body streamed, read only by the endpoint),
// the Response written back (node-web.ts). Requests to other paths pass on untouched.

import { clientAddress } from './connections.js';
import { NodeExchange } from './node-web.js';
import type { HttpStep } from './pipeline.js';
import type { WebEndpoints } from '../web/web-steps.js';

export function nodeStepOf(endpoints: WebEndpoints): HttpStep {
  return async ({ req, res, url }) => {
    if (!endpoints.serves(url.pathname)) return true;
    const exchange = new NodeExchange(req, res);
    await exchange.write(await endpoints.answer(exchange.request(url), url, clientAddress(req.socket)));
    return false;
  };
}
