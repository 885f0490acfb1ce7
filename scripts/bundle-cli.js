// Build step: the CLI as one file, dist/bundle/cli.mjs, and the compiler's worker as another,
// dist/bundle/types-worker.mjs (esbuild), so that a generation loads one module instead of the
// ~70 of dist/src and the packages they import. bin/mcp-gen.js runs the bundle; dist/src stays,
// for the runtime every project gets (src/emit/project.ts) and for `mcp-gen serve`, which
// loads the runtime and is left out of the bundle (src/serve.ts, imported from dist/src).
// The bundles sit two folders below the package, as dist/src's modules do, so that their
// lookups of the package's files (templates/, package.json, dist/src/runtime) find them alike.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Where each source module's `require = createRequire(import.meta.url)` is declared. */
const LAZY_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;
/** ts-morph's compiler (9 MB) stays its own file: the worker loads it with V8's code cache. */
const COMPILER_LOADER = join('src', 'emit', 'compiler.ts');

/**
 * The generator loads some packages lazily with a `require` of its own, so that the unbundled
 * CLI reads them only when a spec needs them (swagger-parser, js-yaml, Handlebars). Without that
 * declaration `require` is the bundle's: the package is bundled and still evaluated at first use.
 */
const lazyRequiresBundled = {
  name: 'lazy-requires-bundled',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\/serve\.js$/ }, () => ({ path: '../src/serve.js', external: true }));
    // the templates as precompiled by scripts/precompile-templates.js, which runs first
    bundle.onResolve({ filter: /\/templates\.cjs$/ }, () => ({ path: join(REPO, 'dist/templates.cjs') }));
    bundle.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      if (args.path.endsWith(COMPILER_LOADER)) return undefined;
      return { contents: readFileSync(args.path, 'utf8').replace(LAZY_REQUIRE, ''), loader: 'ts' };
    });
  },
};

await build({
  absWorkingDir: REPO,
  entryPoints: { cli: 'src/cli.ts', 'types-worker': 'src/emit/types-worker.ts' },
  outdir: 'dist/bundle',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['ts-morph'],
  // for profiles (bench/gen.ts names each function's source file); package.json does not publish it
  sourcemap: 'external',
  // CommonJS packages inside an ES module bundle require Node's built-ins through this
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
  plugins: [lazyRequiresBundled],
  logLevel: 'warning',
});
