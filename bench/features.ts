// 11. The new features' costs (#30), each beside the call it adds to, on the generated Petstore
// server against the local upstream, through the official SDK client: a confirmed DELETE
// (`--confirm destructive`, the client accepting the form elicitation) against the same DELETE
// with confirmations off, over stdio, a 2025 Streamable HTTP session and 2026-07-28 (and, on
// that session, a call that needs no confirmation, on both servers); and a call
// the upstream answers 503 once (`Retry-After: 0`) against a plain call. The two other features
// of the issue are measured by their own sections and reported beside these: the cached JWT
// check by section 9 (oauth.ts), one execute with one api call by section 10 (tokens.ts). Then,
// with every feature off, which of their modules a server has loaded once its first call is
// answered (a module hook; retries and pacing are the default call path, the others load only
// with a table or settings that use them), and what those that do load cost to import.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startNode, startServer, type RunningServer } from '../harness/project.js';
import { SETTINGS } from '../src/contract/settings.js';
import { BACKOFF, retryAfterMs } from '../src/runtime/call/send/retry.js';
import { stdioClient, type Elicit } from './lib/clients.js';
import { mcpGenProject, placeIn } from './lib/fixtures.js';
import { importsOf, moduleName, staticImports } from './lib/modules.js';
import { FEATURE_PAIRS, type FeaturePair, type FeaturesResult, type LoadedModules } from './lib/results.js';
import { startUpstream, type Upstream } from './lib/upstream.js';
import { BENCH, TMP, ensureDir, interleave, latencyCell, log, median, sequentialCalls, type LatencyRun } from './lib/util.js';

/** getPetById takes the API key, deletePet the OAuth token (petstore_auth): the upstream checks neither. */
const ENV = { SWAGGER_PETSTORE_API_KEY: 'bench', SWAGGER_PETSTORE_AUTH_TOKEN: 'bench' };
/** The upstream's flaky path (bench/upstream.mjs): 503 with `Retry-After: 0`, then the pet. */
const FLAKY_PET = 503;
const WARM_UP = 20;

/** The answer the upstream gives is in the result: the call really went through. */
function okText(result: unknown): boolean {
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  return !r.isError && (r.content ?? []).some((c) => c.type === 'text' && (c.text ?? '').includes('doggie'));
}

/** A call and the server process that answers it (for its CPU time). */
interface Caller {
  call: () => Promise<boolean>;
  pid: number;
}

const toolCall =
  (client: Client, name: string, args: Record<string, unknown>): (() => Promise<boolean>) =>
  async () =>
    okText(await client.callTool({ name, arguments: args }));

/** A client that accepts every confirmation, counting the questions. */
function accepting(): { elicit: Elicit; asked: () => number } {
  let asked = 0;
  return {
    elicit: async () => (asked++, { action: 'accept', content: { confirm: true } }),
    asked: () => asked,
  };
}

/** Everything the pairs run on, to close at the end. */
interface Setup {
  /** `asked`: the questions the client answered so far (the confirmations; the retries are counted by the upstream). */
  pairs: Partial<Record<FeaturePair, { base: Caller; feature: Caller; asked?: () => number }>>;
  unavailable: FeaturesResult['unavailable'];
  close: () => Promise<void>;
}

