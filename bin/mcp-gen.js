#!/usr/bin/env node
// Node 22+ keeps the compiled code of mcp-gen's modules between runs (src/emit/compiler.ts).
const { useNodeCompileCache } = await import('../dist/src/emit/compiler.js');
useNodeCompileCache();
// A generation prints src/tool-types.ts with the TypeScript compiler: start loading it in its
// worker now, beside the CLI's own modules (src/emit/types-worker.ts).
const argv = process.argv.slice(2);
const informational = ['-h', '--help', '-v', '--version'];
if (argv[0] !== 'diff' && argv[0] !== 'serve' && !argv.some((arg) => informational.includes(arg))) {
  const { prestartToolTypesPrinter } = await import('../dist/src/emit/types-worker.js');
  prestartToolTypesPrinter();
}
await import('../dist/src/cli.js');
