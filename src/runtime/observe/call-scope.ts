// Which tools/call an async continuation belongs to: the call's record, found again by an
// upstream attempt, a retry's wait, a long-running poll or a code-mode program's api call, so
// that each is counted, traced and told to the client as part of its own call. One small port,
// one implementation per kind of platform.

export interface CallScopes<T> {
  /** Runs `fn` with `value` as the current call's, through every await `fn` makes. */
  run<R>(value: T, fn: () => R): R;
  /** The current call's value, if any. */
  current(): T | undefined;
  /** `fn` bound to the current call: for callbacks that arrive outside it (a worker's messages). */
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
}

/**
 * Where the platform carries no async context: nothing is found again. Correct however many
 * requests an isolate serves at once (no call ever sees another's record), but the call log's
 * attempts, the trace context sent upstream and the client's log messages of waits and progress
 * are then absent.
 */
export const UNSCOPED: CallScopes<never> = { run: (_value, fn) => fn(), current: () => undefined, bind: (fn) => fn };
