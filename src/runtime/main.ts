// Start-up: read options and the tool table's summary, start the one transport asked for.
// Each transport module is imported only when chosen (the SDK's modules are costly to load);
// the tool table, and the modules that serve it (service.ts), on first need: stdio answers
// initialize without them (and a first tools/list the prepared listing holds), HTTP loads them
// before it listens.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, type ServerConfig, type TransportName } from './start/config.js';
import { readConfig, USAGE } from './start/command-line.js';
import type { Hooks } from './hooks-api.js';
import type { HttpEndpoints } from './http/endpoints.js';
import type { ServerFactory } from './mcp/server-instances.js';
import type { Lazy } from './start/lazy.js';
import { createLogger, type Logger } from './start/log.js';
import type { Service } from './start/service.js';
import { summarize, type TableSummary } from '../contract/summary.js';
import type { ToolTable } from '../contract/table.js';
import { prepareServing, startProblem, type TableSource } from './start/serving.js';
import { PREPARED_LISTING_FILE, tableFingerprint, type PreparedListing } from '../contract/prepared-listing.js';

export { mapStackTraces } from './start/source-maps.js';

/** A generated server's start: its tools.json (read on first need), the summary beside it, and the .env there. */
export async function run<Args extends object>(tableUrl: URL, hooks: Hooks<Args>, argv = process.argv.slice(2)): Promise<void> {
  const summary = readJson<TableSummary>(new URL('tools-summary.json', tableUrl), 'the tool table summary');
  loadEnvFile(fileURLToPath(new URL('.env', tableUrl)));
  const about = () => packageVersion(new URL('package.json', tableUrl));
  // resolved only for --clients: no start pays the syscall
  const entry = () => (process.argv[1] === undefined ? undefined : realpathSync(process.argv[1]));
  await serve(summary, tableFiles(tableUrl), hooks as Hooks, argv, about, entry);
}

/**
 * tools.json, read on first need, and the listing prepared beside it (tools-listed.json), which
 * is served only when it was made from these very bytes: a table changed since is listed the
 * general way. The listing needs the table's bytes, not its parse: a stdio server answers its
 * first tools/list from it before parsing the table (server-instances.ts).
 */
function tableFiles(tableUrl: URL): TableSource {
  const listingUrl = new URL(PREPARED_LISTING_FILE, tableUrl);
  let bytes: Buffer | undefined;
  const tableBytes = () => (bytes ??= readBytes(tableUrl, 'the tool table'));
  let prepared: Promise<PreparedListing | undefined> | undefined;
  return {
    load: () => {
      const text = tableBytes().toString('utf8');
      bytes = undefined;
      return parseJson<ToolTable>(text, tableUrl, 'the tool table');
    },
    prepared: () => (prepared ??= preparedListing(listingUrl, tableBytes())),
  };
}

/** The prepared listing at `url`, when it was made from `table` (these bytes of tools.json). */
async function preparedListing(url: URL, table: Buffer): Promise<PreparedListing | undefined> {
  if (!existsSync(url)) return undefined;
  // zlib.crc32 is Node 20.15+: before it, no listing is served as prepared
  const { crc32 } = (await import('node:zlib')) as { crc32?: (data: Uint8Array) => number };
  if (crc32 === undefined) return undefined;
  const listing = readJson<PreparedListing>(url, 'the prepared listing');
  return listing.table === tableFingerprint(table, crc32) ? listing : undefined;
}

/** --clients: each client's line with this server's real path, or why there is none (loaded only then). */
async function clientLines(summary: TableSummary, entry: string | undefined): Promise<string> {
  if (summary.install === undefined || entry === undefined)
    return 'no project here: generate one with mcp-gen, then run its dist/main.js --clients\n';
  const { clientInstalls } = await import('../contract/installs.js');
  return clientInstalls({ ...summary.install, entry })
    .map((install) => `${install.client} (${install.how}):\n${install.text}\n`)
    .join('\n');
}

/** --version: the name and version of the server's package (its package.json, beside tools.json). */
function packageVersion(url: URL): string {
  const pkg = readJson<{ name?: string; version?: string }>(url, 'the package.json');
  return `${pkg.name ?? 'unnamed'} ${pkg.version ?? '0.0.0'}`;
}

/** A file mcp-gen wrote beside the server; without it nothing can be served. */
function readJson<T>(url: URL, what: string): T {
  return parseJson<T>(readBytes(url, what).toString('utf8'), url, what);
}

function readBytes(url: URL, what: string): Buffer {
  try {
    return readFileSync(url);
  } catch (error) {
    return cannotRead(url, what, error);
  }
}

function parseJson<T>(text: string, url: URL, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    return cannotRead(url, what, error);
  }
}

function cannotRead(url: URL, what: string, error: unknown): never {
  process.stderr.write(`cannot read ${what} ${url.pathname}: ${(error as Error).message}\n`);
  process.exit(1);
}

