// The mark on a tool error whose caller must link an API account first (--oauth-api-client-id):
// set by the executor, read by server.ts on every call's result, which then loads links.ts to
// ask the client to open the link. A call without the mark loads nothing of it.

import type { CallToolResult } from '@modelcontextprotocol/server';

export interface LinkRequired {
  url: string;
  message: string;
  /** Whether the caller's account is linked now. */
  linked(): Promise<boolean>;
}

const required = new WeakMap<CallToolResult, LinkRequired>();

export function markLinkRequired(result: CallToolResult, link: LinkRequired): CallToolResult {
  required.set(result, link);
  return result;
}

/** The same mark on the result made from `from` (redacted, projected). */
export function keepLink(from: CallToolResult, to: CallToolResult): CallToolResult {
  const link = required.get(from);
  return link === undefined ? to : markLinkRequired(to, link);
}

export function linkRequiredOf(result: CallToolResult): LinkRequired | undefined {
  return required.get(result);
}