/** The four servers (stdio and HTTP, confirmations off and on) and the callers of each pair. */
async function setUp(main: string, project: string, upstream: Upstream): Promise<Setup> {
  const closers: (() => Promise<void>)[] = [];
  const base = ['--base-url', upstream.url];
  const confirm = [...base, '--confirm', 'destructive'];
  const deletePet = { petId: 1 };
  const setup: Setup = {
    pairs: {},
    unavailable: {},
    close: async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    },
  };
  const stdio = async (args: string[], elicit?: Elicit) => {
    const { client, pid } = await stdioClient({ args: [main, ...args], env: ENV }, elicit);
    closers.push(() => client.close());
    return { client, pid };
  };
  const http = async (args: string[]) => {
    const server = await startServer(project, 'http', args, ENV);
    closers.push(() => server.stop());
    return server;
  };
  const httpClient = async (server: RunningServer, options: { negotiate?: boolean; elicit?: Elicit }) => {
    const client = await connect('http', server.url, options);
    closers.push(() => client.close());
    return { client, pid: server.process.pid as number };
  };
  const pair = async (name: FeaturePair, make: () => Promise<Setup['pairs'][FeaturePair]>) => {
    try {
      setup.pairs[name] = await make();
    } catch (error) {
      setup.unavailable[name] = (error as Error).message.split('\n')[0];
    }
  };

  // A server that fails to start stops the ones started before it.
  try {
    const plainStdio = await stdio(base);
    await pair('confirm stdio', async () => {
      const asking = accepting();
      const confirming = await stdio(confirm, asking.elicit);
      return {
        base: { call: toolCall(plainStdio.client, 'deletePet', deletePet), pid: plainStdio.pid },
        feature: { call: toolCall(confirming.client, 'deletePet', deletePet), pid: confirming.pid },
        asked: asking.asked,
      };
    });
    const [plainHttp, confirmHttp] = [await http(base), await http(confirm)];
    for (const [name, negotiate] of [
      ['confirm http', false],
      ['confirm http 2026-07-28', true],
    ] as const) {
      await pair(name, async () => {
        const asking = accepting();
        const plain = await httpClient(plainHttp, { negotiate });
        const confirming = await httpClient(confirmHttp, { negotiate, elicit: asking.elicit });
        return {
          base: { call: toolCall(plain.client, 'deletePet', deletePet), pid: plain.pid },
          feature: { call: toolCall(confirming.client, 'deletePet', deletePet), pid: confirming.pid },
          asked: asking.asked,
        };
      });
    }
    // Confirmations on cost even the calls that ask nothing: a 2025 session's calls are then
    // answered on an SSE stream (where a question could travel), not as one JSON body.
    await pair('confirm http, no question', async () => {
      const asking = accepting();
      const plain = await httpClient(plainHttp, {});
      const confirming = await httpClient(confirmHttp, { elicit: asking.elicit });
      return {
        base: { call: toolCall(plain.client, 'getPetById', { petId: 1 }), pid: plain.pid },
        feature: { call: toolCall(confirming.client, 'getPetById', { petId: 1 }), pid: confirming.pid },
        asked: asking.asked,
      };
    });
    await pair('retry stdio', async () => ({
      base: { call: toolCall(plainStdio.client, 'getPetById', { petId: 1 }), pid: plainStdio.pid },
      feature: { call: toolCall(plainStdio.client, 'getPetById', { petId: FLAKY_PET }), pid: plainStdio.pid },
    }));
  } catch (error) {
    await setup.close();
    throw error;
  }
  return setup;
}

type Side = 'base' | 'feature';
type Variant = `${FeaturePair}|${Side}`;

/** Every pair's base and feature call, in rounds of `n` sequential calls, all interleaved. */
async function measurePairs(setup: Setup, n: number, reps: number, upstream: Upstream) {
  const names = FEATURE_PAIRS.filter((p) => setup.pairs[p]);
  const variants = names.flatMap((p) => (['base', 'feature'] as const).map((side): Variant => `${p}|${side}`));
  const caller = (variant: Variant) => {
    const [pair, side] = variant.split('|') as [FeaturePair, Side];
    return (setup.pairs[pair] as NonNullable<Setup['pairs'][FeaturePair]>)[side];
  };
  // Warm-up (JIT, validators, connections); also checks the answers.
  for (const variant of variants) {
    for (let i = 0; i < WARM_UP; i++) {
      if (!(await caller(variant).call())) throw new Error(`features: ${variant} did not return the upstream answer`);
    }
  }
  // The upstream counts the retries since it was last asked: the warm-up's count, not their gap.
  const warmRetries = (await upstream.retries()).retries;
  const gap = { retries: 0, gapMs: 0, connections: 0 };
  log(`features: ${reps} × ${n} sequential calls × ${variants.join(', ')}`);
  const runs = await interleave(reps, variants, async (variant) => {
    const { call, pid } = caller(variant);
    if (variant !== 'retry stdio|feature') return sequentialCalls(n, call, pid);
    // Whether a retry reuses the keep-alive connection of its first try: the upstream counts connections.
    const before = await upstream.counts();
    const run = await sequentialCalls(n, call, pid);
    const seen = await upstream.retries();
    gap.retries += seen.retries;
    gap.gapMs += seen.gapMs;
    gap.connections += (await upstream.counts()).connections - before.connections;
    return run;
  });
  const pairs: FeaturesResult['pairs'] = {};
  for (const name of names) {
    const pair = setup.pairs[name] as NonNullable<Setup['pairs'][FeaturePair]>;
    pairs[name] = {
      base: latencyCell(runs[`${name}|base`] as LatencyRun[]),
      feature: latencyCell(runs[`${name}|feature`] as LatencyRun[]),
      events: pair.asked ? pair.asked() : warmRetries + gap.retries,
      featureCalls: WARM_UP + n * reps,
    };
  }
  return {
    pairs,
    retry: { retries: gap.retries, gapMs: gap.retries ? gap.gapMs / gap.retries : NaN, connections: gap.connections },
  };
}

