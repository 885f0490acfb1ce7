// The shape of bench/.tmp/results.json: what each section measures, what run.ts stores and
// what the report reads. Sections and the report import these types from here only.

export const SECTIONS = [
  'gen',
  'build',
  'start',
  'calls',
  'capacity',
  'list',
  'budget',
  'rss',
  'oauth',
  'tokens',
  'features',
  'platforms',
  'package',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface Results {
  meta: {
    date: string;
    node: string;
    cpu: string;
    cores: number;
    memoryGb: number;
    quick: boolean;
    mcpGen: string;
    omg: string;
    omgDeps: Record<string, string>;
    sdk: string;
    refParser: string;
    /** Warnings the bench process itself received, by kind: the first message and how many. */
    warnings: Record<string, { first: string; count: number }>;
    /** Wall time of each section in the run that measured it, seconds. */
    sectionSeconds: Partial<Record<Section, number>>;
    /** Wall time of the last `npm run bench` invocation, seconds. */
    totalSeconds: number;
    /** Sections measured by the last invocation (the others come from an earlier one). */
    lastRun: Section[];
  };
  gen?: GenResult;
  build?: BuildResult;
  start?: StartResult;
  calls?: CallsResult;
  capacity?: CapacityResult;
  list?: ListResult;
  budget?: BudgetRow[];
  rss?: RssResult;
  oauth?: OAuthResult;
  tokens?: TokensResult;
  features?: FeaturesResult;
  platforms?: PlatformsResult;
  package?: PackageResult;
}

// ── the specs (bench/lib/fixtures.ts)

export interface Spec {
  key: string;
  label: string;
  path: string;
  operations: number;
  bytes: number;
  synthetic: boolean;
}

// ── 1. generation (bench/gen.ts)

/**
 * floor = dereference(); parse = the same process reading and parsing the file only; mcp-gen
 * with the compiler's code cache from its previous runs (src/emit/compiler.ts); mcp-gen-first
 * without it (a machine's first run); mcp-gen-regen into the folder of its previous run (the
 * same tool table: tool-types.ts kept).
 */
export const GEN_VARIANTS = ['floor', 'parse', 'mcp-gen', 'mcp-gen-first', 'mcp-gen-regen', 'omg'] as const;
type GenVariant = (typeof GEN_VARIANTS)[number];

interface GenCell {
  runs: { ms: number; maxRssMb: number }[];
  ms: number;
  maxRssMb: number;
  /** Set when a run failed: its exit code and first error line. */
  error?: string;
}

export interface GenRow {
  spec: Omit<Spec, 'path'>;
  cells: Partial<Record<GenVariant, GenCell>>;
}

/** Where mcp-gen's time goes, from a V8 CPU profile of one run (inclusive time of each part). */
/** The profile part for the worker thread that loads ts-morph and prints src/tool-types.ts (src/emit/types-worker.ts). */
export const WORKER_PART = 'worker thread: ts-morph loaded, tool-types.ts printed (in parallel)';

export interface GenProfile {
  key: string;
  spec: string;
  operations: number;
  totalMs: number;
  parts: Record<string, number>;
  /** mcp-gen's own functions with the most self time. */
  hot: { name: string; ms: number }[];
}

export interface GenResult {
  reps: number;
  rows: GenRow[];
  profiles: GenProfile[];
}

// ── 2. build (bench/build.ts)

export interface BuildCell {
  runs: { ms: number; maxRssMb: number; ok: boolean }[];
  ms: number;
  maxRssMb: number;
  ok: boolean;
  firstError?: string;
}

export interface BuildResult {
  reps: number;
  spec: string;
  mcpGen: BuildCell;
  omg: BuildCell;
}

// ── 3. cold start (bench/start.ts)

export const START_SERVERS = [
  'minimal',
  'mcp-gen petstore',
  'mcp-gen github',
  'mcp-gen github dynamic',
  'omg petstore',
  'omg github',
] as const;
export type StartServer = (typeof START_SERVERS)[number];

interface StartCell {
  runs: number[];
  ms: number;
  tools?: number;
  note?: string;
  error?: string;
}

export interface StartResult {
  reps: number;
  cells: Partial<Record<StartServer, StartCell>>;
  /** In-process milliseconds of growing parts of the GitHub server's start-up (median; see start-probe.mjs). */
  probes: Record<string, number>;
  /** Size of the GitHub server's tools.json, and of the same data as compact JSON. */
  tableBytes: number;
  tableCompactBytes: number;
  /** Whether the built runtime imports ajv at the top of executor.js (i.e. at start-up). */
  ajvStaticImport: boolean;
  /** Spawn → initialize → tools/list → one tools/call reaching the upstream (bench/first-call.ts). */
  firstCall?: FirstCallResult;
}

interface FirstCallCell {
  /** Spawn → the call answered, ms, each run. */
  runs: number[];
  ms: number;
  /** Medians from spawn to initialize answered, and to tools/list answered. */
  initializeMs: number;
  listMs: number;
  tools?: number;
  note?: string;
  error?: string;
}

export interface FirstCallResult {
  reps: number;
  cells: Partial<Record<StartServer, FirstCallCell>>;
}

// ── 4. calls through the SDK client (bench/calls.ts)

export const CALL_MODES = [
  'direct',
  'direct http',
  'mcp-gen stdio',
  'floor stdio',
  'mcp-gen http',
  'mcp-gen http stateless',
  'omg stdio',
  'omg http',
] as const;
export type CallMode = (typeof CALL_MODES)[number];
export const CONCURRENCY = [1, 50] as const;

interface CallCell {
  runs: number[];
  /** Median wall time of the N calls, ms. */
  ms: number;
  perSecond: number;
  /** Results that were errors (isError, a thrown error, or not the upstream's answer). */
  errors: number;
  /** CPU per call (median over repetitions), ms: the client (this process), the MCP server, the upstream. */
  cpu: { client: number; server: number; upstream: number };
}

export interface SessionMemory {
  server: string;
  opened: number;
  wanted: number;
  /** Median over repetitions of (RSS after − RSS before) / sessions opened. */
  kbPerSession: number;
  runs: number[];
  baseRssMb: number;
  error?: string;
}

export interface CallsResult {
  calls: number;
  reps: number;
  cells: Partial<Record<`${CallMode}@${number}`, CallCell>>;
  unavailable: Partial<Record<CallMode, string>>;
  /** Transport round trip with no upstream: median ms per sequential `ping` to the mcp-gen server. */
  pings: { calls: number; stdio: number; http: number };
  /** Whether the built runtime sends upstream requests with the global fetch. */
  serverUsesFetch: boolean;
  /** Self time of the mcp-gen stdio server by category over `calls` sequential calls (CPU profile), ms. */
  serverProfile?: { calls: number; totalMs: number; parts: Record<string, number> };
  sessions: SessionMemory[];
}

// ── 6. tools/list (bench/list.ts)

export const LIST_SERVERS = ['mcp-gen', 'mcp-gen dynamic', 'omg'] as const;
export type ListServer = (typeof LIST_SERVERS)[number];

interface ListCell {
  tools: number;
  bytes: number;
  pages: number;
  /** First tools/list of the process (mcp-gen builds its listing then), ms. */
  firstMs: number[];
  /** Later tools/list calls, ms. */
  warmMs: number[];
  first: number;
  warm: number;
  /** Where the bytes go: serialised size of each part, summed over the tools. */
  composition?: Record<string, number>;
  note?: string;
  error?: string;
}

export interface ArgCheck {
  server: string;
  operations: number;
  /** Operations with no tool (or, in dynamic mode, no describe_operation answer). */
  missingOperations: number;
  params: number;
  /** Parameters present as a property under their own name. */
  sameName: number;
  /** Parameters present under another argument name (a documented rename: collisions, invalid names). */
  renamed: number;
  lost: number;
  bodies: number;
  bodiesLost: number;
  examples: string[];
}

export interface ListResult {
  reps: number;
  /** Bytes of the shared schemas of mcp-gen's GitHub tool table, each once (tools.json "defs"). */
  defsOnceBytes: number;
  cells: Partial<Record<ListServer, ListCell>>;
  checks: ArgCheck[];
}

// ── 7. the context budget (bench/budget.ts)

export interface BudgetRow {
  spec: string;
  tools: number;
  /** Mode chosen by default, and the default list's tools and bytes (portable profile). */
  mode: string;
  defaultTools: number;
  defaultBytes: number;
  /** Every tool listed: as before profiles (full, fitted as today's `full` profile does) and under portable. */
  directFull: number;
  directPortable: number;
  /** The first list of the toolsets mode, and of the dynamic mode. */
  toolsets: number;
  dynamic: number;
  /** The largest toolset's tools/list when it alone is enabled. */
  largestToolset: number;
}

// ── 5. capacity through a lean client (bench/capacity.ts)

/** direct: GET /pet/1 straight to the upstream; the others: tools/call getPetById to the generated server. */
export const CAPACITY_MODES = ['direct', 'floor', 'stateful', 'stateless', '2026-07-28'] as const;
export type CapacityMode = (typeof CAPACITY_MODES)[number];
/** Calls in flight; 1 is sequential. */
export const CAPACITY_CONCURRENCY = [1, 8, 50] as const;

interface CapacityCell {
  /** Wall time of the N calls in each repetition, ms. */
  runs: number[];
  ms: number;
  perSecond: number;
  /** Calls whose answer was not the upstream's pet (an error status, isError, a JSON-RPC error, a failed request). */
  errors: number;
  /** CPU per call (median over repetitions), ms: the load client (this process), the MCP server, the upstream. */
  cpu: { client: number; server: number; upstream: number };
  /** Requests the upstream served, and TCP connections it accepted, during the N calls (median over repetitions; absent in older results). */
  upstreamRequests?: number;
  upstreamConnections?: number;
}

export interface CapacityResult {
  calls: number;
  reps: number;
  cells: Partial<Record<`${CapacityMode}@${number}`, CapacityCell>>;
  /** Content types of the answers to tools/call, counted per mode over the measured calls. */
  contentTypes: Partial<Record<CapacityMode, Record<string, number>>>;
  unavailable: Partial<Record<CapacityMode, string>>;
}

// ── 8. generator peak RSS on the largest specs (bench/rss.ts)

export interface RssRow {
  key: string;
  label: string;
  /** Size of the spec file, bytes. */
  bytes: number;
  operations: number;
  /** Peak RSS of one run, MB (/usr/bin/time). */
  mcpGenMb: number;
  floorMb: number;
  mcpGenMs: number;
  floorMs: number;
  /** Peak RSS of parsing and modelling alone, and of the compiler printing tool-types.ts from the table alone, MB. */
  modelMb?: number;
  typesMb?: number;
  error?: string;
}

export interface RssResult {
  /** Peak RSS of `node -e 0`, MB: what any Node process takes before it does anything. */
  baselineMb: number;
  rows: RssRow[];
}

// ── 9. the OAuth resource server (bench/oauth.ts)

/** How the HTTP server checks the client: not at all, `--auth-token` (a static bearer token) or `--oauth-issuer` (a JWT by the issuer's JWKS). */
export const OAUTH_MODES = ['no auth', 'static token', 'oauth jwt'] as const;
export type OAuthMode = (typeof OAUTH_MODES)[number];

/** Sequential calls of one kind, in rounds (bench/lib/util.ts `sequentialCalls`). */
export interface LatencyCell {
  /** Per repetition: the median and the mean of the N sequential calls' latencies, ms, and the server's CPU per call, ms. */
  runs: { median: number; mean: number; serverCpu: number }[];
  /** Medians over the repetitions, ms. */
  median: number;
  mean: number;
  serverCpu: number;
  /** Results that were errors (isError, a thrown error, or not the upstream's answer). */
  errors: number;
}

interface OAuthStartCell {
  /** Spawn → `initialize` answered through the SDK client, ms, per repetition. */
  runs: number[];
  ms: number;
  /** Spawn → the server logs that it listens, ms, per repetition. */
  listenRuns: number[];
  listenMs: number;
  error?: string;
}

export interface OAuthResult {
  calls: number;
  reps: number;
  cells: Partial<Record<OAuthMode, LatencyCell>>;
  unavailable: Partial<Record<OAuthMode, string>>;
  /** JWKS documents the authorization server served to the --oauth-issuer server over all its calls (1: the keys stayed cached). */
  jwksFetches: number;
  /** `jwtVerifier(metadata)(audience).verifyAccessToken(token)` in the bench process after one warm-up call. */
  verify: {
    iterations: number;
    reps: number;
    runs: number[];
    ms: number;
    cpuMs: number;
    alg: string;
    tokenBytes: number;
    /** The first check of each of `tokens` distinct tokens: the signature verification. */
    first?: { tokens: number; ms: number; cpuMs: number };
  };
  start: { reps: number; cells: Partial<Record<OAuthMode, OAuthStartCell>> };
  /** The built project's modules: whether http-common.js loads oauth.js with import(), and the OAuth modules (oauth*.js, jose) reachable from dist/main.js by static imports. */
  lazy: { dynamicImport: boolean; staticOAuth: string[] };
  jose: string;
}

// ── 10. bytes that reach the model per multi-call task, by tool mode (bench/tokens.ts)

/** The modes a generated server is started in (`--tools`). */
export const TOKEN_MODES = ['direct', 'dynamic', 'code'] as const;
export type TokenMode = (typeof TOKEN_MODES)[number];

/** One tools/call as the model sees it. */
export interface TokenCall {
  tool: string;
  /** UTF-8 bytes of the JSON of `{ name, arguments }`: what the model writes. */
  argBytes: number;
  /** UTF-8 bytes of the result's text content, joined: what the model reads. */
  resultBytes: number;
  /** The answer was cut by --max-answer-bytes (its text says so). */
  cut?: boolean;
}

export interface TokenCell {
  /** tools/list (the JSON of its `tools` array) counted into the total: 0 for direct, whose listing is reported apart. */
  listingBytes: number;
  calls: TokenCall[];
  /** listingBytes + every call's argBytes and resultBytes. */
  total: number;
  /** The task's answer, as the mode produced it, equals the one computed from the upstream's data. */
  correct: boolean;
  error?: string;
}

export interface TokenTask {
  key: string;
  label: string;
  api: string;
  /** Upstream API calls the task needs. */
  apiCalls: number;
  cells: Partial<Record<TokenMode, TokenCell>>;
}

export interface TokensResult {
  /** --max-answer-bytes of every server: the default. */
  maxAnswerBytes: number;
  tasks: TokenTask[];
  /** The full tools/list of each API in each mode (all pages), JSON of the `tools` arrays, bytes. */
  listings: Record<string, Partial<Record<TokenMode, { tools: number; bytes: number }>>>;
  /** Bytes of the upstream's answers in each task (what the API sent, summed). */
  upstreamBytes: Record<string, number>;
  /** One call against one API call, the same upstream: median latency, ms. */
  latency: { calls: number; rows: { label: string; runs: number[]; median: number; errors: number }[] };
}

// ── 11. the new features' costs (bench/features.ts)

/** The calls measured there, each against the same call without its feature. */
export const FEATURE_PAIRS = [
  'confirm stdio',
  'confirm http',
  'confirm http 2026-07-28',
  'confirm http, no question',
  'retry stdio',
] as const;
export type FeaturePair = (typeof FEATURE_PAIRS)[number];

interface FeaturePairCells {
  base: LatencyCell;
  feature: LatencyCell;
  /** Confirmations: the questions the client answered over the feature's calls (one each); retries: the retries the upstream received. */
  events: number;
  /** The feature's calls, warm-up included: what `events` should equal. */
  featureCalls: number;
}

/** The modules a server had loaded when its first call was answered (a module hook, bench/load-log.mjs). */
export interface LoadedModules {
  /** How the server was started and what was asked of it. */
  server: string;
  /** Every module loaded: the project's files (`runtime/x.js`) and the packages by name, in load order. */
  modules: string[];
  /** Of those, each feature's modules (an empty list: none of it loaded). */
  features: Record<string, string[]>;
  error?: string;
}

export interface FeaturesResult {
  calls: number;
  reps: number;
  /** Calls of each kind before the rounds. */
  warmUp: number;
  pairs: Partial<Record<FeaturePair, FeaturePairCells>>;
  unavailable: Partial<Record<FeaturePair, string>>;
  /** The retried call: the wait the policy chooses for `Retry-After: 0`, and the server's turnaround between the tries as the upstream saw it (its 503 written → the retry arrived; mean over the retries, ms). */
  retry: {
    policyWaitMs: number;
    backoffBaseMs: number;
    retries: number;
    gapMs: number;
    /** TCP connections the upstream accepted during the retried calls' rounds: 0 when each retry reuses its first try's. */
    connections: number;
  };
  /** A plain server over stdio and Streamable HTTP, then a control with code mode, confirmations and traces on (the hook sees what loads lazily). */
  loaded: LoadedModules[];
  /** The defaults of the features' settings, by flag (`retries`: '2'), when measured. */
  defaults?: Record<string, string>;
  /** The feature modules a plain server loads: importing them after their own imports, in fresh processes. */
  importCost?: {
    modules: string[];
    /** Each feature module the server loads, and the server's other modules that import it statically. */
    importedBy?: Record<string, string[]>;
    bytes: number;
    runs: number[];
    ms: number;
  };
}

// ── 12. generated servers on the platforms' runtimes (bench/platforms.ts)

/** Where a generated server runs: Node (`dist/main.js`), workerd (`wrangler dev`), Deno (`deno task start`). */
export const PLATFORM_TARGETS = ['node', 'cloudflare', 'deno'] as const;
export type PlatformTarget = (typeof PLATFORM_TARGETS)[number];

interface PlatformStartCell {
  /** Spawn of the platform's command → `initialize` answered through the SDK client, ms, per repetition. */
  runs: number[];
  ms: number;
  error?: string;
}

interface PlatformCallCell {
  /** Per round of sequential calls: wall time per call and the server's CPU per call (its whole process group), ms. */
  runs: { wallMs: number; cpuMs: number }[];
  wallMs: number;
  cpuMs: number;
  /** CPU per call by process name over all rounds (wrangler's node, workerd, deno, …), ms. */
  byProcess: Record<string, number>;
  errors: number;
  /** Wrong arguments were refused by the server before any request (the checks ran); absent in older results. */
  checksArguments?: boolean;
  error?: string;
}

export interface WorkerBundle {
  /** `wrangler deploy --dry-run --outdir`: its wall time, ms. */
  ms: number;
  files: number;
  bytes: number;
  /** node:zlib gzip (default level) of each file, summed. */
  gzipBytes: number;
  /** What wrangler prints as `Total Upload: … KiB / gzip: … KiB`. */
  wrangler?: { kib: number; gzipKib: number };
  error?: string;
}

export interface PlatformProject {
  key: string;
  label: string;
  /** The tools the server lists. */
  tools?: number;
  start: Partial<Record<PlatformTarget, PlatformStartCell>>;
  calls: Partial<Record<PlatformTarget, PlatformCallCell>>;
  /** The call each round makes, and the wrong arguments it is checked with, as `tool {arguments}`. */
  call: string;
  wrongCall?: string;
  bundle: WorkerBundle;
}

export interface PlatformsResult {
  reps: number;
  calls: number;
  callReps: number;
  versions: { wrangler: string; deno: string };
  projects: PlatformProject[];
}

// ── 14. the package a generated project ships (bench/package.ts)

export interface PackageRow {
  project: string;
  /** `npm pack`'s tarball, and the bytes and files it unpacks to. */
  tarballBytes: number;
  unpackedBytes: number;
  files: number;
  /** `npm install <tarball>` into an empty folder: wall time per run, and what node_modules then holds. */
  install: { runs: number[]; ms: number; bytes: number; packages: number };
  /** `npm run bundle`'s .mcpb. */
  mcpbBytes: number;
}

export interface PackageResult {
  reps: number;
  rows: PackageRow[];
}
