// How fast this server talks to each API origin, so that one agent cannot trip the API's own
// limits: at most --max-concurrent-requests requests in flight (the rest wait in a FIFO queue),
// and with --rate-limit N, requests spaced 1/N s apart (over several APIs, each API at its own
// rate, api-settings.ts). Every wait is bounded by the call's time
// limit and ends with the client's cancellation.

import type { Cancellation } from './call-limit.js';
import type { Logger } from '../../start/log.js';
import type { OnWait, SendMiddleware } from './middleware.js';
import { urlOf } from './upstream.js';
import type { UpstreamResponse } from './upstream-response.js';

export interface PacingLimits {
  /** Requests in flight to one origin at once. */
  maxConcurrent: number;
  /** Requests per second to one origin; undefined: no limit. */
  ratePerSecond?: number;
}

/**
 * A call's rate: requests per second to each origin of its `bucket` (over several APIs, its
 * API's namespace: each API keeps its own pace), and the setting that gave it, for the log.
 */
export interface Rate {
  perSecond: number;
  setting: string;
  bucket: string;
}

/** A request the pacing did not let through in the call's time; `code` as node's errors carry theirs. */
export class PacingError extends Error {
  readonly code = 'EPACING';
}

/** One call's side of the pacing: its time limit, and the slots it holds (freed by `done` whatever happened). */
export interface CallPace {
  /**
   * Sends one request through `sendOne` when its origin has a free slot and the rate allows;
   * the slot is held until the answer's body is read or discarded, or the call ends.
   */
  send(origin: string, sendOne: () => Promise<UpstreamResponse>): Promise<UpstreamResponse>;
  done(): void;
}

export interface Pacer {
  /** `rate`: the call's own; absent, the limits' ratePerSecond (--rate-limit); null, none. */
  forCall(signal: Cancellation, endsAt: number, name: string, rate?: Rate | null): CallPace;
}

interface Waiter {
  grant(): void;
}

/** Slots of one origin: how many are taken, and who waits for one, first come first served. */
class Slots {
  taken = 0;
  readonly queue: Waiter[] = [];
}

/** A place in `own`'s queue, granted in turn; left, with the call's reason, when its signal aborts. */
function queueFor(own: Slots, signal: Cancellation, busy: () => string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      grant: () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
    };
    const onAbort = () => {
      own.queue.splice(own.queue.indexOf(waiter), 1);
      reject(timedOut(signal) ? new PacingError(busy()) : signal.reason);
    };
    own.queue.push(waiter);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function createPacer(limits: PacingLimits, log: Logger, onWait: OnWait): Pacer {
  const slots = new Map<string, Slots>();
  const spaced = rateSpacing(log, onWait);
  const serverRate: Rate | null =
    limits.ratePerSecond === undefined ? null : { perSecond: limits.ratePerSecond, setting: '--rate-limit', bucket: '' };
  const slotsOf = (origin: string): Slots => {
    const known = slots.get(origin);
    if (known !== undefined) return known;
    const made = new Slots();
    slots.set(origin, made);
    return made;
  };

  function release(origin: string): void {
    const own = slotsOf(origin);
    const next = own.queue.shift();
    if (next !== undefined) next.grant();
    else if (--own.taken === 0) slots.delete(origin);
  }

  /** A slot of `origin`, now (undefined) or after the ones queued before; given up when the call's signal aborts. */
  function acquire(origin: string, signal: Cancellation, name: string): Promise<void> | undefined {
    const own = slotsOf(origin);
    if (own.taken < limits.maxConcurrent) {
      own.taken++;
      return undefined;
    }
    log.info(
      `${name}: waiting for a request slot (${own.taken} in flight to ${origin}, ${own.queue.length} waiting; --max-concurrent-requests)`,
    );
    return queueFor(
      own,
      signal,
      () => `all ${limits.maxConcurrent} request slots to ${origin} stayed busy for the whole call (--max-concurrent-requests)`,
    );
  }

  return {
    forCall(signal, endsAt, name, own) {
      const rate = own === undefined ? serverRate : own;
      // Made with the call's first slot: a call that never sends holds none.
      let held: Set<() => void> | undefined;
      return {
        async send(origin, sendOne) {
          // No wait, no turn of the event loop: the common case, a free slot and no rate limit.
          const queued = acquire(origin, signal, name);
          if (queued !== undefined) await queued;
          let freed = false;
          const free = () => {
            if (freed) return;
            freed = true;
            held?.delete(free);
            release(origin);
          };
          (held ??= new Set()).add(free);
          try {
            if (rate !== null) await spaced(rate, origin, { signal, endsAt, name });
            return holding(await sendOne(), free);
          } catch (error) {
            free();
            throw error;
          }
        },
        done() {
          if (held !== undefined) for (const free of [...held]) free();
        },
      };
    },
  };
}

/**
 * With a rate, the wait for the next rate slot of the rate's bucket at an origin: refused at
 * once when the slot comes after the call's end.
 */
function rateSpacing(
  log: Logger,
  onWait: OnWait,
): (rate: Rate, origin: string, call: { signal: Cancellation; endsAt: number; name: string }) => Promise<void> {
  // When the next request of each bucket to each origin may leave (ms since the epoch).
  const nextFree = new Map<string, number>();
  return async (rate, origin, { signal, endsAt, name }) => {
    const key = `${rate.bucket} ${origin}`;
    const now = Date.now();
    const at = Math.max(now, nextFree.get(key) ?? 0);
    const limit = `${rate.setting} ${rate.perSecond} per second to ${origin}`;
    if (at >= endsAt) {
      throw new PacingError(
        `the rate limit (${limit}) would hold it ${duration(at - now)}, longer than the ${duration(endsAt - now)} left of the call's time`,
      );
    }
    nextFree.set(key, at + 1000 / rate.perSecond);
    if (at > now) {
      const said = `${name}: waiting ${Math.round(at - now)} ms for the rate limit (${limit})`;
      log.info(said);
      onWait(at - now, 'rate-limit', said);
      await sleep(at - now, signal);
    }
  };
}

/** The pacing around each try of a call: the try waits for its origin's slot and the rate. */
export function pacedBy(pace: CallPace): SendMiddleware {
  return (next) => (request, signal) => pace.send(urlOf(request).origin, () => next(request, signal));
}

/** The response, with its slot freed once its body has been read to the end or dropped. */
function holding(response: UpstreamResponse, free: () => void): UpstreamResponse {
  const body = response.body;
  if (body === null) {
    free();
    return response;
  }
  const discard = () => {
    response.discard();
    free();
  };
  // node:http's body says when it ends or is destroyed: no wrapper in the way of reading it.
  // Told by its events rather than by class, so that no node: module is imported on a platform's path.
  if (isEmitter(body)) {
    body.once('end', free).once('close', free);
    return { ...response, discard };
  }
  return {
    ...response,
    body: (async function* () {
      try {
        yield* body;
      } finally {
        free();
      }
    })(),
    discard,
  };
}

interface Emitter {
  once(event: string, listener: () => void): Emitter;
}
const isEmitter = (body: object): body is Emitter => typeof (body as Partial<Emitter>).once === 'function';

/** The deadline's own abort (exchange.ts), as against the client's cancellation. */
function timedOut(signal: Cancellation): boolean {
  return (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
}

/** A wait as people read it: 250 ms, 1.2 s, 30 s. */
export function duration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole} ms`;
  const s = whole / 1000;
  return `${s >= 10 ? Math.round(s) : Math.round(s * 10) / 10} s`;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: Cancellation): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve(); // a timer of 0 ms still waits for the next turn of the loop (≥ 1 ms)
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
