// What the tools/list and tools/call handlers of every server instance share, made once per
// table (listing.ts, calling.ts), and what each instance adds to it: in toolsets mode, the
// toolsets its session has enabled. The modules of the features the table uses (long-running
// operations, tasks, confirmations) are loaded here, and only those.

import type { AuthInfo, Server, Tool } from '@modelcontextprotocol/server';
import type { Confirmations } from '../confirm/confirm.js';
import type { TaskStore } from '../long-running/tasks.js';
import { OperationIndex } from './operation-index.js';
import { followsOperations, mayConfirm, readsStreams } from '../start/optional-features.js';
import { codeTools, metaTools, operationTools } from '../../contract/meta-tools.js';
import { metaCalls as metaCallsOf, type MetaCall, type ToolsetSession } from './meta-dispatch.js';
import { callObserver, type CallObserver } from '../observe/observe.js';
import { credentialPlaces } from '../call/send/upstream.js';
import type { Hooks } from '../hooks-api.js';
import type { ScopePolicy } from './tool-scopes.js';
import type { RequestCredentials } from '../call/request/credentials.js';
import type { Executor } from '../call/executor.js';
import type { ConfirmSetting, ServerConfig, ToolMode } from '../start/config.js';
import type { Logger } from '../start/log.js';
import type { OperationStoreSetting } from '../long-running/operation-store.js';
import { createLister, type ClientProfile, type ListedTool } from '../../contract/profiles.js';
import type { PreparedListing } from '../../contract/prepared-listing.js';
import { callableTable, type JsonSchema, type ToolSpec, type ToolTable } from '../../contract/table.js';
import { toolsetMetaTools, toolsetOf, withNested } from '../../contract/toolsets.js';
import { CLIENT_TOOL_CAP } from '../../contract/limits.js';
import type { Offers } from '../../contract/summary.js';
import type { Serving } from './server-instances.js';
import { toolSchemas, type ToolSchemas } from './tool-schemas.js';
import { appsGate, type AppsGate } from './apps-gate.js';
import { CODE_LIMIT_DEFAULTS, type AppsSetting } from '../../contract/settings.js';

/** Reads per-request credentials from the MCP client's HTTP headers, as the operator mapped them. */
export type CredentialReader = (headers: Headers | undefined) => RequestCredentials;

export interface ServerOptions {
  /** What tools/list shows (config.ts ToolMode). */
  mode: ToolMode;
  /** How listed schemas are written (profiles.ts). */
  profile: ClientProfile;
  /** In toolsets mode, the toolsets enabled from the start. */
  initialToolsets: string[];
  /** Largest tools/list page (default LIST_PAGE_BYTES). */
  listPageBytes?: number;
  /**
   * The fixed listing as prepared at generation, when it is this server's (service.ts): read on
   * the first tools/list instead of listing every tool.
   */
  prepared?: () => PreparedListing | undefined;
  /** The user's hooks, for completions (src/hooks.ts). */
  hooks?: Hooks;
  /** Set when the server is an OAuth resource server: a caller sees and calls only what its token's scopes allow. */
  access?: ScopePolicy;
  /** Code mode's sandbox limits (the --code-* settings). */
  codeLimits?: ServerConfig['codeLimits'];
  /**
   * Which calls wait for the user's yes (--confirm, confirm.ts; unset: only those tools.json
   * marks), and how a question is cleared of the secrets the executor's answers are cleared of.
   */
  confirm?: { setting: ConfirmSetting; redact: (text: string, credentials: RequestCredentials) => string };
  /** Spans and the call log (observe.ts); without one, only an incoming traceparent is forwarded. */
  observer?: CallObserver;
  /** Whether clients that declare MCP Apps get views (--apps; apps-gate.ts). Unset: auto. */
  apps?: AppsSetting;
  /** With --operation-store other than memory: tasks are kept there too (tasks-shared.ts), under the API's name. */
  sharedTasks?: { store: OperationStoreSetting; namespace: string; log: Logger };
}

/** The meta-tools a mode lists, as the client profile writes them. */
interface ListedMetaTools {
  /** Toolsets mode's list_toolsets and enable_toolset. */
  toolsetTools: Tool[] | undefined;
  /** Dynamic or code mode's tools (toolsets mode serves a request without a session as dynamic mode does: it could not keep enabled toolsets). */
  operationMetaTools: ListedTool[] | undefined;
  /** get_operation_status, which joins whatever the mode lists when an operation is long-running. */
  statusTools: Tool[];
  /** What every listing without toolsets on demand begins with. */
  dynamicTools: Tool[];
}

