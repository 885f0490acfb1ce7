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
const LAZY_ROOMS = ['confirm', 'long-running', 'code-mode', 'oauth'];

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
      from: { path: '^src/(runtime|contract)/' },
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
