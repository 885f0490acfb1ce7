#!/usr/bin/env node
// The CLI as one bundled file (scripts/bundle-cli.js, run by `npm run build`): a generation loads
// it and, in a worker, the TypeScript compiler's bundle, instead of ~70 modules.
await import('../dist/bundle/cli.mjs');