/** Variables from a .env file, if there is one; variables already set win (Node's own rule). */
export function loadEnvFile(path: string): void {
  try {
    process.loadEnvFile(path);
  } catch {
    // no .env: fine
  }
}

/**
 * Serve a tool table with the options in argv (and the environment): one that `mcp-gen serve`
 * built in memory from a spec.
 */
export async function serveTable(table: ToolTable, hooks: Hooks, argv: string[]): Promise<void> {
  // No package here: the API's own name and version (its info.version) stand for it.
  await serve(summarize(table), { load: () => table }, hooks, argv, () => `${table.name} ${table.version}`);
}

/**
 * Serve the table `source` loads, from what its summary says; it is loaded on first need.
 * `about` answers --version, and `entry` (the script started, its real path) --clients.
 */
async function serve(
  summary: TableSummary,
  source: TableSource,
  hooks: Hooks,
  argv: string[],
  about: () => string,
  entry: () => string | undefined = () => undefined,
): Promise<void> {
  let config;
  try {
    config = readConfig(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${summary.name}: ${error.message}\nRun with --help to see the options.\n`);
    process.exit(2);
  }
  if (config === 'help') {
    const toolsets = summary.toolsets.map(([name, n]) => `${name} (${n})`).join(', ');
    const tools = summary.toolsets.reduce((sum, [, n]) => sum + n, 0);
    process.stdout.write(
      `${summary.title ?? summary.name} — MCP server (${tools} tools; tools/list shows them ${summary.mode ?? 'direct'} by default)\n\n${USAGE}\n\nToolsets: ${toolsets}\n`,
    );
    return;
  }
  if (config === 'version') {
    process.stdout.write(`${about()}\n`);
    return;
  }
  if (config === 'clients') {
    process.stdout.write(await clientLines(summary, entry()));
    return;
  }
  const unusable = startProblem(summary, config, process.env) ?? (await sharedStoreProblem(config));
  if (unusable) {
    process.stderr.write(`${summary.name}: ${unusable}\n`);
    process.exit(2);
  }
  const log = createLogger(summary.name, config.logLevel);
  // A tool call must never take the server down; report and carry on.
  process.on('unhandledRejection', (error) => log.error(`unhandled: ${(error as Error)?.message ?? String(error)}`));

  const { factory, service } = prepareServing(summary, source, hooks, config, log);
  try {
    await TRANSPORTS[config.transport](factory, config, log, service);
  } catch (error) {
    process.stderr.write(`${summary.name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

type Start<T> = (factory: ServerFactory, config: ServerConfig, log: Logger, service: Lazy<Service>) => Promise<T>;
/** Legacy HTTP+SSE (protocol 2024-11-05), all in sse.ts: the deprecated server-legacy package loads only with it. */
const legacySse = async (factory: ServerFactory, config: ServerConfig, log: Logger): Promise<HttpEndpoints> =>
  (await import('./transports/sse.js')).sseEndpoints(factory, config, log);

/**
 * One HTTP listener: the web core, with Streamable HTTP at /mcp and legacy HTTP+SSE as chosen.
 * The table is loaded first: a server that listens (and says it is ready) answers every request at once.
 */
function overHttp(served: { streamable: boolean; legacy: boolean }): Start<void> {
  return async (factory, config, log, service) => {
    await service.get();
    const legacy = served.legacy ? await legacySse(factory, config, log) : undefined;
    const serving = { factory, service };
    await (
      await import('./http/listener.js')
    ).listen(config, log, { serving, streamable: served.streamable, ...(legacy ? { legacy } : {}) });
  };
}

/**
 * What each --transport starts. Every name lists exactly what it serves, and the compiler wants
 * an entry for every name: a new transport mounts nothing it does not list.
 */
const TRANSPORTS: Record<TransportName, Start<void>> = {
  stdio: async (factory, _config, log) => (await import('./transports/stdio.js')).startStdio(factory, log),
  http: overHttp({ streamable: true, legacy: false }),
  // Dropping legacy SSE: these two entries, legacySse, sse.ts, and the two names in config.ts.
  sse: overHttp({ streamable: false, legacy: true }),
  'http+sse': overHttp({ streamable: true, legacy: true }),
};

/** A shared --operation-store or a --token-store Node does not serve, or its key's fault (store/setting.ts, loaded only then). */
async function sharedStoreProblem(config: ServerConfig): Promise<string | undefined> {
  const tokenStore = config.oauth?.signIn?.store;
  if (config.operationStore === undefined && tokenStore === undefined) return undefined;
  const { operationStoreProblem: problem, tokenStoreProblem } = await import('./store/setting.js');
  return (
    (config.operationStore === undefined ? undefined : problem(config.operationStore, 'node')) ??
    (tokenStore === undefined ? undefined : tokenStoreProblem(tokenStore, 'node'))
  );
}
