// Start-up: read options, load the tool table, start the one transport asked for. Each
// transport module is imported only when chosen (the SDK's modules are costly to load).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { credentialProblem } from './auth.js';
import { ConfigError, readConfig, USAGE, type ServerConfig, type ToolMode, type TransportName } from './config.js';
import { createConfirmations, mayConfirm, type Confirmations } from './confirm.js';
import { createExecutor } from './executor.js';
import { followsOperations } from './long-running.js';
import type { Hooks } from './hooks-api.js';
import type { Served } from './http-common.js';
import type { HttpEndpoints } from './http-endpoints.js';
import { createLogger, type Logger } from './log.js';
import { createObserver } from './observe.js';
import { scopePolicy } from './scopes.js';
import { createRedactor } from './shape.js';
import { createServerFactory, credentialReader, toolsListedAtStart, type ServerFactory } from './server.js';
import type { ToolTable } from '../contract/table.js';
import { servedTable, ToolsetError, toolsetSizes } from '../contract/toolsets.js';
import { CLIENT_TOOL_CAP } from '../contract/limits.js';

/** A generated server's start: its tools.json, and the .env beside it. */
export async function run<Args extends object>(tableUrl: URL, hooks: Hooks<Args>, argv = process.argv.slice(2)): Promise<void> {
  let table: ToolTable;
  try {
    table = JSON.parse(readFileSync(tableUrl, 'utf8')) as ToolTable;
  } catch (error) {
    process.stderr.write(`cannot read the tool table ${tableUrl.pathname}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  loadEnvFile(fileURLToPath(new URL('.env', tableUrl)));
  await serveTable(table, hooks as Hooks, argv);
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
 * Serve a tool table with the options in argv (and the environment): a generated server's
 * tools.json, or one that `mcp-gen serve` built in memory from a spec.
 */
export async function serveTable(table: ToolTable, hooks: Hooks, argv: string[]): Promise<void> {
  let config;
  try {
    config = readConfig(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${table.name}: ${error.message}\nRun with --help to see the options.\n`);
    process.exit(2);
  }
  if (config === 'help') {
    const toolsets = [...toolsetSizes(table)].map(([name, n]) => `${name} (${n})`).join(', ');
    const mode = table.serve?.mode ?? 'direct';
    process.stdout.write(
      `${table.title ?? table.name} — MCP server (${table.tools.length} tools; tools/list shows them ${mode} by default)\n\n${USAGE}\n\nToolsets: ${toolsets}\n`,
    );
    return;
  }
  // --toolsets alone means "these tools, listed": direct; otherwise the mode chosen at generation.
  const wanted = config.toolsets.filter((t) => t !== 'all');
  const mode: ToolMode = config.toolMode ?? (config.toolsets.length ? 'direct' : (table.serve?.mode ?? 'direct'));
  try {
    const chosen = servedTable(table, config); // checks the toolset names in every mode
    // With toolsets on demand every toolset stays available; --toolsets only says which start enabled.
    table = mode === 'toolsets' ? servedTable(table, { toolsets: [], readOnly: config.readOnly }) : chosen;
  } catch (error) {
    if (!(error instanceof ToolsetError)) throw error;
    process.stderr.write(`${table.name}: ${error.message}\n`);
    process.exit(2);
  }
  const unusable = credentialProblem(table, process.env) ?? baseUrlProblem(config.baseUrl);
  if (unusable) {
    process.stderr.write(`${table.name}: ${unusable}\n`);
    process.exit(2);
  }
  const log = createLogger(table.name, config.logLevel);
  // A tool call must never take the server down; report and carry on.
  process.on('unhandledRejection', (error) => log.error(`unhandled: ${(error as Error)?.message ?? String(error)}`));

  for (const { header, scheme } of config.authFromHeaders) {
    if (!table.auth[scheme]) {
      process.stderr.write(
        `${table.name}: --auth-from-headers maps ${header} to "${scheme}", which is not a security scheme of this API (known: ${Object.keys(table.auth).join(', ') || 'none'})\n`,
      );
      process.exit(2);
    }
  }
  const initialToolsets = config.toolsets.includes('all') ? [...toolsetSizes(table).keys()] : wanted;
  const policy = config.oauth && scopePolicy(table, config.oauth);
  const observer = await createObserver(table, config, log);
  const executor = createExecutor(table, config, hooks, log, observer);
  const factory = createServerFactory(table, executor, credentialReader(config.authFromHeaders), {
    mode,
    profile: config.clientProfile,
    initialToolsets,
    hooks,
    codeLimits: config.codeLimits,
    confirmations: confirmationsOf(table, config),
    observer,
    ...(policy ? { access: policy } : {}),
  });
  const listed = toolsListedAtStart(table, mode, initialToolsets);
  if (listed > CLIENT_TOOL_CAP) {
    const fewer =
      mode === 'direct'
        ? 'choose --toolsets, or --tools toolsets or dynamic'
        : `${mode === 'toolsets' ? 'enable fewer toolsets from the start (--toolsets), or ' : ''}generate with fewer --direct-tools`;
    log.warn(`listing ${listed} tools: VS Code, Copilot and the OpenAI API refuse more than ${CLIENT_TOOL_CAP}; ${fewer}`);
  }
  try {
    await TRANSPORTS[config.transport](factory, config, log, { table, ...(policy ? { policy } : {}) });
  } catch (error) {
    process.stderr.write(`${table.name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

type Start<T> = (factory: ServerFactory, config: ServerConfig, log: Logger, served: Served) => Promise<T>;

const streamableHttp: Start<HttpEndpoints> = async (factory, config, log, served) =>
  (await import('./http.js')).streamableEndpoints(
    factory,
    config,
    log,
    mayConfirm(served.table, config.confirm) || followsOperations(served.table),
  );
/** Legacy HTTP+SSE (protocol 2024-11-05), all in sse.ts: the deprecated server-legacy package loads only with it. */
const legacySse: Start<HttpEndpoints> = async (factory, config, log) => (await import('./sse.js')).sseEndpoints(factory, config, log);

/** One HTTP listener serving these endpoints, each set created in the order given. */
function overHttp(...endpointSets: Start<HttpEndpoints>[]): Start<void> {
  return async (factory, config, log, served) => {
    const endpoints: HttpEndpoints[] = [];
    for (const create of endpointSets) endpoints.push(await create(factory, config, log, served));
    await (await import('./http-common.js')).listen(config, log, endpoints, served);
  };
}

/**
 * What each --transport starts. Every name lists exactly what it serves, and the compiler wants
 * an entry for every name: a new transport mounts nothing it does not list.
 */
const TRANSPORTS: Record<TransportName, Start<void>> = {
  stdio: async (factory, _config, log) => (await import('./stdio.js')).startStdio(factory, log),
  http: overHttp(streamableHttp),
  // Dropping legacy SSE: these two entries, legacySse, sse.ts, and the two names in config.ts.
  sse: overHttp(legacySse),
  'http+sse': overHttp(streamableHttp, legacySse),
};

/**
 * Credentials in a URL are never sent (upstream.ts refuses the request, as fetch does), and
 * the refusal quotes the URL with its password: refuse it once at start, without quoting it.
 */
/** --confirm, with the questions cleared of the secrets the executor's answers are cleared of. */
function confirmationsOf(table: ToolTable, config: ServerConfig): Confirmations {
  const redactor = createRedactor(table, process.env, config.staticHeaders);
  return createConfirmations(config.confirm, (text, credentials) => redactor.text(text, credentials));
}

function baseUrlProblem(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(baseUrl)) return undefined;
  return "--base-url (API_BASE_URL) must not carry a user name or password: set the credentials of the API's security scheme instead";
}
