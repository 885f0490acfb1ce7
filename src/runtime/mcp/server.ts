// MCP wiring on the SDK's low-level Server: tools/list answers from the prebuilt table (in
// the mode and client profile chosen at start), and tools/call goes to a meta-tool by the
// dispatch table of meta-tools.ts or to the executor. Per-connection cost is a few small
// objects, whatever the size of the API (McpServer.registerTool per tool would cost ~8 µs ×
// tools per instance). The instances themselves are made in instances.ts, without the table.

import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type AuthInfo,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { linkRequiredOf } from '../call/answer/link-mark.js';
import type { Asking, Confirmations, Invoke } from '../confirm/confirm.js';
import { OperationIndex } from './operation-index.js';
import { followsOperations, mayConfirm } from '../start/optional-features.js';
import { codeTools, EXECUTE, INVOKE, metaTools, OPERATION_STATUS, operationTools } from '../../contract/meta-tools.js';
import { metaCalls as metaCallsOf, type MetaCall, type ToolsetSession } from './meta-dispatch.js';
import { toolError } from './output.js';
import { callObserver, observed, type CallObserver } from '../observe/observe.js';
import { serveResources } from './resources.js';
import { credentialPlaces } from '../call/send/upstream.js';
import { LIST_PAGE_BYTES, page, pageStarts } from './pages.js';
import type { Hooks } from '../hooks-api.js';
import type { ScopePolicy } from './tool-scopes.js';
import type { RequestCredentials } from '../call/request/credentials.js';
import type { Executor } from '../call/executor.js';
import type { ConfirmSetting, ServerConfig, ToolMode } from '../start/config.js';
import { createLister, listsOutputSchema, type ClientProfile, type ListedTool } from '../../contract/profiles.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../contract/table.js';
import { ENABLE_TOOLSET, toolsetMetaTools, toolsetOf } from '../../contract/toolsets.js';
import { CLIENT_TOOL_CAP } from '../../contract/limits.js';
import { didYouMean } from '../../contract/did-you-mean.js';
import { summarize, type Offers } from '../../contract/summary.js';
import { Lazy, serverFactory, type Attach, type ServerFactory } from './server-instances.js';
import { toolSchemas, type ToolSchemas } from './tool-schemas.js';

export type { Serving, ServerFactory } from './server-instances.js';

/** Reads per-request credentials from the MCP client's HTTP headers, as the operator mapped them. */
export type CredentialReader = (headers: Headers | undefined) => RequestCredentials;

/** What a call brings without --auth-from-headers: one empty map for all, as nothing writes to it. */
const NO_CREDENTIALS: RequestCredentials = new Map();

export function credentialReader(mapping: { header: string; scheme: string }[]): CredentialReader {
  if (mapping.length === 0) return () => NO_CREDENTIALS;
  return (headers) => {
    const found = new Map<string, string>();
    for (const { header, scheme } of mapping) {
      const value = headers?.get(header);
      if (value) found.set(scheme, value);
    }
    return found;
  };
}

export interface ServerOptions {
  /** What tools/list shows (config.ts ToolMode). */
  mode: ToolMode;
  /** How listed schemas are written (profiles.ts). */
  profile: ClientProfile;
  /** In toolsets mode, the toolsets enabled from the start. */
  initialToolsets: string[];
  /** Largest tools/list page (default LIST_PAGE_BYTES). */
  listPageBytes?: number;
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
}

/** The --code-* defaults, for a server made without settings (tests, mcp-gen serve reads them). */
const DEFAULT_CODE_LIMITS: ServerConfig['codeLimits'] = {
  memoryBytes: 64 * 1_048_576,
  timeMs: 5_000,
  maxCalls: 50,
  maxResultBytes: 262_144,
  maxLogBytes: 16_384,
};

/** Listings by the scope set that sees them: a few sets (read, read and write) serve every caller. */
const MAX_SCOPE_LISTINGS = 64;

/** Server instances for a table at hand (tests; a generated server loads its table on first need, main.ts). */
export function createServerFactory(
  whole: ToolTable,
  executor: Executor,
  readCredentials: CredentialReader = credentialReader([]),
  options: ServerOptions = { mode: 'direct', profile: 'portable', initialToolsets: [] },
): ServerFactory {
  const summary = summarize(whole);
  return serverFactory(
    summary,
    options.mode,
    new Lazy(async () => ({ attach: await attachHandlers(whole, executor, readCredentials, options, summary.offers) })),
  );
}

/**
 * The handlers of every instance, and what they share, made once per table. `offers`: what the
 * instances advertise, decided on the whole table (summary.ts), which `whole` may be a part of.
 * The modules of the features the table uses are loaded here, and only those.
 */
