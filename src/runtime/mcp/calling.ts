// tools/call, in the order a call is decided: get_operation_status, a meta-tool (by the
// dispatch table of meta-dispatch.ts), or one of the table's tools, which is known to this
// caller, confirmed by the user when it must be, then run as a task when the client asks or
// by the executor, with an upstream account linked first when the API asks for one.

import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type AuthInfo,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { linkRequiredOf } from '../call/answer/link-mark.js';
import type { Asking, Invoke } from '../confirm/confirm.js';
import { progressOf, type Progress } from './progress.js';
import { EXECUTE, INVOKE, OPERATION_STATUS } from '../../contract/meta-tools.js';
import type { MetaCall } from './meta-dispatch.js';
import { toolError } from './output.js';
import { clientCapabilitiesOf } from './apps-gate.js';
import { observed } from '../observe/observe.js';
import { listsOutputSchema } from '../../contract/profiles.js';
import type { ToolSpec } from '../../contract/table.js';
import { ENABLE_TOOLSET, toolsetOf } from '../../contract/toolsets.js';
import { didYouMean } from '../../contract/did-you-mean.js';
import type { RequestCredentials } from '../call/request/credentials.js';
import type { InstanceTools, TableTools } from './table-tools.js';

/** One tools/call request, with what every step of it reads. */
interface ToolCall {
  tools: TableTools;
  instance: InstanceTools;
  server: Server;
  request: CallToolRequest;
  ctx: ServerContext;
  args: Record<string, unknown>;
  auth: AuthInfo | undefined;
  progress: Progress | undefined;
}

/** The outputSchema a tool's answer is projected against: the one tools/list advertised, if any. */
type OutputSchema = ReturnType<TableTools['executor']['outputSchema']>;

/** Answers tools/call on one instance, observed (spans, the call log) around the whole call. */
export function serveCalling(tools: TableTools, instance: InstanceTools): void {
  const known = (name: string) =>
    tools.byName.has(name) || instance.metaCalls.has(name) || (name === OPERATION_STATUS && tools.statusTools.length > 0);
  instance.server.setRequestHandler(
    'tools/call',
    observed(tools.observer, instance.server, known, (request, ctx) => callTool(toolCall(tools, instance, request, ctx))),
  );
}

function toolCall(tools: TableTools, instance: InstanceTools, request: CallToolRequest, ctx: ServerContext): ToolCall {
  const args = request.params.arguments ?? {};
  const progress = tools.tellsProgress ? progressOf(ctx) : undefined;
  return { tools, instance, server: instance.server, request, ctx, args, auth: ctx.http?.authInfo, progress };
}

async function callTool(call: ToolCall) {
  const { tools, instance, request, args, server } = call;
  const name = request.params.name;
  if (name === OPERATION_STATUS && tools.statusTools.length > 0) return operationStatus(call);
  const meta = instance.metaCalls.get(name);
  if (meta) return callMetaTool(call, meta);
  const tool = servedTool(call, name);
  if (tools.confirmations?.needed(tool)) {
    const asked = await tools.confirmations.before(tool, args, asking(call));
    if (asked !== undefined) return asked;
  }
  const outputSchema = listsOutputSchema(tools.options.profile) ? tools.executor.outputSchema(tool) : undefined;
  const started = await startTask(call, tool, outputSchema);
  if (started) return started;
  const result = await execute(call, tool, args, outputSchema !== undefined);
  const link = linkRequiredOf(result);
  if (link !== undefined) {
    const again = async () => server.projectCallToolResult(await execute(call, tool, args, outputSchema !== undefined), outputSchema);
    const { answerLinkRequired } = await import('../oauth/upstream-accounts/link-required.js');
    return answerLinkRequired(link, result, call.ctx, clientCapabilitiesOf(server, call.ctx), again);
  }
  return withView(call, tool, server.projectCallToolResult(result, outputSchema));
}

/** The result with what its MCP Apps view needs, for a client that declares the extension (apps-gate.ts). */
async function withView(call: ToolCall, tool: ToolSpec, result: CallToolResult, via?: string): Promise<CallToolResult> {
  const views = await call.tools.apps.viewsFor(call.server, call.ctx);
  return views ? views.withViewData(result, tool, via) : result;
}

/** A tool call by the executor. A failure inside a call is the tool's failure (isError), never the connection's. */
function execute(
  call: ToolCall,
  tool: ToolSpec,
  toolArgs: Record<string, unknown>,
  advertised: boolean,
  whole = false,
): Promise<CallToolResult> {
  const { executor } = call.tools;
  return executor
    .call(tool, toolArgs, call.ctx.mcpReq.signal, credentialsOf(call), { advertised, caller: call.auth, progress: call.progress, whole })
    .catch((error: unknown) => toolError(`${tool.name} failed: ${(error as Error)?.message ?? String(error)}`));
}

