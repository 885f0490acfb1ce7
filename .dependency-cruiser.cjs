// The two halves of mcp-gen and their contract (docs/architecture.md):
//   src/runtime/   the generated server's code, shipped prebuilt into every project (lib/), in rooms by
//                  concern; the rooms of features loaded when used are entered only by import()
//   src/contract/  what the generator and the runtime share, also shipped in every project (lib/)
//   src/**         everything else is the generator
// `npm run boundaries` fails on any import cycle and on any import across the boundary that
// does not go through the contract.
const GENERATOR = '^src/(?!runtime/|contract/)';
/** What a generated project installs (templates/project/package.json.hbs): all the server may import. */
const SERVER_PACKAGES =
  '(@cfworker/json-schema|@modelcontextprotocol/(server|node|server-legacy)|@opentelemetry/(api|context-async-hooks|core|exporter-trace-otlp-http|exporter-trace-otlp-proto|resources|sdk-trace-base)|ajv|ajv-formats|jose|quickjs-emscripten|re2js|redis)/';

/**
 * The runtime's rooms whose code loads only when a table or a setting uses them: from anywhere
 * else they are reached through import() (or for their types), never by a static import that
 * would load them with every server.
 */
const LAZY_ROOMS = ['confirm', 'long-running', 'code-mode', 'oauth', 'apps'];

/**
 * The only server modules that may import a Node built-in (node:*), each loaded only where the
 * platform runs it (issue #40: the core that Workers, Deno, Vercel and Lambda serve through
 * web/web-server.ts imports none). Every other module of src/runtime/ and src/contract/ reaches
 * these by import() alone, so that a platform that does not choose them never loads them.
 */
const NODE_ONLY = [
  // The Node server's start (node:fs, node:url) and its command line (node:util's parseArgs).
  'src/runtime/main\\.ts',
  'src/runtime/start/command-line\\.ts',
  // Stack traces mapped through the bundle's source maps (node:fs, node:module's SourceMap), from main.ts.
  'src/runtime/start/source-maps\\.ts',
  // The node:http listener, loaded by main.ts for --transport http and sse.
  'src/runtime/http/listener\\.ts',
  // The upstream client over node:http/https/zlib: upstream.ts loads it where Platform.upstream is 'node-http'.
  'src/runtime/call/send/node-upstream\\.ts',
  // DNS screening of internal addresses (node:dns, node:net): loaded where a request must reach
  // public addresses only; a platform's fetch cannot be screened (Platform.screensAddresses).
  'src/contract/addresses\\.ts',
  // AsyncLocalStorage (node:async_hooks), the call's scope: observe.ts loads it where Platform.callScopes says.
  'src/runtime/observe/async-scopes\\.ts',
  // Code mode's worker threads (Platform.sandbox 'worker-threads'), and QuickJS's file read from
  // the package where the platform's entry hands over no compiled module.
  'src/runtime/code-mode/sandbox-worker\\.ts',
  'src/runtime/code-mode/engine-file\\.ts',
  // The token store in a file (node:fs), and client ID metadata documents fetched with the address
  // check made as the connection is (node:https): the platforms use their KV stores and fetch.
  'src/runtime/oauth/authorization-server/token-store-file\\.ts',
  'src/runtime/oauth/authorization-server/client-documents-node\\.ts',
];
const NODE_ONLY_PATH = `^(${NODE_ONLY.join('|')})`;

module.exports = {
  forbidden: [
    ...LAZY_ROOMS.map((room) => ({
      name: `${room}-only-through-import`,
      severity: 'error',
      comment: `src/runtime/${room}/ loads only when used: reach it with import() (a type import is fine), or move what is always needed out of it.`,
      from: { path: '^src/', pathNot: `^src/runtime/${room}/` },
      to: { path: `^src/runtime/${room}/`, dependencyTypesNot: ['dynamic-import', 'type-only'] },
    })),
    {
      name: 'telemetry-only-through-import',
      severity: 'error',
      comment: 'OpenTelemetry loads only when an OTLP endpoint is set: observe.ts reaches telemetry.ts with import().',
      from: { path: '^src/', pathNot: '^src/runtime/observe/telemetry\\.ts$' },
      to: { path: '^src/runtime/observe/telemetry\\.ts$', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'platform-core-imports-no-node-builtin',
      severity: 'error',
      comment:
        'workerd (without nodejs_compat) and the other platforms serve this code: a Node built-in goes in a module of NODE_ONLY, loaded by import() where the platform chooses it, or is replaced by a web-standard API (Web Crypto, fetch, TextEncoder).',
      from: { path: '^src/(runtime|contract)/', pathNot: NODE_ONLY_PATH },
      to: { dependencyTypes: ['core'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'node-only-modules-only-through-import',
      severity: 'error',
      comment: 'A module of NODE_ONLY loads only where the platform chooses it: reach it with import() (a type import is fine).',
      from: { path: '^src/(runtime|contract)/', pathNot: NODE_ONLY_PATH },
      to: { path: NODE_ONLY_PATH, dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'] },
    },
    {
      name: 'web-core-loads-no-node-only-module',
      severity: 'error',
      comment:
        'The web core (src/runtime/web/) is the request path of every platform, Node included: it may not load a NODE_ONLY module even by import(); Node-only behaviour stays in the adapter (src/runtime/http/listener.ts, node-web.ts) and reaches the core through WebCoreInput.',
      from: { path: '^src/runtime/web/' },
      to: { path: NODE_ONLY_PATH, dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes load order matter and hides which module owns a concept.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-is-a-leaf',
      severity: 'error',
      comment: 'The contract is shared by both halves, so it may depend on neither.',
      from: { path: '^src/contract/' },
      to: { path: '^src/(?!contract/)' },
    },
    {
      name: 'runtime-stays-out-of-the-generator',
      severity: 'error',
      comment: 'The runtime ships without the generator: it may import only itself and the contract.',
      from: { path: '^src/runtime/' },
      to: { path: GENERATOR },
    },
    {
      name: 'generator-reaches-the-runtime-only-through-the-contract',
      severity: 'error',
      comment: 'Only `mcp-gen serve` runs the runtime in process (src/serve.ts); all else shares the contract.',
      from: { path: GENERATOR, pathNot: '^src/serve\\.ts$' },
      to: { path: '^src/runtime/' },
    },
    {
      name: 'server-code-uses-only-the-projects-packages',
      severity: 'error',
      comment:
        'A generated project installs only the SDK, OpenTelemetry, @cfworker/json-schema, ajv, jose, quickjs-emscripten, re2js and redis: anything else would not resolve there.',
      // The MCP Apps views' script runs in the host's frame, bundled at build time (scripts/build-app-views.js).
      from: { path: '^src/(runtime|contract)/', pathNot: '^src/runtime/apps/views/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: `node_modules/${SERVER_PACKAGES}`,
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