// ── with the features off: what is loaded

/** Each feature's modules: the project's files and the packages only it uses. */
const FEATURE_MODULES: Record<string, RegExp> = {
  'OAuth (--oauth-issuer, --oauth-api-client-id)': /^runtime\/oauth\/.+\.js$|^(jose|redis|@redis\/.+)$/,
  'code mode sandbox (--tools code)': /^runtime\/code-mode\/.+\.js$|quickjs/,
  'traces (OTEL_EXPORTER_OTLP_ENDPOINT)': /^runtime\/observe\/telemetry\.js$|^@opentelemetry\//,
  'confirmations (--confirm)': /^runtime\/confirm\/.+\.js$/,
  tasks: /^runtime\/long-running\/tasks\.js$/,
  'retries and pacing (--retries, --max-concurrent-requests, --rate-limit)': /^runtime\/call\/send\/(retry|pacing)\.js$/,
  'long-running operations': /^runtime\/long-running\/long-running\.js$/,
};
const isFeature = (name: string) => Object.values(FEATURE_MODULES).some((pattern) => pattern.test(name));

const LOAD_LOG = join(BENCH, 'load-log.mjs');
/** The settings that turn the features on, whose defaults the report quotes. */
const FEATURE_SETTINGS = ['confirm', 'retries', 'max-concurrent-requests', 'rate-limit'];

/** The modules a server started with the load hook had loaded when `ask` returned. */
async function loadedBy(
  label: string,
  dist: string,
  start: (hook: string[], env: Record<string, string>) => Promise<{ ask: () => Promise<void>; close: () => Promise<void> }>,
): Promise<LoadedModules> {
  const file = join(ensureDir(join(TMP, 'features')), `loaded-${process.pid}.txt`);
  rmSync(file, { force: true });
  try {
    const server = await start(['--import', LOAD_LOG], { ...ENV, MODULE_LOG: file });
    let lines: string[];
    try {
      await server.ask();
      // Read before closing: what shutting down loads is not the start's.
      lines = readFileSync(file, 'utf8').split('\n');
    } finally {
      await server.close();
    }
    const modules = [...new Set(lines.map((url) => moduleName(url, dist)).filter((m): m is string => m !== undefined))];
    const features = Object.fromEntries(Object.entries(FEATURE_MODULES).map(([f, pattern]) => [f, modules.filter((m) => pattern.test(m))]));
    return { server: label, modules, features };
  } catch (error) {
    return { server: label, modules: [], features: {}, error: (error as Error).message.split('\n')[0] };
  } finally {
    rmSync(file, { force: true });
  }
}

