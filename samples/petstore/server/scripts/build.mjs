// npm run build, after tsc has type-checked src/: bundles the server into dist/ with esbuild, so
// that the published package needs no node_modules. dist/main.js holds what every start needs;
// what a feature needs only when it is on (OpenTelemetry, Redis, code mode's QuickJS, OAuth,
// legacy SSE, ...) is behind an import() in the runtime and lands in its own file under
// dist/chunks/, read on first use only. Source maps keep stack traces on src/ and lib/ lines.
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist');
const chunks = join(out, 'chunks');

// Some dependencies are CommonJS and call require() for Node's own modules: an ES module has none,
// so each output file makes one. The binding's name is unusual so that esbuild, which hoists its
// own createRequire import beside it, never declares the same name twice.
const banner = "import { createRequire as __mcpGenCreateRequire } from 'node:module'; const require = __mcpGenCreateRequire(import.meta.url);";

rmSync(out, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  // the Vercel function (api/mcp.ts, --target vercel) imports your hooks as built: dist/hooks.js
  entryPoints: existsSync(join(root, 'api/mcp.ts')) ? { main: 'src/main.ts', hooks: 'src/hooks.ts' } : { main: 'src/main.ts' },
  outdir: out,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  sourcesContent: false,
  // minified for the install's size: the source maps give stack traces their names and lines back
  minify: true,
  keepNames: true,
  banner: { js: banner },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
copyQuickJsEngine();
// which source modules each output file holds, for tools that look at what a start loads: not published
writeFileSync(join(root, 'bundle-meta.json'), JSON.stringify(metafile));

/**
 * QuickJS's WebAssembly, beside the chunk that loads it: the engine finds its file relative to its
 * own module (new URL('emscripten-module.wasm', import.meta.url)), which is now a chunk.
 */
function copyQuickJsEngine() {
  const fromProject = createRequire(join(root, 'package.json'));
  const wasm = createRequire(fromProject.resolve('quickjs-emscripten')).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  mkdirSync(chunks, { recursive: true });
  copyFileSync(wasm, join(chunks, 'emscripten-module.wasm'));
}