/** The modules of the optional features this table uses, loaded once. */
interface LoadedFeatures {
  /** Whether a call may tell its progress: while its operation is followed, or its streamed answer read. */
  tellsProgress: boolean;
  tasks: TaskSupport | undefined;
  confirmations: Confirmations | undefined;
}

export interface TableTools extends ListedMetaTools, LoadedFeatures {
  /** The whole table, resources included. */
  whole: ToolTable;
  /** The operations callable as tools. */
  table: ToolTable;
  byName: ReadonlyMap<string, ToolSpec>;
  executor: Executor;
  readCredentials: CredentialReader;
  options: ServerOptions;
  offers: Offers;
  observer: CallObserver;
  /** Whether a request's client gets MCP Apps views, and the views then. */
  apps: AppsGate;
  /** How one of the table's tools is listed, with task support when the table offers tasks. */
  listed(tool: ToolSpec): Tool;
  /** Whether a tool is listed before any toolset is enabled. */
  listedFromStart(tool: ToolSpec): boolean;
  /** Whether the caller may see and call `tool`: without a scope policy, or without a token, every tool. */
  visible(tool: ToolSpec, auth: AuthInfo | undefined): boolean;
  /** The meta-tools of every instance without toolsets on demand: the same for each, made once. */
  sessionlessMetaCalls(): ReadonlyMap<string, MetaCall>;
}

/** What one server instance adds to its table's tools. */
export interface InstanceTools {
  server: Server;
  /** Toolsets mode with a session: toolsets are enabled on demand, and the list changes. */
  onDemand: boolean;
  /** Whether operations not listed are called through a meta-tool (invoke_operation or execute). */
  operationCalls: boolean;
  /** Whether this instance serves `tool` (listed from the start, or in a toolset its session enabled). */
  served(tool: ToolSpec): boolean;
  metaCalls: ReadonlyMap<string, MetaCall>;
}

/** The tools of a table, made once for every instance. */
export async function tableTools(
  whole: ToolTable,
  executor: Executor,
  readCredentials: CredentialReader,
  options: ServerOptions,
  offers: Offers,
): Promise<TableTools> {
  const table = callableTable(whole);
  const features = await loadFeatures(whole, table, executor, options, offers);
  const lister = createLister(table, options.profile, { input: (t) => executor.inputSchema(t), output: (t) => executor.outputSchema(t) });
  const listed = (t: ToolSpec): Tool => (features.tasks ? features.tasks.listed(lister.tool(t) as Tool, t) : (lister.tool(t) as Tool));
  const meta = listedMetaTools(table, options.mode, (tools) => tools.map((t) => lister.adapt(t) as Tool));
  const byName = new Map<string, ToolSpec>(table.tools.map((t) => [t.name, t]));
  const operations = operationsContext(table, byName, executor, options);
  let sessionless: ReadonlyMap<string, MetaCall> | undefined;
  return {
    ...meta,
    ...features,
    whole,
    table,
    byName,
    executor,
    readCredentials,
    options,
    offers,
    observer: options.observer ?? callObserver({ logCalls: false }),
    apps: appsGate(table, options.apps),
    listed,
    listedFromStart: startsListed(table, options.mode, options.initialToolsets),
    visible: (tool, auth) => options.access?.allows(tool, auth) ?? true,
    sessionlessMetaCalls: () =>
      (sessionless ??= metaCallsOf({
        ...(meta.toolsetTools ? { toolsets: 'sessionless' } : {}),
        ...(meta.operationMetaTools ? { operations: { tools: meta.operationMetaTools, context: operations } } : {}),
      })),
  };
}

/** What one instance serves: in toolsets mode with a session, the toolsets it enables on top of the table's. */
export function instanceTools(tools: TableTools, server: Server, serving: Serving): InstanceTools {
  const onDemand = tools.toolsetTools !== undefined && serving === 'session';
  // Toolsets this session has enabled (toolsets mode only): one server per session.
  const enabled = withNested(tools.table, tools.options.initialToolsets);
  const served = (tool: ToolSpec) => tools.listedFromStart(tool) || (onDemand && enabled.has(toolsetOf(tool)));
  return {
    server,
    onDemand,
    operationCalls: tools.operationMetaTools !== undefined && !onDemand,
    served,
    metaCalls: onDemand ? metaCallsOf({ toolsets: toolsetSession(tools, server, enabled, served) }) : tools.sessionlessMetaCalls(),
  };
}

