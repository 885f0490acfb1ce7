// The compiler is loaded in a worker thread, started before the spec is read: loading it
// (ts-morph bundles TypeScript) took about as long as parsing and modelling a large spec, and on
// the main thread it came on top of them. Here it overlaps them on another core, and the
// per-spec TypeScript still needs it: its strings are quoted by the compiler's printer (types.ts).

import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { ToolTable } from '../contract/table.js';
import { jsonLengthWithin } from './json-length.js';
import { compiler } from './compiler.js';
import { emitToolTypes, printedPart, printedPartMessage, printedPartOf, type TypesInput } from './types.js';

/**
 * A young generation of 12 MB instead of V8's 48: what printing allocates is short-lived (the
 * pieces of each tool's text), and 12 MB holds it (Kubernetes' and Stripe's peaks are no lower
 * with 48).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 12 };

/**
 * The length of the JSON text of what printing reads of the table (printedPart) above which it
 * is printed in this thread rather than handed to the worker: the copy costs its size again in
 * both threads (Microsoft Graph v1.0, 42 MB of table: ~30 MB more peak), while a table of many
 * small tools (10,000 operations: 4.4 MB of text, from a table of 11 MB) gains a second of
 * printing beside the model. About what a table of 24 MB holds (20,000 operations: 8.9 MB).
 */
const MAX_HANDED_OVER_TEXT = 9 * 1024 * 1024;

export interface ToolTypesPrinter {
  print(table: ToolTable): Promise<string>;
  /** Stops the worker when no table comes (the spec could not be modelled). */
  cancel(): void;
}

let prestarted: Worker | undefined;

/**
 * Starts the worker before the pipeline's modules load (cli.ts, for a generation), so that the
 * compiler's load overlaps theirs; the next startToolTypesPrinter() takes it over.
 */
export function prestartToolTypesPrinter(): void {
  prestarted ??= newWorker();
}

function newWorker(): Worker | undefined {
  const file = workerFile();
  const worker = file ? new Worker(file, { resourceLimits: WORKER_LIMITS }) : undefined;
  // It must not keep the process alive while the main thread reports a spec error.
  worker?.unref();
  worker?.on('error', () => undefined); // print() reports it; a cancelled worker's is moot
  return worker;
}

/**
 * The worker's module: this one as tsc built it, or beside the bundled CLI (scripts/bundle-cli.js)
 * the worker's own bundle, which holds only this module and what it imports. None from source.
 */
function workerFile(): URL | undefined {
  if (import.meta.url.endsWith('.mjs')) return new URL('./types-worker.mjs', import.meta.url);
  return import.meta.url.endsWith('.js') ? new URL(import.meta.url) : undefined;
}

/**
 * Starts loading the compiler at once, or takes over the worker already loading it. From the
 * built CLI it runs in a worker; from source (tests under vitest, which Node's worker cannot
 * load as .ts) in this thread.
 */
export function startToolTypesPrinter(): ToolTypesPrinter {
  const worker = prestarted ?? newWorker();
  prestarted = undefined;
  if (!worker) return { print: (table) => emitToolTypes(printedPart(table)), cancel: () => undefined };
  return {
    print(table) {
      const input = printedPartMessage(table);
      if (typeof input === 'string' ? input.length > MAX_HANDED_OVER_TEXT : !jsonLengthWithin(input, MAX_HANDED_OVER_TEXT)) {
        void worker.terminate();
        return emitToolTypes(table);
      }
      worker.ref();
      return new Promise<string>((resolve, reject) => {
        worker.once('message', (message: { text?: string; error?: string }) => {
          void worker.terminate();
          if (message.text !== undefined) resolve(message.text);
          else reject(new Error(`printing src/tool-types.ts failed: ${message.error ?? 'no answer'}`));
        });
        worker.once('error', reject);
        worker.once('exit', () => reject(new Error('printing src/tool-types.ts failed: the worker stopped')));
        worker.postMessage(input);
      });
    },
    cancel() {
      void worker.terminate();
    },
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // Load the compiler now, before the table comes (emitToolTypes then finds it loaded).
  compiler();
  port.once('message', (input: TypesInput | string) => {
    emitToolTypes(printedPartOf(input)).then(
      (text) => port.postMessage({ text }),
      (error: unknown) => port.postMessage({ error: (error as Error)?.message ?? String(error) }),
    );
  });
}