// eslint-disable-next-line max-lines-per-function -- being split in #39
export async function attachHandlers(
  whole: ToolTable,
  executor: Executor,
  readCredentials: CredentialReader,
  options: ServerOptions,
  offers: Offers,
): Promise<Attach> {
  // Operations mapped to resources only are neither listed nor callable as tools.
  const table: ToolTable = whole.tools.every((t) => t.asTool !== false)
    ? whole
    : { ...whole, tools: whole.tools.filter((t) => t.asTool !== false) };
  const byName = new Map<string, ToolSpec>(table.tools.map((t) => [t.name, t]));
  const lister = createLister(table, options.profile, { input: (t) => executor.inputSchema(t), output: (t) => executor.outputSchema(t) });
  // A call's progress is told while its operation is followed (long-running.ts, loaded for such a table only).
  const following = followsOperations(table) ? await import('../long-running/long-running.js') : undefined;
  const tasks = offers.tasks ? await taskSupport() : undefined;
  const listed = (t: ToolSpec): Tool => (tasks ? tasks.listed(lister.tool(t) as Tool, t) : (lister.tool(t) as Tool));
  const metaListed = (tools: ListedTool[]) => tools.map((t) => lister.adapt(t) as Tool);
  const toolsetTools = options.mode === 'toolsets' ? metaListed(toolsetMetaTools(table)) : undefined;
  // Toolsets mode serves a request without a session as dynamic mode does: it could not keep enabled toolsets.
  const operationMetaTools = options.mode === 'direct' ? undefined : options.mode === 'code' ? codeTools(table) : metaTools(table);
  // get_operation_status joins whatever the mode lists when an operation is long-running.
  const statusTools = metaListed(operationTools(table));
  const dynamicTools = [...(operationMetaTools ? metaListed(operationMetaTools) : []), ...statusTools];
  const listedFromStart = startsListed(table, options.mode, options.initialToolsets);
  const confirm = options.confirm ?? { setting: 'none', redact: (text: string) => text };
  const confirmations = await confirmationsOf(whole, confirm, (tool, args) => executor.checkCall(tool, args));
  let fixedList: Tool[] | undefined;
  /** The listing nothing changes: direct and dynamic mode, and toolsets mode without a session. */
  const fixed = (): Tool[] => (fixedList ??= [...dynamicTools, ...table.tools.filter(listedFromStart).map(listed)]);
  let index: OperationIndex | undefined;
  let wholeSchemas: ToolSchemas | undefined;
  const observer = options.observer ?? callObserver({ logCalls: false });
  /** What the dynamic meta-tools need of the server, whatever the request. */
  const operations = {
    table,
    byName,
    inputSchema: (t: ToolSpec) => executor.inputSchema(t),
    checkArguments: (schema: JsonSchema, given: Record<string, unknown>) => executor.checkArguments(schema, given),
    index: () => (index ??= new OperationIndex(table.tools)),
    // For code mode's declarations, which are cut by size as they are printed: the whole answer, not the listing's stubs.
    outputSchema: (t: ToolSpec) => t.output && (wholeSchemas ??= toolSchemas(table)).withReachedDefs(t.output.schema),
    codeLimits: options.codeLimits ?? DEFAULT_CODE_LIMITS,
  };
  let fixedStarts: number[] | undefined;
  let sessionless: ReadonlyMap<string, MetaCall> | undefined;
  /** The meta-tools of every instance without toolsets on demand: the same for each, made once. */
  const sessionlessMetaCalls = () =>
    (sessionless ??= metaCallsOf({
      ...(toolsetTools ? { toolsets: 'sessionless' } : {}),
      ...(operationMetaTools ? { operations: { tools: operationMetaTools, context: operations } } : {}),
    }));

  /** Whether the caller may see and call `tool`: without a scope policy, or without a token, every tool. */
  const visible = (tool: ToolSpec, auth: AuthInfo | undefined): boolean => options.access?.allows(tool, auth) ?? true;
  const scoped = new Map<string, { tools: Tool[]; starts: number[] }>();
  /** The fixed listing as a caller with these scopes sees it, made once per scope set. */
  const scopedListing = (auth: AuthInfo, maxBytes: number): { tools: Tool[]; starts: number[] } => {
    // Keyed by the scopes that matter here, so that openid, profile and the like add no listings.
    const key = (options.access?.supported ?? []).filter((s) => auth.scopes.includes(s)).join(' ');
    const made = scoped.get(key);
    if (made !== undefined) return made;
    const tools = [...dynamicTools, ...table.tools.filter((t) => listedFromStart(t) && visible(t, auth)).map(listed)];
    const listing = { tools, starts: pageStarts(tools, maxBytes) };
    if (scoped.size < MAX_SCOPE_LISTINGS) scoped.set(key, listing);
    return listing;
  };

  // eslint-disable-next-line max-lines-per-function -- being split in #39
  return (server, serving) => {
    const onDemand = toolsetTools !== undefined && serving === 'session';
    const operationCalls = operationMetaTools !== undefined && !onDemand;
    // Toolsets this session has enabled (toolsets mode only): one server per session.
    const enabled = new Set(options.initialToolsets);
    const served = (tool: ToolSpec) => listedFromStart(tool) || (onDemand && enabled.has(toolsetOf(tool)));
    serveResources(server, whole, offers, executor, options.hooks ?? {}, readCredentials, visible, confirmations?.needed);
    if (tasks) tasks.store.serve(server, (ctx) => tasks.ownerOf(ctx.http?.authInfo, readCredentials(ctx.http?.req?.headers)));
    server.setRequestHandler('tools/list', (request, ctx) => {
      // The fixed listing serves every caller alike unless scopes decide what each sees.
      const auth = options.access ? ctx.http?.authInfo : undefined;
      const maxBytes = options.listPageBytes ?? LIST_PAGE_BYTES;
      if (onDemand) {
        const tools = [...toolsetTools, ...statusTools, ...table.tools.filter((t) => served(t) && visible(t, auth)).map(listed)];
        return page(tools, request.params?.cursor, pageStarts(tools, maxBytes));
      }
      if (auth !== undefined) {
        const { tools, starts } = scopedListing(auth, maxBytes);
        return page(tools, request.params?.cursor, starts);
      }
      const tools = fixed();
      return page(tools, request.params?.cursor, (fixedStarts ??= pageStarts(tools, maxBytes)));
    });
    const metaCalls = onDemand ? metaCallsOf({ toolsets: toolsetSession(enabled, served) }) : sessionlessMetaCalls();
    const callTool = async (request: CallToolRequest, ctx: ServerContext) => {
      const { name } = request.params;
      const auth = ctx.http?.authInfo;
      const args = request.params.arguments ?? {};
      const progress = following?.progressOf(ctx);
      // A failure inside a call is the tool's failure (isError), never the connection's.
      const call = (tool: ToolSpec, toolArgs: Record<string, unknown>, advertised: boolean, whole = false): Promise<CallToolResult> =>
        executor
          .call(tool, toolArgs, ctx.mcpReq.signal, readCredentials(ctx.http?.req?.headers), { advertised, caller: auth, progress, whole })
          .catch((error: unknown) => toolError(`${tool.name} failed: ${(error as Error)?.message ?? String(error)}`));
      if (name === OPERATION_STATUS && statusTools.length > 0) {
        const handle = typeof args.handle === 'string' ? args.handle : '';
        const credentials = readCredentials(ctx.http?.req?.headers);
        const result = await executor.resume(handle, ctx.mcpReq.signal, credentials, { caller: auth, progress });
        return server.projectCallToolResult(result, undefined);
      }
      const asking = (): Asking => ({
        ctx,
        capabilities: clientCapabilitiesOf(server, ctx),
        credentials: readCredentials(ctx.http?.req?.headers),
      });
      const meta = metaCalls.get(name);
      if (meta) {
        // The operation's outputSchema is not advertised here, so its answer needs no projection against it.
        // A program's api call is read whole by the program: the answer budget is for what reaches the model.
        const invoke: Invoke = async (t, given, program) =>
          server.projectCallToolResult(await call(t, given, false, program !== undefined), undefined);
        const guarded = confirmations?.guard(asking, invoke) ?? invoke;
        const caller = callerOf(ctx.sessionId, auth);
        const result = await meta(args, { invoke: guarded, visible: (t) => visible(t, auth), signal: ctx.mcpReq.signal, caller });
        return confirmations?.questionOf(result) ?? result;
      }
      const tool = byName.get(name);
      // HTTP answers a tool outside the token's scopes with 403 before this (oauth.ts); here it is unknown.
      if (!tool || !served(tool) || !visible(tool, auth))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}${tool ? reach(tool) : typoOf(name, auth)}`);
      if (confirmations?.needed(tool)) {
        const asked = await confirmations.before(tool, args, asking());
        if (asked !== undefined) return asked;
      }
      const outputSchema = listsOutputSchema(options.profile) ? executor.outputSchema(tool) : undefined;
      // The tasks extension is asked for per request (2026-07-28's envelope), never by a 2025 session's initialize.
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      const task =
        tasks && tool.longRunning
          ? tasks.requested(request.params, envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
          : undefined;
      if (tasks && task) {
        const credentials = readCredentials(ctx.http?.req?.headers);
        const started = tasks.store.start(tasks.ownerOf(auth, credentials), task, async (signal, operationWaitMs) => {
          const options = { advertised: outputSchema !== undefined, caller: auth, operationWaitMs };
          return server.projectCallToolResult(await executor.call(tool, args, signal, credentials, options), outputSchema);
        });
        if (started) return started;
      }
      const result = await call(tool, args, outputSchema !== undefined);
      const link = linkRequiredOf(result);
      if (link !== undefined) {
        const again = async () => server.projectCallToolResult(await call(tool, args, outputSchema !== undefined), outputSchema);
        const { answerLinkRequired } = await import('../oauth/upstream-accounts/link-required.js');
        return answerLinkRequired(link, result, ctx, clientCapabilitiesOf(server, ctx), again);
      }
      return server.projectCallToolResult(result, outputSchema);
    };
    const known = (name: string) => byName.has(name) || metaCalls.has(name) || (name === OPERATION_STATUS && statusTools.length > 0);
    server.setRequestHandler('tools/call', observed(observer, server, known, callTool));

    /** How to reach an operation that is served but not listed: through its toolset or invoke_operation. */
    /** The nearest tool name this caller may call, for a name that is none (only on this error path: it walks the table). */
    const typoOf = (name: string, auth: AuthInfo | undefined): string =>
      didYouMean(
        name,
        table.tools.filter((t) => served(t) && visible(t, auth)).map((t) => t.name),
        (found) => JSON.stringify(found),
      );
    const reach = (tool: ToolSpec | undefined): string => {
      if (tool === undefined) return '';
      if (onDemand) return `; enable its toolset with ${ENABLE_TOOLSET} ${JSON.stringify({ toolset: toolsetOf(tool) })}`;
      return operationCalls ? `; call it through ${options.mode === 'code' ? EXECUTE : INVOKE}` : '';
    };

    /** The toolsets of this session, as list_toolsets and enable_toolset see and change them. */
    function toolsetSession(enabled: Set<string>, served: (tool: ToolSpec) => boolean): ToolsetSession {
      return {
        table,
        enabled,
        listedTools: (visible) => table.tools.filter((tool) => served(tool) && visible(tool)).length,
        metaTools: toolsetTools?.length ?? 0,
        toolCap: CLIENT_TOOL_CAP,
        listChanged: () => server.sendToolListChanged(),
      };
    }
  };
}

/** Long-running calls as tasks for the clients that ask (tasks.ts, loaded only then): one store for every instance of this process. */
async function taskSupport() {
  const [{ TaskStore, taskRequested, withTaskSupport }, { ownerOf }] = await Promise.all([
    import('../long-running/tasks.js'),
    import('../long-running/long-running.js'),
  ]);
  return { store: new TaskStore(), requested: taskRequested, listed: withTaskSupport, ownerOf };
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
function startsListed(table: ToolTable, mode: ToolMode, initialToolsets: string[]): (tool: ToolSpec) => boolean {
  if (mode === 'direct') return () => true;
  const pinned = new Set(table.serve?.pinned ?? []);
  const initial = new Set(mode === 'toolsets' ? initialToolsets : []);
  return (tool) => pinned.has(tool.name) || initial.has(toolsetOf(tool));
}

/** The longest tools/list before any toolset is enabled, in tools: what the start-up warning counts. */
export function toolsListedAtStart(table: ToolTable, mode: ToolMode, initialToolsets: string[]): number {
  const meta = (mode === 'direct' ? 0 : mode === 'code' ? codeTools(table).length : metaTools(table).length) + operationTools(table).length;
  return meta + table.tools.filter(startsListed(table, mode, initialToolsets)).length;
}

/** The client's capabilities: per request (2026-07-28), or from initialize (2025 sessions). */
function clientCapabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}

/**
 * Who a meta-tool call is from, for code mode's fair share of workers: its session; without one
 * (stdio has one client; a 2026-07-28 or stateless request has no session), its OAuth subject
 * or client; else every such caller is one.
 */
function callerOf(sessionId: string | undefined, auth: AuthInfo | undefined): string {
  if (sessionId !== undefined) return `session:${sessionId}`;
  const subject = auth?.extra?.subject;
  if (typeof subject === 'string') return `sub:${subject}`;
  return auth === undefined ? '' : `client:${auth.clientId}`;
}
