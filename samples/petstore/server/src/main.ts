#!/usr/bin/env node
import { run } from '../lib/runtime/main.js';
import { hooks } from './hooks.js';

// dist/main.js is a bundle (scripts/build.mjs): stack traces name src/ and lib/ lines through its source maps
process.setSourceMapsEnabled(true);
await run(new URL('../tools.json', import.meta.url), hooks);
