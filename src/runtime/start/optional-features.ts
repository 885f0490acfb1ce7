// Whether a table, with its settings, uses one of the optional features: asked when the table
// is loaded, so that a feature's module (confirm.ts, long-running.ts, tasks.ts) is imported then
// only when something uses it, and a plain table never loads it.

import type { ConfirmSetting, ServerConfig } from './config.js';
import type { ToolSpec, ToolTable } from '../../contract/table.js';
import { EXECUTE, INVOKE, OPERATION_STATUS } from '../../contract/meta-tools.js';

/** Whether a call of `tool` waits for the user's yes: its own `confirm` first, else the setting. */
export function needsConfirmation(tool: ToolSpec, setting: ConfirmSetting): boolean {
  if (tool.confirm !== undefined) return tool.confirm;
  if (setting === 'destructive') return tool.annotations.destructiveHint === true;
  if (setting === 'writes') return tool.annotations.readOnlyHint !== true;
  return false;
}

/** Whether any call of the table may wait for the user's yes: 2025 sessions then answer calls on a stream, where the question travels. */
export function mayConfirm(table: ToolTable, setting: ConfirmSetting): boolean {
  return table.tools.some((tool) => needsConfirmation(tool, setting));
}

/** Whether some call of the table may follow an operation (and tell its progress on the call's own stream). */
export const followsOperations = (table: ToolTable): boolean => table.tools.some((t) => t.longRunning !== undefined);

/** Whether some call of the table reads a streamed answer (and tells its progress on the call's own stream). */
export const readsStreams = (table: ToolTable): boolean => table.tools.some((t) => t.sequence !== undefined);

/**
 * Whether a request (a JSON-RPC message, or a batch) may have the server send the client
 * something before its result, on the call's own stream: a tools/call that may wait for the
 * user's yes, or that follows an operation or reads a streamed answer for a client that asked
 * for progress (a progressToken). invoke_operation by the operation it names; a code-mode program by what any
 * operation may do. Every other request is answered in one piece.
 */
export function streamsMidCall(table: ToolTable, setting: ConfirmSetting): (message: unknown) => boolean {
  const byName = new Map(table.tools.map((tool) => [tool.name, tool]));
  const anyConfirms = mayConfirm(table, setting);
  const anyFollows = followsOperations(table) || readsStreams(table);
  const mayTalk = (tool: ToolSpec | undefined, progress: boolean) =>
    tool !== undefined &&
    (needsConfirmation(tool, setting) || (progress && (tool.longRunning !== undefined || tool.sequence !== undefined)));
  const one = (message: unknown): boolean => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') return false;
    const progress = (params._meta as { progressToken?: unknown } | undefined)?.progressToken !== undefined;
    if (params.name === OPERATION_STATUS) return progress;
    if (params.name === EXECUTE) return anyConfirms || (progress && anyFollows);
    if (params.name === INVOKE) return mayTalk(byName.get(String((params.arguments as { name?: unknown } | undefined)?.name)), progress);
    return mayTalk(byName.get(params.name), progress);
  };
  return (message) => (Array.isArray(message) ? message.some(one) : one(message));
}

/**
 * Whether any call may first ask the client to open a link (linking the user's API account,
 * oauth/upstream-accounts/link.ts): with --oauth-api-client-id under another authorization server. Every
 * tools/call of a 2025 session is then answered on its own stream, where the question travels.
 */
export function linksAccounts(config: Pick<ServerConfig, 'oauth'>): boolean {
  return config.oauth?.signIn !== undefined && config.oauth.tokenCheck !== 'self';
}

/** Whether a request, or a batch, has a tools/call. */
export function callsATool(message: unknown): boolean {
  return Array.isArray(message) ? message.some(callsATool) : (message as { method?: unknown } | null)?.method === 'tools/call';
}
