// Whether a table, with its settings, uses one of the optional features: asked when the table
// is loaded, so that a feature's module (confirm.ts, long-running.ts, tasks.ts) is imported then
// only when something uses it, and a plain table never loads it.

import type { ConfirmSetting } from './config.js';
import type { ToolSpec, ToolTable } from '../contract/table.js';

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