async function loadedModules(project: string, upstream: Upstream): Promise<LoadedModules[]> {
  // the runtime's modules are under lib/ (prebuilt), named runtime/… as in mcp-gen's own dist/src
  const dist = realpathSync(join(project, 'lib'));
  const main = join(dist, 'main.js');
  const firstCall = async (client: Client) => {
    await client.listTools();
    if (!okText(await client.callTool({ name: 'getPetById', arguments: { petId: 1 } }))) throw new Error('the first call failed');
  };
  return [
    await loadedBy('stdio, default options: tools/list, then one tools/call getPetById', dist, async (hook, env) => {
      const { client } = await stdioClient({ args: [...hook, main, '--base-url', upstream.url], env });
      return { ask: () => firstCall(client), close: () => client.close() };
    }),
    await loadedBy('Streamable HTTP, default options: tools/list, then one tools/call getPetById', dist, async (hook, env) => {
      const server = await startNode([...hook, main, '--transport', 'http', '--port', '0', '--base-url', upstream.url], project, env);
      const client = await connect('http', server.url).catch(async (error: unknown) => {
        await server.stop();
        throw error;
      });
      return { ask: () => firstCall(client), close: async () => (await client.close(), await server.stop()) };
    }),
    // The control: code mode, confirmations and traces on, so the hook must see the sandbox,
    // confirm.js and OpenTelemetry load (lazily: on the first execute, with the table, at start).
    // getPetById asks no confirmation. The upstream takes the OTLP export too.
    await loadedBy(
      'control: stdio, --tools code, --confirm destructive and OTEL_EXPORTER_OTLP_ENDPOINT set: one execute with one api call',
      dist,
      async (hook, env) => {
        const { client } = await stdioClient({
          args: [...hook, main, '--base-url', upstream.url, '--tools', 'code', '--confirm', 'destructive'],
          env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: upstream.url },
        });
        const ask = async () => {
          const result = await client.callTool({ name: 'execute', arguments: { code: 'return await api.getPetById({ petId: 1 });' } });
          if (!okText(result)) throw new Error('the execute failed');
        };
        return { ask, close: () => client.close() };
      },
    ),
  ];
}

/**
 * What the feature modules a plain server loads cost to import: in a fresh process, their own
 * imports (the other runtime modules and packages, loaded by any server) first, then they, timed.
 */
function importCost(project: string, loaded: LoadedModules | undefined, reps: number): FeaturesResult['importCost'] {
  // the runtime's modules are under lib/ (prebuilt), named runtime/… as in mcp-gen's own dist/src
  const dist = realpathSync(join(project, 'lib'));
  const names = (loaded?.modules ?? []).filter((m) => isFeature(m) && m.startsWith('runtime/'));
  if (names.length === 0) return undefined;
  const files = names.map((m) => join(dist, m));
  const preload = new Set<string>();
  for (const file of files) {
    const imports = importsOf(file);
    for (const f of imports.files) if (!files.includes(f)) preload.add(f);
    for (const spec of imports.bare) preload.add(spec);
  }
  // A preloaded module that reaches a feature module would load it untimed: only the others are timed.
  const reached = new Set(staticImports(...[...preload].filter((p) => p.startsWith('/'))).files);
  const timed = files.filter((f) => !reached.has(f));
  const probe = placeIn(project, 'import-probe.mjs');
  const input = JSON.stringify({ preload: [...preload], timed });
  const runs: number[] = [];
  for (let i = 0; i < reps; i++) runs.push(Number(execFileSync(process.execPath, [probe, input], { cwd: project, encoding: 'utf8' })));
  // Which of the server's other modules import each feature module statically (why it loads).
  const all = staticImports(join(dist, 'main.js')).files;
  const short = (f: string) => f.slice(dist.length + 1);
  const importedBy = Object.fromEntries(files.map((f) => [short(f), all.filter((o) => importsOf(o).files.includes(f)).map(short)]));
  return {
    modules: timed.map(short),
    importedBy,
    bytes: timed.reduce((n, f) => n + statSync(f).size, 0),
    runs,
    ms: median(runs),
  };
}

export async function runFeatures(options: { quick: boolean }): Promise<FeaturesResult> {
  const n = options.quick ? 100 : 1000;
  const reps = options.quick ? 2 : 5;
  const upstream = await startUpstream();
  const project = await mcpGenProject('petstore');
  const main = join(project, 'dist/main.js');
  const setup = await setUp(main, project, upstream);
  let measured: Awaited<ReturnType<typeof measurePairs>>;
  try {
    measured = await measurePairs(setup, n, reps, upstream);
  } finally {
    await setup.close();
  }
  log('features: the modules a server loads with every feature off');
  const loaded = await loadedModules(project, upstream);
  const cost = importCost(project, loaded[0], options.quick ? 3 : 9);
  await upstream.stop();
  return {
    calls: n,
    reps,
    warmUp: WARM_UP,
    pairs: measured.pairs,
    unavailable: setup.unavailable,
    retry: { policyWaitMs: retryAfterMs('0') ?? NaN, backoffBaseMs: BACKOFF.baseMs, ...measured.retry },
    loaded,
    defaults: Object.fromEntries(FEATURE_SETTINGS.map((flag) => [flag, SETTINGS.find((s) => s.flag === flag)?.default ?? 'off'])),
    ...(cost ? { importCost: cost } : {}),
  };
}
