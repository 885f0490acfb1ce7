// The config file's argument overrides at call time (the table's `hidden` and `defaults`,
// made by mcp-gen's src/model/argument-overrides.ts): a hidden argument is the server's to
// send, never the caller's, and a default is sent when a call leaves its argument out.

import { ownValue, type ToolSpec } from '../../../contract/table.js';

/**
 * Why the call is refused when it gives a hidden argument: the listing never showed it, and
 * a value the operator fixed is not the model's to change.
 */
export function hiddenGiven(tool: ToolSpec, given: Record<string, unknown>): string | undefined {
  const arg = Object.keys(tool.hidden ?? {}).find((name) => Object.hasOwn(given, name));
  return arg === undefined ? undefined : `argument "${arg}" is set by the server's configuration; leave it out`;
}

/** The checked arguments with the defaults of those a call left out: what the tool's hooks see (tool-types.ts types them so). */
export function withDefaults(tool: ToolSpec, args: Record<string, unknown>): Record<string, unknown> {
  if (tool.defaults === undefined) return args;
  const filled = { ...args };
  for (const [arg, value] of Object.entries(tool.defaults)) if (ownValue(filled, arg) === undefined) filled[arg] = value;
  return filled;
}

/**
 * The arguments with every hidden argument's value (an environment variable's read now); or why
 * the call cannot be sent, naming the variable that is not set (never a value).
 */
export function withHidden(
  tool: ToolSpec,
  args: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): { args: Record<string, unknown> } | { problem: string } {
  if (tool.hidden === undefined) return { args };
  const filled = { ...args };
  for (const [arg, hidden] of Object.entries(tool.hidden)) {
    if ('value' in hidden) {
      filled[arg] = hidden.value;
      continue;
    }
    const text = env[hidden.env];
    if (text === undefined || text === '') {
      return {
        problem: `${tool.name}: argument "${arg}" takes its value from the environment variable ${hidden.env}, which is not set on this server`,
      };
    }
    filled[arg] = text;
  }
  return { args: filled };
}
