// What following a long-running operation keeps of it between status checks: plain JSON but for
// the last answer's bytes, so that a store the replicas share can hold it (operation-store.ts).
// Never a credential: the request's URL is kept with its credential query parameters taken out.
import type { UpstreamAnswer } from '../call/answer/response.js';
import type { FinalStateVia } from '../../contract/table.js';

/** What the first answer's headers say about where the operation goes on (kept server-side, never shown). */
export interface OperationHeaders {
  /** Azure-AsyncOperation or Operation-Location: a status monitor whose body says how it goes. */
  monitor?: string;
  /** Location: polled while it answers 202 when there is no monitor; else where the result may be. */
  location?: string;
  /** Retry-After, in milliseconds from when it came. */
  retryAfterMs?: number;
}

/** An answer with its headers' operation links and the request it answered (its URL without credentials), kept server-side. */
export type TrackedAnswer = UpstreamAnswer & { operation?: OperationHeaders; request?: { method: string; url: string } };

/** How the server reads the operation's state, and what it polls. */
export type Poll =
  /** GET `url`; `monitor`: its body's `status` (or `done`) says; else 202 is running and any other answer is the result. */
  | { kind: 'url'; url: string; monitor: boolean }
  /** The linked status operation, called with these arguments. */
  | { kind: 'tool'; tool: string; args: Record<string, unknown> }
  /** A Google Operation, read at the API's `path`. */
  | { kind: 'operation'; path: string };

/** An operation being followed: what to poll, and how to find its result when it has succeeded. */
export interface Tracking {
  tool: string;
  /** The call's arguments, for the result's budget (which pages it names). */
  args: Record<string, unknown>;
  method: string;
  /** The first request's URL, credentials taken out: Azure's `original-uri`. */
  requestUrl: string;
  location?: string;
  finalStateVia?: FinalStateVia;
  poll: Poll;
  polls: number;
  /** The next wait, in ms, unless the upstream says Retry-After. */
  intervalMs: number;
  /** When the next status request may go (epoch ms): Retry-After's time, else the interval's. */
  nextPollAt: number;
  /** The latest status answer's, the operation's state in a word when it gave one (for progress and the handle's answer). */
  state?: string;
  /** The latest Operation seen (Google), the pending answer's structured content. */
  last?: TrackedAnswer;
}
