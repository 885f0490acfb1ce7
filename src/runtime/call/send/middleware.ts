// What goes around each try of a request: the pacing (pacing.ts) and the observer's span and
// call log (observe.ts) are middleware over the upstream sender, composed in one place
// (`forCall` in retry.ts), and a wait before a try (a backoff, Retry-After, the rate limit) is
// reported to whoever composes them through `OnWait`, never through a side channel.

import type { OutgoingRequest } from '../../hooks-api.js';
import type { Cancellation } from './call-limit.js';
import type { UpstreamResponse } from './upstream-response.js';

/** One try of a request. */
export type SendOne = (request: OutgoingRequest, signal: Cancellation) => Promise<UpstreamResponse>;

/** Something done around each try: it sends through `next`, or not at all. */
export type SendMiddleware = (next: SendOne) => SendOne;

/** A wait before a try, in ms (`reason`: retry-after, backoff or rate-limit; `said`: a line without argument values). */
export type OnWait = (ms: number, reason: string, said: string) => void;

/** `send` inside `middleware`, the first outermost. */
export function composeSend(send: SendOne, middleware: readonly SendMiddleware[]): SendOne {
  return middleware.reduceRight((next, around) => around(next), send);
}
