// The generator's two halves alone, to see which holds its peak memory (bench/rss.ts):
//   node bench/generator-parts.mjs model <spec>        parse and model the spec (the main thread's work before emitting)
//   node bench/generator-parts.mjs types <tools.json>  load the compiler and print tool-types.ts from a generated table (the worker's, without its young-generation limit)
import { readFileSync } from 'node:fs';

const [part, file] = process.argv.slice(2);
if (part === 'model') {
  const { modelFromOptions } = await import('../dist/src/generate.js');
  await modelFromOptions({ spec: file }, 'generate');
} else if (part === 'types') {
  const { emitToolTypes, printedPart } = await import('../dist/src/emit/types.js');
  // what the worker is sent (src/emit/types-worker.ts), not the whole table
  await emitToolTypes(printedPart(JSON.parse(readFileSync(file, 'utf8'))));
} else {
  process.stderr.write('usage: node bench/generator-parts.mjs model <spec> | types <tools.json>\n');
  process.exit(2);
}
