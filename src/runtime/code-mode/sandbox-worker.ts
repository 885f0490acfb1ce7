// Code mode's programs run in worker threads (this file, as the worker and as its pool), so that
// a program computing never holds the server's event loop: other clients are served meanwhile.
// The worker runs sandbox.ts; each api call crosses to the server's thread as a message and its
// answer comes back as JSON. A program whose own time passes the limit by more than the engine's
// interrupt granularity allows (QuickJS checks it only every ~10,000 steps) has its worker ended,
// and the pool starts another; so has a program whose request is cancelled, since a busy worker
// never reads a message. Every step settles the run: whatever throws becomes its error outcome.
//
// The pool is shared by every client of the process: programs waiting for a worker are served
// fairly across callers (sandbox-queue.ts), and a program waiting for a person (a confirmation)
// lends its worker's place: another worker may start meanwhile, so that unanswered questions
// never hold the workers that computing programs need.

import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { runProgram, type SandboxApi, type SandboxLimits, type SandboxOutcome } from './sandbox.js';
import { FairQueue } from './sandbox-queue.js';

/** Programs that may compute at once; more wait for a worker. */
const POOL_SIZE = 2;
/** Programs that may wait for a person at once, each with a worker of its own beside the pool's. */
const MAX_PERSON_WAITS = 2;
/** Programs waiting for a worker: per caller, and in all. */
const QUEUE_LIMITS = { perCaller: 4, total: 32 };
const ABORTED = 'the run was aborted';
/** Beyond its time limit, a program's own time this long ends its worker. */
const OVERRUN_GRACE_MS = 1_000;
const WATCH_INTERVAL_MS = 100;

type ToWorker =
  | { kind: 'run'; body: string; names: readonly string[]; limits: SandboxLimits }
  | { kind: 'answer'; id: number; ok: true; json: string }
  | { kind: 'answer'; id: number; ok: false; message: string }
  | { kind: 'abort' };
type FromWorker = { kind: 'call'; id: number; name: string; json: string } | { kind: 'done'; outcome: SandboxOutcome };

if (!isMainThread && parentPort !== null) serveInWorker(parentPort);

/** The worker's side: one run at a time, its api calls asked of the server's thread. */
function serveInWorker(port: NonNullable<typeof parentPort>): void {
  let pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let controller = new AbortController();
  let next = 0;
  const done = (outcome: SandboxOutcome) => {
    try {
      port.postMessage({ kind: 'done', outcome } satisfies FromWorker);
    } catch (error) {
      const failed = {
        ok: false,
        error: `the outcome could not be sent back: ${firstLine(error)}`,
        logs: '',
        calls: outcome.calls,
      } as const;
      port.postMessage({ kind: 'done', outcome: failed } satisfies FromWorker);
    }
  };
  port.on('message', (message: ToWorker) => {
    if (message.kind === 'abort') return controller.abort(new Error('aborted'));
    if (message.kind === 'answer') return settle(pending, message);
    pending = new Map();
    controller = new AbortController();
    const api: SandboxApi = {
      names: message.names,
      call: (name, args) =>
        new Promise((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject });
          port.postMessage({ kind: 'call', id, name, json: JSON.stringify(args ?? {}) } satisfies FromWorker);
        }),
    };
    void runProgram(message.body, api, message.limits, controller.signal)
      .catch((error: unknown) => ({ ok: false, error: `the sandbox failed: ${firstLine(error)}`, logs: '', calls: 0 }) as const)
      .then(done);
  });
}

