// The request a call makes, before it is sent: where it goes (the base URL), what it carries
// (the tool's arguments placed by request.ts, the operator's static headers), and the
// credentials of the tool's security schemes.

import type { Authenticator, RequestCredentials } from './credentials.js';
import type { Cancellation } from '../send/call-limit.js';
import type { OutgoingRequest } from '../../hooks-api.js';
import { buildRequest, getHeader, setHeader } from './request.js';
import { ArgumentError } from '../../../contract/argument-error.js';
import { unsendableHeader } from '../../../contract/headers.js';
import { resolveServerUrl } from '../../../contract/server-url.js';
import { ownValue, type ToolSpec, type ToolTable } from '../../../contract/table.js';

/** The base URL of operations without servers of their own: --base-url, else the API's first server. */
export function apiBase(table: ToolTable, configured: string | undefined): string {
  return configured ?? (table.servers[0] ? resolveServerUrl(table.servers[0]) : '');
}

/** Where a tool's request goes: --base-url, else the operation's own server, else the API's; or why nowhere. */
export function upstreamBase(
  tool: ToolSpec,
  configured: string | undefined,
  api: string,
  variable = 'API_BASE_URL',
): { base: string } | { problem: string } {
  const base = configured ?? (tool.http.servers?.[0] ? resolveServerUrl(tool.http.servers[0]) : api);
  if (/^https?:\/\//i.test(base)) return { base };
  const remedy = variable === 'API_BASE_URL' ? 'start the server with --base-url or set API_BASE_URL' : `set ${variable}`;
  return { problem: `${tool.name}: no upstream base URL${base ? ` (the spec's server "${base}" is relative)` : ''}; ${remedy}` };
}

/**
 * Where each tool's request goes. A tool of one of several APIs (ToolTable.apis) goes to its
 * API's `<NAMESPACE>_BASE_URL`, else --base-url, else its operation's or its API's own server.
 */
export function upstreamBases(
  table: ToolTable,
  configured: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): (tool: ToolSpec) => { base: string } | { problem: string } {
  const single = apiBase(table, configured);
  const perApi = new Map(
    Object.entries(table.apis ?? {}).map(([namespace, api]) => {
      const own = env[api.baseUrlEnv] || configured;
      return [
        namespace,
        { configured: own, base: own ?? (api.servers[0] ? resolveServerUrl(api.servers[0]) : ''), variable: api.baseUrlEnv },
      ];
    }),
  );
  return (tool) => {
    const api = tool.api === undefined ? undefined : perApi.get(tool.api);
    return api === undefined ? upstreamBase(tool, configured, single) : upstreamBase(tool, api.configured, api.base, api.variable);
  };
}

/**
 * The request for checked arguments, with the static headers (--header, API_HEADERS) under the
 * tool's own header arguments; or why the arguments cannot be sent (an argument problem).
 */
export function buildOutgoing(
  tool: ToolSpec,
  args: Record<string, unknown>,
  base: string,
  staticHeaders: [string, string][],
): { request: OutgoingRequest } | { problem: string } {
  try {
    const chosen = tool.http.body?.contentTypeArg ? ownValue(args, tool.http.body.contentTypeArg) : undefined;
    const options = typeof chosen === 'string' ? { contentType: chosen } : {};
    const request: OutgoingRequest = { tool: tool.name, ...buildRequest(tool.http, args, base, options) };
    for (const [name, value] of staticHeaders) if (getHeader(request.headers, name) === undefined) setHeader(request.headers, name, value);
    return { request };
  } catch (error) {
    if (error instanceof ArgumentError) return { problem: error.message };
    throw error;
  }
}

/**
 * Applies the tool's security schemes to the request, over any header of the same name:
 * whether a token was fetched for it (a 401 is then worth one fresh try), or why it cannot go.
 */
export async function authenticate(
  auth: Authenticator,
  tool: ToolSpec,
  request: OutgoingRequest,
  credentials: RequestCredentials,
  signal: Cancellation,
  preferred?: ReadonlySet<string>,
): Promise<{ usedTokenFetch: boolean } | { problem: string }> {
  const outcome = await auth.apply(tool, request, credentials, signal, preferred);
  if (!outcome.ok) return { problem: outcome.message };
  // A scheme of a hand-edited tools.json may put a client's value (--auth-from-headers) where no header can carry it.
  const unsendable = unsendableHeader(request.headers);
  if (unsendable !== undefined) return { problem: `${tool.name}: ${unsendable}` };
  return { usedTokenFetch: outcome.usedTokenFetch };
}
