// A call's end, as its requests see it: the time limit (--timeout) or the client's
// cancellation. An AbortSignal per call costs more CPU than all the rest of the limit, so the
// limit is its own small object, and makes an AbortSignal only for what takes nothing else
// (fetch, a token request); one timer per duration serves the limits of every call.

/**
 * What a request needs of its call's end: whether it came, why, and a word when it comes. An
 * AbortSignal is one, and so is a CallLimit.
 */
export interface Cancellation {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** An AbortSignal for `cancel`, for what takes only that (fetch, AbortSignal.any). */
export function abortSignalOf(cancel: Cancellation): AbortSignal {
  return cancel instanceof CallLimit ? cancel.signal : (cancel as AbortSignal);
}

/** The time limit of one call and its client's cancellation as one Cancellation. */
export class CallLimit implements Cancellation {
  aborted = false;
  reason: unknown = undefined;
  readonly endsAt: number;
  private listeners: (() => void)[] = [];
  private controller: AbortController | undefined;
  private timedOutNow = false;
  private readonly expiry: Expiry;
  private readonly onCancel = () => this.abort(this.cancel.reason);

  constructor(
    private readonly cancel: AbortSignal,
    ms: number,
  ) {
    this.endsAt = Date.now() + ms;
    this.expiry = expiries.add(ms, () => {
      this.timedOutNow = true;
      this.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
    });
    if (cancel.aborted) this.onCancel();
    else cancel.addEventListener('abort', this.onCancel, { once: true });
  }

  /** An AbortSignal that aborts with the limit, made on first use. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  timedOut(): boolean {
    return this.timedOutNow;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  /** Ends the limit: from now on neither the timer nor the client aborts it. */
  done(): void {
    this.expiry.cancelled = true;
    this.cancel.removeEventListener('abort', this.onCancel);
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

interface Expiry {
  at: number;
  fire: () => void;
  cancelled: boolean;
}

interface ExpiryQueue {
  entries: Expiry[];
  timer?: NodeJS.Timeout;
}

/**
 * The calls' time limits, one queue and one timer per duration: a timer set and cleared per
 * call costs more CPU than the rest of the limit. Limits of one duration expire in the order
 * they were set, so each queue is in order, and its timer waits for the first limit still
 * running. The timer does not keep the process alive: a call in flight has its socket for that.
 */
class Expiries {
  private readonly queues = new Map<number, ExpiryQueue>();

  add(ms: number, fire: () => void): Expiry {
    let queue = this.queues.get(ms);
    if (queue === undefined) this.queues.set(ms, (queue = { entries: [] }));
    const entry: Expiry = { at: performance.now() + ms, fire, cancelled: false };
    // Ended limits leave the front as soon as the next one is set: a busy queue stays short.
    dropEnded(queue);
    queue.entries.push(entry);
    if (queue.timer === undefined) this.arm(queue);
    return entry;
  }

  private arm(queue: ExpiryQueue): void {
    dropEnded(queue);
    const first = queue.entries[0];
    queue.timer = first && setTimeout(() => this.expire(queue), Math.max(0, first.at - performance.now())).unref();
  }

  private expire(queue: ExpiryQueue): void {
    const now = performance.now();
    for (let first = queue.entries[0]; first !== undefined && (first.cancelled || first.at <= now); first = queue.entries[0]) {
      queue.entries.shift();
      if (!first.cancelled) first.fire();
    }
    this.arm(queue);
  }
}

function dropEnded(queue: ExpiryQueue): void {
  while (queue.entries[0]?.cancelled) queue.entries.shift();
}

const expiries = new Expiries();
