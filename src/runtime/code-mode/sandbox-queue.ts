// The programs waiting for a code-mode worker (sandbox-worker.ts), kept per caller so that one
// client queueing many programs cannot make another wait behind all of them: a freed worker goes
// to the caller with the fewest programs running (ties: the one served longest ago), each caller
// may queue only so many, and the queue as a whole is bounded. A program whose request is
// cancelled while it waits leaves the queue and never runs.

export interface QueueLimits {
  /** Programs one caller may have waiting (its running ones not counted). */
  perCaller: number;
  /** Programs all callers together may have waiting. */
  total: number;
}

/** A waiting program's turn: `start` is called when a worker is its, `abort` when its request was cancelled first. */
interface Waiter {
  start(): void;
  abort(): void;
}

export class FairQueue {
  /** Waiting programs by caller; the Map's order is the order callers were last served in. */
  private readonly byCaller = new Map<string, Waiter[]>();
  private size = 0;

  constructor(private readonly limits: QueueLimits) {}

  get waiting(): number {
    return this.size;
  }

  /**
   * Waits for the caller's turn: 'turn' once `next` chose it, 'aborted' when `signal` aborted
   * first (it then leaves the queue), or why it may not wait at all.
   */
  enter(caller: string, signal: AbortSignal): Promise<'turn' | 'aborted'> | { refused: string } {
    if (signal.aborted) return Promise.resolve('aborted');
    const own = this.byCaller.get(caller) ?? [];
    if (own.length >= this.limits.perCaller) {
      return { refused: `too many programs queued: this client already has ${own.length} waiting for a worker; await them first` };
    }
    if (this.size >= this.limits.total) {
      return { refused: `too many programs queued: ${this.size} are waiting for a worker; try again shortly` };
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        start: () => {
          signal.removeEventListener('abort', waiter.abort);
          resolve('turn');
        },
        abort: () => {
          this.remove(caller, waiter);
          resolve('aborted');
        },
      };
      own.push(waiter);
      this.byCaller.set(caller, own);
      this.size++;
      signal.addEventListener('abort', waiter.abort, { once: true });
    });
  }

  /** Gives a worker to the next program, that of the caller with the fewest running: its caller, or undefined when none waits. */
  next(running: (caller: string) => number): string | undefined {
    let chosen: string | undefined;
    for (const caller of this.byCaller.keys()) {
      if (chosen === undefined || running(caller) < running(chosen)) chosen = caller;
    }
    if (chosen === undefined) return undefined;
    const own = this.byCaller.get(chosen) as Waiter[];
    const waiter = own.shift() as Waiter;
    this.size--;
    // served: to the back of the order, or out of it when it has no more waiting
    this.byCaller.delete(chosen);
    if (own.length > 0) this.byCaller.set(chosen, own);
    waiter.start();
    return chosen;
  }

  private remove(caller: string, waiter: Waiter): void {
    const own = this.byCaller.get(caller);
    const at = own?.indexOf(waiter) ?? -1;
    if (own === undefined || at < 0) return;
    own.splice(at, 1);
    this.size--;
    if (own.length === 0) this.byCaller.delete(caller);
  }
}
