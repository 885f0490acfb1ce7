// Code mode's programs where there are no worker threads (workerd): each runs in the isolate
// itself, with the limits of sandbox.ts. Nothing can end a program from outside here, so its CPU
// limit rests on QuickJS's interrupt handler alone: a program cannot hold the isolate past it,
// except inside one call the interrupt handler is not polled in (a built-in over a large value,
// an api call's JSON). The handler counts its own polls as well as the clock, since deployed
// Workers advance the clock only on I/O; beyond both, the platform's CPU limit ends the request.
//
// One program at a time per isolate, others waiting their turn fairly by caller: a run holds its
// own WebAssembly memory (16 MiB and the memory limit) within the isolate's 128 MB, also while it
// waits for the API or for a person.

import { runProgram, type SandboxApi, type SandboxLimits, type SandboxOutcome } from './sandbox.js';
import { FairQueue } from './sandbox-queue.js';

/** Programs waiting for their turn: per caller, and in all. */
const QUEUE_LIMITS = { perCaller: 4, total: 32 };
const ABORTED = 'the run was aborted';

const queue = new FairQueue(QUEUE_LIMITS);
let running = false;

/** Runs a program in this isolate, after the one running (if any): the outcome runProgram gives. */
export async function runInProcess(
  body: string,
  api: SandboxApi,
  limits: SandboxLimits,
  signal: AbortSignal,
  caller = '',
): Promise<SandboxOutcome> {
  if (running || queue.waiting > 0) {
    const turn = queue.enter(caller, signal);
    if ('refused' in turn) return { ok: false, error: turn.refused, logs: '', calls: 0 };
    if ((await turn) === 'aborted') return { ok: false, error: ABORTED, logs: '', calls: 0 };
  }
  running = true;
  try {
    return await runProgram(body, api, limits, signal, { countSteps: true });
  } finally {
    running = false;
    // one at a time: whoever is chosen runs next, so none is running meanwhile
    if (queue.next(() => 0) !== undefined) running = true;
  }
}

/** A program waiting for a person keeps its place: its memory is held meanwhile. */
export function lendingPlace<T>(wait: () => Promise<T>): Promise<T> {
  return wait();
}
