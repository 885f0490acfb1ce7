#!/usr/bin/env node
import { mapStackTraces, run } from '../lib/runtime/main.js';
import { hooks } from './hooks.js';

// dist/main.js is a bundle (scripts/build.mjs): stack traces name src/ and lib/ lines through its source maps
mapStackTraces(new URL('.', import.meta.url));
await run(new URL('../tools.json', import.meta.url), hooks);
