// A call's first step: its arguments checked (checks.ts) and passed through the tool's
// beforeRequest hook, its Idempotency-Key filled (retry.ts), then, within the call's time limit
// and afresh for a retry, its request built (outgoing.ts) and authorized: the tool's schemes
// (credentials.ts), for the OAuth caller its own token or account (on-behalf.ts), and the global
// beforeRequest hook.

import type { CallToolResult } from '@modelcontextprotocol/server';
import { toolHooks, type OutgoingRequest } from '../hooks-api.js';
import { abortSignalOf, type Cancellation } from './send/call-limit.js';
import { authenticate, buildOutgoing } from './request/outgoing.js';
import { setHeader } from './request/request.js';
import type { AfterResponse } from './answer/response-hooks.js';
import type { Refresh } from './send/retry.js';
import type { ToolSpec } from '../../contract/table.js';
import { failure, type CallContext, type CallServices } from './services.js';
import { hiddenGiven, withDefaults, withHidden } from './request/argument-overrides.js';
import { platform } from '../start/platform.js';

/**
 * A request ready to send; whether a token was fetched for it, and whether a token was
 * exchanged for its caller (a 401 is then worth one fresh try).
 */
export type Prepared = { request: OutgoingRequest; usedTokenFetch: boolean; exchanged: boolean };

/** How to prepare a call's request within its time limit (again for a retry), and the afterResponse hooks its answer passes. */
export interface Ready {
  prepare(limit: Cancellation): Promise<Prepared | { failure: CallToolResult }>;
  hooksAfter: (AfterResponse | undefined)[];
}

/**
 * After a 401, how to prepare the request again with a fresh token (RFC 6750 §3.1: it may have
 * been revoked or expired early): the fetched one forgotten, or the one exchanged for the caller;
 * undefined when the request used no such token, and a 401 is the API's last word.
 */
export function refreshFor(
  services: CallServices,
  prepared: Prepared,
  prepare: () => Promise<Prepared | { failure: CallToolResult }>,
  call: CallContext,
): Refresh | undefined {
  if (!prepared.usedTokenFetch && !prepared.exchanged) return undefined;
  return async () => {
    if (prepared.usedTokenFetch) services.auth.invalidate();
    if (prepared.exchanged && call.caller !== undefined) await (await services.onBehalf?.())?.forget(call.caller);
    return prepare();
  };
}

/** A call's arguments checked, with the hidden ones the server sends (argument-overrides.ts): the arguments it sends, or why they cannot be sent. */
export async function checkCall(
  services: CallServices,
  tool: ToolSpec,
  given: Record<string, unknown>,
): Promise<{ args: Record<string, unknown> } | { problem: string }> {
  const checked = await checkListed(services, tool, given);
  return 'problem' in checked ? checked : withHidden(tool, checked.args, platform().env);
}

/** The arguments the listing shows checked, with the configured defaults of those left out; or why they cannot be sent. */
async function checkListed(
  services: CallServices,
  tool: ToolSpec,
  given: Record<string, unknown>,
): Promise<{ args: Record<string, unknown> } | { problem: string }> {
  const hidden = hiddenGiven(tool, given);
  if (hidden !== undefined) return { problem: `Invalid arguments for ${tool.name}: ${hidden}` };
  const checked = await services.checks.arguments(tool, given);
  if ('problem' in checked) return { problem: `Invalid arguments for ${tool.name}: ${checked.problem}` };
  return { args: withDefaults(tool, checked.args) };
}

