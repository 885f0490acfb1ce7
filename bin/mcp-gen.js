#!/usr/bin/env node
// Node 22+ keeps the compiled code of mcp-gen's modules between runs (src/emit/compiler.ts).
const { useNodeCompileCache } = await import('../dist/src/emit/compiler.js');
useNodeCompileCache();
await import('../dist/src/cli.js');
