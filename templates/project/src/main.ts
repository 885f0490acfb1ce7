#!/usr/bin/env node
import { run } from '../lib/runtime/main.js';
import { hooks } from './hooks.js';

await run(new URL('../tools.json', import.meta.url), hooks);