function credentialsOf(call: ToolCall): RequestCredentials {
  return call.tools.readCredentials(call.ctx.http?.req?.headers);
}

/** get_operation_status: the executor resumes following the operation its handle names. */
async function operationStatus(call: ToolCall): Promise<CallToolResult> {
  const handle = typeof call.args.handle === 'string' ? call.args.handle : '';
  const options = { caller: call.auth, progress: call.progress };
  const result = await call.tools.executor.resume(handle, call.ctx.mcpReq.signal, credentialsOf(call), options);
  return call.server.projectCallToolResult(result, undefined);
}

/** What a confirmation question needs of the request. */
function asking(call: ToolCall): Asking {
  return { ctx: call.ctx, capabilities: clientCapabilitiesOf(call.server, call.ctx), credentials: credentialsOf(call) };
}

/** A meta-tool, whose operation calls go through the confirmations as direct calls do. */
async function callMetaTool(call: ToolCall, meta: MetaCall) {
  const { confirmations, visible } = call.tools;
  // The operation's outputSchema is not advertised here, so its answer needs no projection against it.
  // A program's api call is read whole by the program: the answer budget is for what reaches the model.
  const invoke: Invoke = async (t, given, program) =>
    call.server.projectCallToolResult(await execute(call, t, given, false, program !== undefined), undefined);
  const guarded = confirmations?.guard(() => asking(call), invoke) ?? invoke;
  const caller = callerOf(call.ctx.sessionId, call.auth);
  const request = { invoke: guarded, visible: (t: ToolSpec) => visible(t, call.auth), signal: call.ctx.mcpReq.signal, caller };
  const result = await meta(call.args, request);
  const asked = confirmations?.questionOf(result);
  if (asked) return asked;
  if (call.request.params.name === EXECUTE) return withProgramView(call, result);
  const ran = call.request.params.name === INVOKE ? call.tools.byName.get(String(call.args.name)) : undefined;
  return ran ? withView(call, ran, result, INVOKE) : result;
}

/** An execute result for its MCP Apps view, for a client that declares the extension. */
async function withProgramView(call: ToolCall, result: CallToolResult): Promise<CallToolResult> {
  const views = await call.tools.apps.viewsFor(call.server, call.ctx);
  return views && !result.isError ? views.withProgramData(result) : result;
}

/** The table's tool by that name, if this instance serves it and the caller may see it; else the call is an unknown tool's. */
function servedTool(call: ToolCall, name: string): ToolSpec {
  const tool = call.tools.byName.get(name);
  // HTTP answers a tool outside the token's scopes with 403 before this (oauth.ts); here it is unknown.
  if (tool && call.instance.served(tool) && call.tools.visible(tool, call.auth)) return tool;
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}${tool ? reach(call, tool) : typoOf(call, name)}`);
}

/** How to reach an operation that is served but not listed: through its toolset or invoke_operation. */
function reach(call: ToolCall, tool: ToolSpec): string {
  if (call.instance.onDemand) return `; enable its toolset with ${ENABLE_TOOLSET} ${JSON.stringify({ toolset: toolsetOf(tool) })}`;
  return call.instance.operationCalls ? `; call it through ${call.tools.options.mode === 'code' ? EXECUTE : INVOKE}` : '';
}

/** The nearest tool name this caller may call, for a name that is none (only on this error path: it walks the table). */
function typoOf(call: ToolCall, name: string): string {
  const { table, visible } = call.tools;
  const callable = table.tools.filter((t) => call.instance.served(t) && visible(t, call.auth)).map((t) => t.name);
  return didYouMean(name, callable, (found) => JSON.stringify(found));
}

/**
 * A long-running or streaming call as a task, when the client asks for one; undefined to call it
 * now. The task's lifetime, not --timeout, bounds it.
 */
function startTask(call: ToolCall, tool: ToolSpec, outputSchema: OutputSchema) {
  const { tasks, executor } = call.tools;
  if (!tasks?.eligible(tool)) return undefined;
  // The tasks extension is asked for per request (2026-07-28's envelope), never by a 2025 session's initialize.
  const envelope = call.ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const task = tasks.requested(call.request.params, envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined);
  if (!task) return undefined;
  const credentials = credentialsOf(call);
  return tasks.store.start(tasks.ownerOf(call.auth, credentials), task, async (signal, waitMs) => {
    const options = { advertised: outputSchema !== undefined, caller: call.auth, operationWaitMs: waitMs, lifetimeMs: waitMs };
    return call.server.projectCallToolResult(await executor.call(tool, call.args, signal, credentials, options), outputSchema);
  });
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
