// The shape of one HTTP request's way through the server: a list of steps, each of which
// either passes the request on or answers it and stops there.

import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request and what the steps learnt about it so far. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The parsed JSON body of a POST, set by the body step. */
  body?: unknown;
}

/**
 * Returns true to pass the request on, false once it has answered it. A step is asynchronous
 * only when it must wait (for a body, for an endpoint).
 */
export type HttpStep = (exchange: Exchange) => boolean | Promise<boolean>;

/**
 * The steps run in order until one answers. Synchronous steps run within the request event
 * itself, so that a refusal costs no extra tick.
 */
export function pipeline(steps: readonly HttpStep[]): (exchange: Exchange) => Promise<void> {
  return async (exchange) => {
    for (const step of steps) {
      const passed = step(exchange);
      if (!(typeof passed === 'boolean' ? passed : await passed)) return;
    }
  };
}
