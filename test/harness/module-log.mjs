// `node --import <this file> …`: appends the path of every JavaScript file the process loads
// to $MODULE_LOG, one a line, in every thread: ES modules through a module hook (registered by
// each thread, as workers run --import too), CommonJS ones as Node compiles them. Unlike
// bench/load-log.mjs, a worker's modules count as well: a generation's compiler worker.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';

register(import.meta.url);

const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  appendFileSync(process.env.MODULE_LOG, `${filename}\n`);
  return compile.call(this, content, filename);
};

/** Module hook (node:module register): records each file module, then loads it as Node would. */
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(process.env.MODULE_LOG, `${fileURLToPath(url)}\n`);
  return nextLoad(url, context);
}