function listedMetaTools(table: ToolTable, mode: ToolMode, metaListed: (tools: ListedTool[]) => Tool[]): ListedMetaTools {
  const toolsetTools = mode === 'toolsets' ? metaListed(toolsetMetaTools(table)) : undefined;
  const operationMetaTools = mode === 'direct' ? undefined : mode === 'code' ? codeTools(table) : metaTools(table);
  const statusTools = metaListed(operationTools(table));
  const dynamicTools = [...(operationMetaTools ? metaListed(operationMetaTools) : []), ...statusTools];
  return { toolsetTools, operationMetaTools, statusTools, dynamicTools };
}

async function loadFeatures(
  whole: ToolTable,
  table: ToolTable,
  executor: Executor,
  options: ServerOptions,
  offers: Offers,
): Promise<LoadedFeatures> {
  // Loaded with the table, as the others are, so that no call waits for it.
  if (followsOperations(table)) await import('../long-running/long-running.js');
  const tasks = offers.tasks ? await taskSupport(options.sharedTasks) : undefined;
  const confirm = options.confirm ?? { setting: 'none', redact: (text: string) => text };
  const confirmations = await confirmationsOf(whole, confirm, (tool, args) => executor.checkCall(tool, args));
  return { tellsProgress: followsOperations(table) || readsStreams(table), tasks, confirmations };
}

function operationsContext(table: ToolTable, byName: ReadonlyMap<string, ToolSpec>, executor: Executor, options: ServerOptions) {
  let index: OperationIndex | undefined;
  let wholeSchemas: ToolSchemas | undefined;
  return {
    table,
    byName,
    inputSchema: (t: ToolSpec) => executor.inputSchema(t),
    checkArguments: (schema: JsonSchema, given: Record<string, unknown>) => executor.checkArguments(schema, given),
    index: () => (index ??= new OperationIndex(table.tools)),
    // For code mode's declarations, which are cut by size as they are printed: the whole answer, not the listing's stubs.
    outputSchema: (t: ToolSpec) => t.output && (wholeSchemas ??= toolSchemas(table)).withReachedDefs(t.output.schema),
    codeLimits: options.codeLimits ?? CODE_LIMIT_DEFAULTS,
  };
}

type TaskSupport = Awaited<ReturnType<typeof taskSupport>>;

/**
 * Long-running and streaming calls as tasks for the clients that ask (tasks.ts, loaded only then): one store for
 * every instance of this process, in its memory or, when `shared` names one, in the replicas' store.
 */
async function taskSupport(shared: ServerOptions['sharedTasks']) {
  const [{ MemoryTaskStore, runsAsTask, serveTaskMethods, statusNotification, taskRequested, withTaskSupport }, { ownerOf }] =
    await Promise.all([import('../long-running/tasks.js'), import('../long-running/long-running.js')]);
  const store: TaskStore =
    shared === undefined
      ? new MemoryTaskStore()
      : (await import('../long-running/tasks-shared.js')).openSharedTaskStore(shared.store, shared.namespace, shared.log);
  return {
    store,
    serve: serveTaskMethods,
    requested: taskRequested,
    listed: withTaskSupport,
    eligible: runsAsTask,
    ownerOf,
    statusNotification,
  };
}

/** The table's confirmations (confirm.ts, loaded only then), when some call may wait for the user's yes. */
async function confirmationsOf(
  whole: ToolTable,
  confirm: NonNullable<ServerOptions['confirm']>,
  check: Executor['checkCall'],
): Promise<Confirmations | undefined> {
  if (!mayConfirm(whole, confirm.setting)) return undefined;
  return (await import('../confirm/confirm.js')).createConfirmations(confirm.setting, confirm.redact, check, credentialPlaces(whole).query);
}

/** Tools listed before any toolset is enabled: every one in direct mode, else the pinned ones and, in toolsets mode, those of the toolsets enabled from the start. */
export function startsListed(table: ToolTable, mode: ToolMode, initialToolsets: string[]): (tool: ToolSpec) => boolean {
  if (mode === 'direct') return () => true;
  const pinned = new Set(table.serve?.pinned ?? []);
  const initial = withNested(table, mode === 'toolsets' ? initialToolsets : []);
  return (tool) => pinned.has(tool.name) || initial.has(toolsetOf(tool));
}

/** The toolsets of this session, as list_toolsets and enable_toolset see and change them. */
function toolsetSession(tools: TableTools, server: Server, enabled: Set<string>, served: (tool: ToolSpec) => boolean): ToolsetSession {
  return {
    table: tools.table,
    enabled,
    listedTools: (visible) => tools.table.tools.filter((tool) => served(tool) && visible(tool)).length,
    metaTools: tools.toolsetTools?.length ?? 0,
    toolCap: CLIENT_TOOL_CAP,
    listChanged: () => server.sendToolListChanged(),
  };
}
