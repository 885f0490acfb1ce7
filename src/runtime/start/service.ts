// What a server does with its tool table: the table as served (toolsets, read-only), the
// executor and the handlers of every instance. main.ts loads this module with the table, on
// first need, so that neither delays the answer to initialize.

import type { ServerConfig, ToolMode } from './config.js';
import { createExecutor } from '../call/executor.js';
import { callsATool, linksAccounts, streamsMidCall } from './optional-features.js';
import type { Hooks } from '../hooks-api.js';
import type { Attach } from '../mcp/server-instances.js';
import type { Logger } from './log.js';
import { createObserver } from '../observe/observe.js';
import { scopePolicy, type ScopePolicy } from '../mcp/tool-scopes.js';
import { serverRedactor } from '../call/answer/redact.js';
import { attachHandlers, credentialReader, toolsListedAtStart } from '../mcp/server.js';
import { CLIENT_TOOL_CAP } from '../../contract/limits.js';
import type { Offers } from '../../contract/summary.js';
import type { ToolTable } from '../../contract/table.js';
import { servedTable } from '../../contract/toolsets.js';
import type { PreparedListing } from '../../contract/prepared-listing.js';

export interface Service {
  /** The table as served. */
  table: ToolTable;
  /** Set when the server is an OAuth resource server. */
  policy?: ScopePolicy;
  attach: Attach;
  /** Whether a request may have the server send the client something before its result: a question (confirm.ts) or progress (long-running.ts). */
  streamsMidCall: (message: unknown) => boolean;
}

/** What main.ts decided from the settings and the table's summary. */
export interface Choices {
  mode: ToolMode;
  initialToolsets: string[];
  offers: Offers;
  /** The default listing prepared at generation (main.ts), read after the table; only where the settings list it (serving.ts). */
  prepared?: () => PreparedListing | undefined;
}

export async function createService(whole: ToolTable, config: ServerConfig, hooks: Hooks, log: Logger, choices: Choices): Promise<Service> {
  const { mode, initialToolsets } = choices;
  // With toolsets on demand every toolset stays available; --toolsets only says which start enabled.
  const table = servedTable(whole, mode === 'toolsets' ? { toolsets: [], readOnly: config.readOnly } : config);
  const policy = config.oauth && scopePolicy(table, config.oauth);
  const observer = await createObserver(table, config, log);
  const executor = createExecutor(table, config, hooks, log, observer);
  const options = {
    mode,
    profile: config.clientProfile,
    initialToolsets,
    hooks,
    codeLimits: config.codeLimits,
    // A question is cleared of the secrets the executor's answers are cleared of.
    confirm: { setting: config.confirm, redact: serverRedactor(table, config.staticHeaders).text },
    observer,
    apps: config.apps,
    ...(policy ? { access: policy } : {}),
    ...sharedTasks(table, config, log),
    ...(choices.prepared ? { prepared: choices.prepared } : {}),
  };
  const attach = await attachHandlers(table, executor, credentialReader(config.authFromHeaders), options, choices.offers);
  warnIfListingTooLong(table, choices, log);
  return {
    table,
    ...(policy ? { policy } : {}),
    attach,
    streamsMidCall: linksAccounts(config) ? callsATool : streamsMidCall(table, config.confirm),
  };
}

/** Tasks in the store --operation-store names, when it is not memory: the replicas then share them as they share handles. */
function sharedTasks(table: ToolTable, config: ServerConfig, log: Logger) {
  const store = config.operationStore;
  return store === undefined ? {} : { sharedTasks: { store, namespace: table.name, log } };
}

function warnIfListingTooLong(table: ToolTable, { mode, initialToolsets }: Choices, log: Logger): void {
  const listed = toolsListedAtStart(table, mode, initialToolsets);
  if (listed <= CLIENT_TOOL_CAP) return;
  const fewer =
    mode === 'direct'
      ? 'choose --toolsets, or --tools toolsets or dynamic'
      : `${mode === 'toolsets' ? 'enable fewer toolsets from the start (--toolsets), or ' : ''}generate with fewer --direct-tools`;
  log.warn(`listing ${listed} tools: VS Code, Copilot and the OpenAI API refuse more than ${CLIENT_TOOL_CAP}; ${fewer}`);
}
