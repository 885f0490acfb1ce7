// Code mode's programs run in worker threads (this file, as the worker and as its pool), so that
// a program computing never holds the server's event loop: other clients are served meanwhile.
// The worker runs sandbox.ts; each api call crosses to the server's thread as a message and its
// answer comes back as JSON. A program whose own time passes the limit by more than the engine's
// interrupt granularity allows (QuickJS checks it only every ~10,000 steps) has its worker ended,
// and the pool starts another. Every step settles the run: whatever throws becomes its error outcome.

import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { runProgram, type SandboxApi, type SandboxLimits, type SandboxOutcome } from './sandbox.js';

/** Programs that may run at once; more wait for a worker. */
const POOL_SIZE = 2;
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
const waiting: (() => void)[] = [];

/** Runs a program in a pooled worker: the same outcome runProgram gives, without blocking this thread. */
export async function runInWorker(body: string, api: SandboxApi, limits: SandboxLimits, signal: AbortSignal): Promise<SandboxOutcome> {
  const slot = await takeSlot();
  try {
    return await runOn(slot, body, api, limits, signal);
  } finally {
    slot.busy = false;
    waiting.shift()?.();
  }
}

async function takeSlot(): Promise<Slot> {
  for (;;) {
    const idle = slots.find((slot) => !slot.busy);
    if (idle !== undefined) {
      idle.busy = true;
      return idle;
    }
    if (slots.length < POOL_SIZE) {
      const slot = { worker: newWorker(), busy: true };
      slots.push(slot);
      return slot;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

function newWorker(): Worker {
  const worker = new Worker(new URL(import.meta.url));
  // An idle pool must not keep the process alive.
  worker.unref();
  return worker;
}

/** Ends a worker that overran and puts a new one in its place. */
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
    const onAbort = () => worker.postMessage({ kind: 'abort' } satisfies ToWorker);
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
