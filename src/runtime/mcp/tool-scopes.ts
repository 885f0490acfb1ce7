// Which OAuth scopes each tool needs, when the server is a resource server (--oauth-issuer):
// the scopes the config file's rules wrote into tools.json, else the read scope for a
// read-only tool and the write scope for any other. A caller sees and calls only the tools
// whose every scope its token holds.

import type { AuthInfo } from '@modelcontextprotocol/server';
import { INVOKE } from '../../contract/meta-tools.js';
import type { ToolSpec, ToolTable } from '../../contract/table.js';

export interface ScopePolicy {
  /** The scopes `tool` needs, all of them. */
  required(tool: ToolSpec): readonly string[];
  /** Every scope some tool needs: the metadata's scopes_supported and the 401's `scope`. */
  readonly supported: readonly string[];
  /** Whether a caller holding `auth` may see and call `tool`. */
  allows(tool: ToolSpec, auth: AuthInfo | undefined): boolean;
}

export function scopePolicy(table: ToolTable, defaults: { readScope: string; writeScope: string }): ScopePolicy {
  const required = (tool: ToolSpec): readonly string[] =>
    tool.scopes ?? [tool.annotations.readOnlyHint === true ? defaults.readScope : defaults.writeScope];
  const supported = [...new Set([defaults.readScope, defaults.writeScope, ...table.tools.flatMap((t) => required(t))])];
  return {
    required,
    supported,
    // Without authInfo there is no resource server in front (stdio, or --auth-token): all allowed.
    allows: (tool, auth) => auth === undefined || required(tool).every((s) => auth.scopes.includes(s)),
  };
}

/**
 * The operation a JSON-RPC message calls: a tools/call of the operation, or of invoke_operation
 * naming it. Other messages need only a valid token.
 */
export function callTarget(message: unknown, byName: ReadonlyMap<string, ToolSpec>): ToolSpec | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; arguments?: { name?: unknown } } };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  const named = params.name === INVOKE ? params.arguments?.name : params.name;
  return typeof named === 'string' ? byName.get(named) : undefined;
}
