// A child process of scripts/corpus.ts: checks the specs it is sent, one at a time, over the
// IPC channel. The parent kills it when a spec takes too long or its memory grows too much,
// and starts a new one; so a hang or a crash costs one spec, not the run.
//
//   parent → worker  { id, spec, out }
//   worker → parent  { id, outcome, bundles, rssMb }   then waits for the next spec
import { rmSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { checkSpec, describeError, type Outcome } from '../harness/corpus-check.js';

export interface Job {
  id: number;
  spec: string;
  /** Output folder for this spec only; the worker deletes it when done. */
  out: string;
}

export interface Report {
  id: number;
  outcome: Outcome;
  /** Whether swagger-parser can bundle the spec at all (the pass rate is over these). */
  bundles: boolean;
  /** RSS of this worker after the spec, MB (the parent restarts it above a limit). */
  rssMb: number;
}

export type WorkerMessage = Report | { ready: true } | { fatal: string; id?: number };

const send = (message: WorkerMessage) => new Promise<void>((done) => process.send?.(message, undefined, {}, () => done()));
const gc = (globalThis as { gc?: () => void }).gc;

let current: Job | undefined;

/** Can swagger-parser read the spec at all (with external file refs, as mcp-gen does)? */
async function bundles(spec: string): Promise<boolean> {
  try {
    await new SwaggerParser().bundle(spec, {
      resolve: { external: true, http: false },
      validate: { schema: false, spec: false },
    } as SwaggerParser.Options);
    return true;
  } catch {
    return false;
  }
}

async function run(job: Job): Promise<void> {
  current = job;
  gc?.(); // so that the RSS measured for this spec owes less to the previous one
  let outcome: Outcome;
  try {
    outcome = await checkSpec(job.spec, job.out);
  } catch (error) {
    outcome = { status: 'crash', message: `checkSpec threw: ${describeError(error)}`, ms: 0 };
  }
  rmSync(job.out, { recursive: true, force: true });
  const bundled = outcome.status === 'ok' || (await bundles(job.spec));
  current = undefined;
  await send({ id: job.id, outcome, bundles: bundled, rssMb: Math.round(process.memoryUsage().rss / 1024 / 1024) });
}

// Something left running by a spec (a timer, a stream) failed after its check returned, or
// during it: report it against the spec in hand and let the parent start a fresh worker.
const fatal = (error: unknown) => {
  void send({ fatal: describeError(error), ...(current ? { id: current.id } : {}) }).finally(() => process.exit(70));
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

let queue = Promise.resolve();
process.on('message', (job: Job) => {
  queue = queue.then(() => run(job));
});
process.on('disconnect', () => process.exit(0));
void send({ ready: true });
