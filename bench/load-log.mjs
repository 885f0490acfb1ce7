// `node --import <this file> dist/main.js …` (bench/features.ts): writes the URL of every
// module the process loads through the ES module loader, one a line, to $MODULE_LOG, as it is
// loaded, so that what a server has loaded by a given moment can be read from outside. Node runs
// module hooks on a thread of their own, which imports this file again: there it is the hook.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

/** Module hook (node:module register): records each file module, then loads it as Node would. */
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${url}\n`);
  return nextLoad(url, context);
}