/** A call of `tool` made ready to send; or the tool error that stops it. */
export async function prepareCall(
  services: CallServices,
  tool: ToolSpec,
  given: Record<string, unknown>,
  call: CallContext,
): Promise<Ready | { failure: CallToolResult }> {
  const checked = await checkListed(services, tool, given);
  if ('problem' in checked) return failure(checked.problem);
  const { hooks, sending } = services;
  const own = toolHooks(hooks, tool.name);
  // The tool's hook sees the arguments as tool-types.ts types them: the hidden ones come after.
  const hooked = own?.beforeRequest ? ((await own.beforeRequest(checked.args)) ?? checked.args) : checked.args;
  const filled = withHidden(tool, hooked, platform().env);
  if ('problem' in filled) return failure(filled.problem);
  const args = sending.keyed(tool, filled.args);
  const target = services.baseOf(tool);
  if ('problem' in target) return failure(target.problem);
  return {
    prepare: (limit) => prepareRequest(services, tool, args, target.base, call, limit),
    hooksAfter: [own?.afterResponse, hooks.afterResponse],
  };
}

/**
 * A status request of a long-running operation made ready: a GET of `url` as `tool`'s own
 * request when it is on the tool's origin; elsewhere without credentials, static headers or
 * hooks, which are for the API's origin only.
 */
export function prepareStatus(services: CallServices, tool: ToolSpec, url: string, call: CallContext): Ready | { failure: CallToolResult } {
  const { config, hooks } = services;
  const target = services.baseOf(tool);
  if ('problem' in target) return failure(target.problem);
  const request: OutgoingRequest = { tool: tool.name, method: 'GET', url, headers: { accept: 'application/json' } };
  const hooksAfter = [hooks.afterResponse];
  if (new URL(url).origin !== new URL(target.base).origin) {
    return { prepare: async () => ({ request, usedTokenFetch: false, exchanged: false }), hooksAfter };
  }
  for (const [name, value] of config.staticHeaders) setHeader(request.headers, name, value);
  const prepare = (limit: Cancellation) => authorize(services, tool, { ...request, headers: { ...request.headers } }, call, limit);
  return { prepare, hooksAfter };
}

/** The request built and authorized; or the tool error that stops it. */
async function prepareRequest(
  services: CallServices,
  tool: ToolSpec,
  args: Record<string, unknown>,
  base: string,
  call: CallContext,
  signal: Cancellation,
): Promise<Prepared | { failure: CallToolResult }> {
  const built = buildOutgoing(tool, args, base, services.config.staticHeaders);
  if ('problem' in built) return failure(`Invalid arguments for ${tool.name}: ${built.problem}`);
  return authorize(services, tool, built.request, call, signal);
}

/** The request authenticated (for its caller, with OAuth) and passed through the global beforeRequest hook; or the tool error that stops it. */
async function authorize(
  services: CallServices,
  tool: ToolSpec,
  request: OutgoingRequest,
  call: CallContext,
  signal: Cancellation,
): Promise<Prepared | { failure: CallToolResult }> {
  const { onBehalf, hooks } = services;
  // Behind the OAuth gate every call has its caller; without one, the server's own credentials must not stand in.
  if (onBehalf !== undefined && call.caller === undefined) return failure(`${tool.name}: no caller token to act on behalf of`);
  const delegated =
    call.caller !== undefined ? await (await onBehalf?.())?.prepare(tool, call.caller, call.credentials, abortSignalOf(signal)) : undefined;
  if (delegated !== undefined && 'problem' in delegated) return failure(delegated.problem, delegated.link);
  if (delegated?.exchanged !== undefined) call.secrets.push(delegated.exchanged);
  const credentials = delegated?.credentials ?? call.credentials;
  const authenticated = await authenticate(services.auth, tool, request, credentials, signal, delegated?.preferred);
  if ('problem' in authenticated) return failure(authenticated.problem);
  // Over the tool's own arguments and schemes: the caller's identity is not the model's to choose.
  for (const [name, value] of delegated?.headers ?? []) setHeader(request.headers, name, value);
  const sent = hooks.beforeRequest ? ((await hooks.beforeRequest(request)) ?? request) : request;
  return { request: sent, usedTokenFetch: authenticated.usedTokenFetch, exchanged: delegated?.exchanged !== undefined };
}