/** Settles the api call an answer is for; an answer that cannot be read rejects it. */
function settle(
  pending: Map<number, { resolve(value: unknown): void; reject(error: Error): void }>,
  answer: Extract<ToWorker, { kind: 'answer' }>,
): void {
  const waiting = pending.get(answer.id);
  pending.delete(answer.id);
  if (!answer.ok) return waiting?.reject(new Error(answer.message));
  try {
    waiting?.resolve(JSON.parse(answer.json) as unknown);
  } catch (error) {
    waiting?.reject(new Error(`the api call's answer could not be read: ${firstLine(error)}`));
  }
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

const slots: Slot[] = [];
const queue = new FairQueue(QUEUE_LIMITS);
/** Programs started or given their turn, by caller; and in all. */
const runningBy = new Map<string, number>();
let running = 0;
/** Programs waiting for a person now: each lends its place in the pool. */
let lent = 0;

const runningOf = (caller: string) => runningBy.get(caller) ?? 0;
const capacity = () => POOL_SIZE + lent;

/**
 * Runs a program in a pooled worker: the same outcome runProgram gives, without blocking this
 * thread. `caller`: whose program it is (a session, an OAuth client), for the pool's fair share.
 */
export async function runInWorker(
  body: string,
  api: SandboxApi,
  limits: SandboxLimits,
  signal: AbortSignal,
  caller = '',
): Promise<SandboxOutcome> {
  const turn = await waitForTurn(caller, signal);
  if (turn !== 'turn') return { ok: false, error: turn === 'aborted' ? ABORTED : turn.refused, logs: '', calls: 0 };
  const slot = claimSlot();
  try {
    // cancelled just as its turn came: the worker is given back unused
    if (signal.aborted) return { ok: false, error: ABORTED, logs: '', calls: 0 };
    return await runOn(slot, body, api, limits, signal);
  } finally {
    release(slot, caller);
  }
}

/**
 * Runs `wait` (a question to a person) while the program's place in the pool is lent: the
 * program's worker only waits meanwhile, so another may start. At most MAX_PERSON_WAITS at once.
 */
export async function lendingWorker<T>(wait: () => Promise<T>): Promise<T> {
  if (lent >= MAX_PERSON_WAITS) {
    throw new Error(`${MAX_PERSON_WAITS} programs are already waiting for a person's answer, the most this server allows at once`);
  }
  lent++;
  pump();
  try {
    return await wait();
  } finally {
    lent--;
  }
}

/** The caller's turn at once when there is room and nobody waits; else its place in the queue. */
async function waitForTurn(caller: string, signal: AbortSignal): Promise<'turn' | 'aborted' | { refused: string }> {
  if (signal.aborted) return 'aborted';
  if (queue.waiting === 0 && running < capacity()) {
    count(caller, 1);
    return 'turn';
  }
  return queue.enter(caller, signal);
}

/** Gives freed places to waiting programs, counted as running from the moment they are chosen. */
function pump(): void {
  while (running < capacity()) {
    const chosen = queue.next(runningOf);
    if (chosen === undefined) return;
    count(chosen, 1);
  }
}

function count(caller: string, delta: number): void {
  running += delta;
  const now = runningOf(caller) + delta;
  if (now > 0) runningBy.set(caller, now);
  else runningBy.delete(caller);
}

/** An idle worker, or a new one: there is always room for a program whose turn it is. */
function claimSlot(): Slot {
  const idle = slots.find((slot) => !slot.busy);
  if (idle !== undefined) {
    idle.busy = true;
    return idle;
  }
  const slot = { worker: newWorker(), busy: true };
  slots.push(slot);
  return slot;
}

/** Frees a program's place; a worker started beside the pool for a lent place ends once it is not needed. */
function release(slot: Slot, caller: string): void {
  slot.busy = false;
  count(caller, -1);
  if (slots.length > capacity()) {
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
  }
  pump();
}

function newWorker(): Worker {
  const worker = new Worker(new URL(import.meta.url));
  // An idle pool must not keep the process alive.
  worker.unref();
  return worker;
}

/** Ends a worker (overrun, cancelled, failed) and puts a new one in its place. */
function replace(slot: Slot): void {
  void slot.worker.terminate();
  slot.worker = newWorker();
}

function runOn(slot: Slot, body: string, api: SandboxApi, limits: SandboxLimits, signal: AbortSignal): Promise<SandboxOutcome> {
  const { worker } = slot;
  let calls = 0;
  let waitingOnApi = 0;
  let waitedMs = 0;
  let since = Date.now();
  let finished = false;
  const started = Date.now();
  return new Promise((resolve) => {
    const finish = (outcome: SandboxOutcome) => {
      if (finished) return;
      finished = true;
      clearInterval(watch);
      worker.off('message', onMessage);
      worker.off('error', onError);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const fail = (error: string) => finish({ ok: false, error, logs: '', calls });
    // The program's own time: wall time less the time an api call was pending.
    const ownTime = () => Date.now() - started - waitedMs - (waitingOnApi > 0 ? Date.now() - since : 0);
    const watch = setInterval(() => {
      if (ownTime() <= limits.timeMs + OVERRUN_GRACE_MS) return;
      replace(slot);
      fail(`the program ran longer than its time limit of ${limits.timeMs} ms and was stopped`);
    }, WATCH_INTERVAL_MS);
    // A computing worker reads no message: the cancel ends it, as the watchdog does.
    const onAbort = () => {
      replace(slot);
      fail(ABORTED);
    };
    const onError = (error: Error) => {
      replace(slot);
      fail(`the sandbox failed: ${firstLine(error)}`);
    };
    const onMessage = (message: FromWorker) => {
      if (message.kind === 'done') return finish(message.outcome);
      calls += 1;
      if (waitingOnApi++ === 0) since = Date.now();
      void answerOf(api, message, signal).then((answer) => {
        if (--waitingOnApi === 0) waitedMs += Date.now() - since;
        if (!finished) worker.postMessage(answer satisfies ToWorker);
      });
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ kind: 'run', body, names: api.names, limits } satisfies ToWorker);
  });
}

/** The answer to one api call of the program: its value as JSON, or the error the program sees; never a throw. */
async function answerOf(api: SandboxApi, call: Extract<FromWorker, { kind: 'call' }>, signal: AbortSignal): Promise<ToWorker> {
  let value: unknown;
  try {
    value = await api.call(call.name, JSON.parse(call.json) as unknown, signal);
  } catch (error) {
    return { kind: 'answer', id: call.id, ok: false, message: (error as Error)?.message ?? String(error) };
  }
  try {
    return { kind: 'answer', id: call.id, ok: true, json: JSON.stringify(value ?? null) ?? 'null' };
  } catch (error) {
    return {
      kind: 'answer',
      id: call.id,
      ok: false,
      message: `api.${call.name}'s answer could not be passed to the program: ${firstLine(error)}`,
    };
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? '';
}
