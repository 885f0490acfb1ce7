// The tools a server answers besides the operations: toolsets mode's list_toolsets and
// enable_toolset, and dynamic mode's search, describe and invoke. One table per server instance
// maps each meta-tool's name to its call, so that tools/call dispatches all of them one way.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Invoke } from '../confirm/confirm.js';
import { callMetaTool, type MetaContext } from './operation-index.js';
import { EXECUTE, INVOKE, SEARCH, SEARCH_API } from '../../contract/meta-tools.js';
import { toolError } from './output.js';
import type { ListedTool } from '../../contract/profiles.js';
import type { SandboxLimits } from '../code-mode/sandbox.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../contract/table.js';
import { ENABLE_TOOLSET, LIST_TOOLSETS, toolsetSizes, withNested } from '../../contract/toolsets.js';

/** What one meta-tool call may use of the request it came in: invoke_operation calls an operation with it. */
export interface MetaRequest {
  /**
   * Calls an operation, its answer held to no outputSchema (none is advertised for it here),
   * once the user said yes where it needs that (confirm.ts); with a ProgramCall, from a code-mode program.
   */
  invoke: Invoke;
  /** Who calls (a session, an OAuth subject or client): code mode's pool shares its workers fairly among callers. */
  caller: string;
  /** Whether the caller may see and call an operation (its token's scopes). */
  visible(tool: ToolSpec): boolean;
  /** The request's cancellation: code mode's program stops with it. */
  signal: AbortSignal;
}

export type MetaCall = (args: Record<string, unknown>, request: MetaRequest) => Promise<CallToolResult>;

/** Toolsets on demand, in a session: what list_toolsets and enable_toolset read and change. */
export interface ToolsetSession {
  table: ToolTable;
  /** The toolsets this session has enabled. */
  enabled: Set<string>;
  /** How many of the table's tools the session lists now to a caller who sees `visible`. */
  listedTools(visible: (tool: ToolSpec) => boolean): number;
  /** How many meta-tools are listed beside them. */
  metaTools: number;
  /** The most tools some clients accept (CLIENT_TOOL_CAP in src/contract/limits.ts): enabling past it warns. */
  toolCap: number;
  /** Tells the client that the tool list changed. */
  listChanged(): Promise<void>;
}

export interface MetaTools {
  /** Toolsets mode: a session, or `sessionless` for a request that cannot keep enabled toolsets. */
  toolsets?: ToolsetSession | 'sessionless';
  /** Dynamic or code mode's tools with what their calls need, but the request. */
  operations?: { tools: ListedTool[]; context: OperationsContext };
}

/** What dynamic and code mode's tools need of the server, whatever the request. */
type OperationsContext = Omit<MetaContext, 'invoke' | 'visible'> & {
  /** Code mode: the answer's whole schema, with every `$defs` entry it reaches, when the spec documents a JSON answer. */
  outputSchema(tool: ToolSpec): JsonSchema | undefined;
  codeLimits: SandboxLimits;
};

/** Every meta-tool this server instance answers, by name. */
export function metaCalls(served: MetaTools): ReadonlyMap<string, MetaCall> {
  const calls = new Map<string, MetaCall>();
  if (served.toolsets === 'sessionless') {
    for (const name of [LIST_TOOLSETS, ENABLE_TOOLSET]) calls.set(name, async () => toolError(noSession(name)));
  } else if (served.toolsets) {
    const session = served.toolsets;
    calls.set(LIST_TOOLSETS, async (_args, request) => toolsetList(session.table, session.enabled, request.visible));
    calls.set(ENABLE_TOOLSET, (args, request) =>
      enableToolset(session, typeof args.toolset === 'string' ? args.toolset : '', request.visible),
    );
  }
  if (served.operations) {
    const { tools, context } = served.operations;
    for (const tool of tools) {
      const code = tool.name === SEARCH_API || tool.name === EXECUTE;
      calls.set(tool.name, async (args, request) => {
        const full = { ...context, invoke: request.invoke, visible: request.visible };
        if (!code) return callMetaTool(tool, args, full);
        // Code mode's module (and, on the first execute, the sandbox) load only when used.
        const { callCodeTool } = await import('../code-mode/code-mode.js');
        return callCodeTool(tool, args, { ...full, limits: context.codeLimits, signal: request.signal, caller: request.caller });
      });
    }
  }
  return calls;
}

/** Why list_toolsets and enable_toolset fail in a request without a session. */
const noSession = (name: string) =>
  `${name} needs a session, and this request has none (a 2026-07-28 request, or a server started with --stateless): ` +
  `enabled toolsets could not outlast it. Find operations with ${SEARCH} and call them with ${INVOKE}.`;

/**
 * The tools of each toolset the caller may see (its token's scopes), as tools/list will show
 * them; a toolset with none is left out.
 */
const visibleSizes = (table: ToolTable, visible: (tool: ToolSpec) => boolean) =>
  toolsetSizes({ ...table, tools: table.tools.filter(visible) });

function toolsetList(table: ToolTable, enabled: Set<string>, visible: (tool: ToolSpec) => boolean): CallToolResult {
  const toolsets = [...visibleSizes(table, visible)].map(([name, tools]) => ({ name, tools, enabled: enabled.has(name) }));
  const text = toolsets.map((t) => `${t.name}: ${t.tools} tools${t.enabled ? ' (enabled)' : ''}`).join('\n');
  return { content: [{ type: 'text', text }], structuredContent: { toolsets } };
}

/** Enables a toolset for the session; says the list changed only when it did. */
async function enableToolset(session: ToolsetSession, wanted: string, visible: (tool: ToolSpec) => boolean): Promise<CallToolResult> {
  const sizes = visibleSizes(session.table, visible);
  if (!sizes.has(wanted)) {
    if (!toolsetSizes(session.table).has(wanted)) return toolError(`No toolset named ${JSON.stringify(wanted)}; see ${LIST_TOOLSETS}`);
    return toolError(`Toolset ${wanted} has no tool the scopes of your token allow; see ${LIST_TOOLSETS}`);
  }
  const before = session.listedTools(visible);
  for (const name of withNested(session.table, [wanted])) session.enabled.add(name);
  const count = session.listedTools(visible);
  if (count === before) {
    return {
      content: [{ type: 'text', text: `Toolset ${wanted} was already listed (${sizes.get(wanted)} tools); the tool list is unchanged.` }],
    };
  }
  await session.listChanged().catch(() => undefined);
  const total = count + session.metaTools;
  const cap = total > session.toolCap ? ` ${total} tools are now listed: some clients refuse more than ${session.toolCap}.` : '';
  return {
    content: [{ type: 'text', text: `Toolset ${wanted} is enabled: ${sizes.get(wanted)} tools; the tool list has changed.${cap}` }],
  };
}
