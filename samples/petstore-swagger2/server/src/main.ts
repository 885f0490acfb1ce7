#!/usr/bin/env node
import module from 'node:module';

// V8's code cache (Node 22.1+; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a later start reads
// the bundle's compiled code instead of compiling it again. Where the cache folder cannot be
// written, the server starts without it. The server's modules are imported below, once it is on.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { mapStackTraces, run } = await import('../lib/runtime/main.js');
const { hooks } = await import('./hooks.js');

// dist/main.js is a bundle (scripts/build.mjs): stack traces name src/ and lib/ lines through its source maps
mapStackTraces(new URL('.', import.meta.url));
await run(new URL('../tools.json', import.meta.url), hooks);
