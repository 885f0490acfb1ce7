// Where a generated server's start-up time goes: each probe does, in a fresh process, a
// growing part of what the server does before it can answer `initialize`, and prints its
// cost in milliseconds; differences between probes are the marginal cost of each step.
// The bench copies this file into a generated project (to resolve its packages).
//   node start-probe.mjs none|sdk|sdk+ajv|runtime|runtime+table
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const probe = process.argv[2];
const started = performance.now();
if (probe === 'sdk' || probe === 'sdk+ajv') {
  await import('@modelcontextprotocol/server');
  await import('@modelcontextprotocol/server/stdio');
  if (probe === 'sdk+ajv') {
    await import('ajv/dist/2020.js');
    await import('ajv-formats');
  }
} else if (probe === 'runtime' || probe === 'runtime+table') {
  // every module the generated main.js loads for stdio, without starting to serve
  await import('./lib/runtime/main.js');
  await import('./lib/runtime/transports/stdio.js');
  if (probe === 'runtime+table') JSON.parse(readFileSync(new URL('./tools.json', import.meta.url), 'utf8'));
} else if (probe !== 'none') {
  process.stderr.write(`unknown probe ${probe}\n`);
  process.exit(2);
}
process.stdout.write(`${performance.now() - started}\n`);
