// Build step: the CLI as one file, dist/bundle/cli.mjs, and the compiler's worker as another,
// dist/bundle/types-worker.mjs (esbuild), so that a generation loads one module instead of the
// ~70 of dist/src and the packages they import. bin/mcp-gen.js runs the bundle; dist/src stays,
// for the runtime every project gets (src/emit/project.ts) and for `mcp-gen serve`, which
// bin/mcp-gen.js runs from dist/src/cli.js as a whole: it loads the runtime, left out of the
// bundle, whose modules must throw the very error classes the CLI tells apart.
// The bundles sit two folders below the package, as dist/src's modules do, so that their
// lookups of the package's files (templates/, package.json, dist/src/runtime) find them alike.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Where a source module declares `require = createRequire(import.meta.url)`. */
const LAZY_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;
/** The module whose lazy requires every generation makes: Handlebars' runtime and the precompiled templates. */
const EVERY_RUN = join('src', 'emit', 'project.ts');

/**
 * The generator loads some packages lazily with a `require` of its own, so that a run reads them
 * only when it needs them. Those only some specs need (js-yaml, swagger-parser for external
 * refs, ajv for OpenAPI 3.2; ts-morph's compiler, in the worker) stay so, out of the bundle.
 * Those every generation needs are bundled: without its declaration, `require` is the bundle's,
 * and the module is still evaluated at first use.
 */
const everyRunRequiresBundled = {
  name: 'every-run-requires-bundled',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\/serve\.js$/ }, () => ({ path: '../src/serve.js', external: true }));
    // the templates as precompiled by scripts/precompile-templates.js, which runs first
    bundle.onResolve({ filter: /\/templates\.cjs$/ }, () => ({ path: join(REPO, 'dist/templates.cjs') }));
    bundle.onLoad({ filter: /[\\/]src[\\/]emit[\\/]project\.ts$/ }, (args) => {
      if (!args.path.endsWith(EVERY_RUN)) return undefined;
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
  plugins: [everyRunRequiresBundled],
  logLevel: 'warning',
});
