// What importing some modules costs once their own imports are loaded (bench/features.ts):
// `node import-probe.mjs '<json>'`, where the JSON is { preload: [...], timed: [...] }, each a
// bare specifier or an absolute path. Copied into a generated project, so that bare specifiers
// resolve from its node_modules. Prints the milliseconds the timed imports took in this fresh
// process: one module importing them all, so that they load as one graph, as a server's static
// imports do (an await import() each would add a graph's overhead per module).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const { preload, timed } = JSON.parse(process.argv[2] ?? '{}');
const specifier = (s) => (s.startsWith('/') ? pathToFileURL(s).href : s);
for (const s of preload) await import(specifier(s));
const entry = timed.map((s) => `import ${JSON.stringify(specifier(s))};`).join('\n');
const t0 = performance.now();
await import(`data:text/javascript,${encodeURIComponent(entry)}`);
process.stdout.write(`${performance.now() - t0}\n`);
