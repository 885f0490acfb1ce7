// npm run build, after tsc has type-checked src/: bundles the server into dist/ with esbuild, so
// that the published package needs no node_modules. dist/main.js holds what every start needs;
// what a feature needs only when it is on (OpenTelemetry, Redis, code mode's QuickJS, OAuth,
// legacy SSE, ...) is behind an import() in the runtime and lands in its own file under
// dist/chunks/, read on first use only. Source maps keep stack traces on src/ and lib/ lines.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  plugins: [lazySdkValidator(), oneZod()],
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

/**
 * The SDK's Node shims construct its default JSON Schema validator, ajv (bundled in the SDK), and
 * importing them evaluates all of ajv and ajv-formats: ~10 ms of every start, for a validator the
 * server uses only to check an elicitation's answer. This stands in for them: the same exports,
 * with ajv's code evaluated on the validator's first use (esbuild wraps a require()d module so
 * that it runs only when required).
 */
function lazySdkValidator() {
  const shims = `
import process from 'node:process';
let Ajv;
export class DefaultJsonSchemaValidator {
  #args;
  #engine;
  constructor(...args) {
    this.#args = args;
  }
  getValidator(schema) {
    Ajv ??= require('@modelcontextprotocol/server/validators/ajv').AjvJsonSchemaValidator;
    this.#engine ??= new Ajv(...this.#args);
    return this.#engine.getValidator(schema);
  }
}
export { process };
`;
  return {
    name: 'lazy-sdk-validator',
    setup(build) {
      build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: 'sdk-shims', namespace: 'mcp-gen' }));
      build.onLoad({ filter: /^sdk-shims$/, namespace: 'mcp-gen' }, () => ({ contents: shims, loader: 'js', resolveDir: root }));
    },
  };
}

/**
 * The SDK's packages each install their own copy of zod when the project's top-level zod is
 * another major version: bundled as they are, both copies load at every start (~100 kB of code).
 * Every import of zod resolves to the copy beside @modelcontextprotocol/server when it is the
 * same version as the one the importer would get; a different version stays its own.
 */
function oneZod() {
  const home = createRequire(join(root, 'package.json')).resolve('@modelcontextprotocol/server');
  const versions = new Map();
  /** The version of the zod package a resolved file belongs to. */
  const versionOf = (file) => {
    const path = file.replaceAll('\\', '/'); // esbuild gives Windows paths with backslashes
    const at = path.lastIndexOf('/node_modules/zod/');
    if (at < 0) return undefined;
    const manifest = path.slice(0, at) + '/node_modules/zod/package.json';
    if (!versions.has(manifest)) versions.set(manifest, JSON.parse(readFileSync(manifest, 'utf8')).version);
    return versions.get(manifest);
  };
  return {
    name: 'one-zod',
    setup(build) {
      build.onResolve({ filter: /^zod(\/.*)?$/ }, async ({ path, kind, resolveDir, pluginData }) => {
        if (pluginData === 'one-zod') return undefined;
        const own = await build.resolve(path, { kind, resolveDir, pluginData: 'one-zod' });
        const shared = await build.resolve(path, { kind, resolveDir: join(home, '..'), pluginData: 'one-zod' });
        const version = shared.errors.length === 0 ? versionOf(shared.path) : undefined;
        return version !== undefined && version === versionOf(own.path) ? shared : own;
      });
    },
  };
}
