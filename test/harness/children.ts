// The processes an end-to-end test file starts: stopped together when the file ends, whatever
// happened, because a server left running keeps its port and keeps vitest from exiting.
import type { ChildProcess } from 'node:child_process';
import { stopChild } from '../../harness/process.js';

/** How and when a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Date.now() when the exit was seen. */
  at: number;
}

/** Resolves when `child` has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode, at: Date.now() });
    else child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
}

/** The children of one test file, each killed by stopAll() in its afterAll. */
export class Children {
  readonly #started: { child: ChildProcess; stop?: () => Promise<void> }[] = [];

  /**
   * Keeps `child` for stopAll() and returns it. `stop` replaces the SIGKILL for a child that
   * must be stopped its own way (nginx: its whole process group, workers included).
   */
  track<T extends ChildProcess>(child: T, stop?: () => Promise<void>): T {
    this.#started.push({ child, ...(stop !== undefined ? { stop } : {}) });
    return child;
  }

  /** SIGKILL: what is still running when a file ends has nothing left to finish. */
  async stopAll(): Promise<void> {
    await Promise.all(this.#started.map(({ child, stop }) => (stop !== undefined ? stop() : stopChild(child, 'SIGKILL'))));
  }
}
