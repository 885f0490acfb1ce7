#!/usr/bin/env node
// The CLI as one bundled file (scripts/bundle-cli.js, run by `npm run build`): a generation loads
// it and, in a worker, the TypeScript compiler's bundle, instead of ~70 modules. `mcp-gen serve`
// runs the runtime, which is not bundled: it runs from tsc's build as a whole, so that the
// errors its modules throw are the classes the CLI tells apart.
const serve = process.argv[2] === 'serve';
await import(serve ? '../dist/src/cli.js' : '../dist/bundle/cli.mjs');
