// Sending a call's request and reading the answer: one time limit over the whole exchange,
// the body read up to --max-response-bytes, and a failure to get an answer said in words the
// model can act on.

import type { UpstreamAnswer } from '../answer/response.js';
import { CallLimit } from './call-limit.js';
import { readLimited, RedirectError, urlOf } from './upstream.js';
import type { UpstreamResponse } from './upstream-response.js';

/** How messages name a request: `METHOD url-without-query` (a query string can carry secrets), and that URL. */
export function requestLabel(request: { method: string; url: string }): { label: string; uri: string } {
  const target = urlOf(request);
  const uri = target.origin + target.pathname;
  return { label: `${request.method} ${uri}`, uri };
}

/** The upstream's answer as a tool result is made from it: at most `maxBytes` of its body. */
export async function readAnswer(
  response: UpstreamResponse,
  named: { label: string; uri: string },
  maxBytes: number,
): Promise<UpstreamAnswer> {
  const { bytes, truncated } = await readLimited(response, maxBytes);
  const declared = Number(response.header('content-length'));
  const link = response.header('link');
  return {
    status: response.status,
    statusText: response.statusText,
    contentType: response.header('content-type') ?? '',
    bytes,
    truncated,
    ...(Number.isFinite(declared) && declared > 0 ? { declaredLength: declared } : {}),
    ...(link ? { link } : {}),
    label: named.label,
    uri: named.uri,
  };
}

/**
 * The call's time limit and the client's cancellation as one: aborted at the limit with a
 * TimeoutError, or with the client's reason. `done` ends it once the answer is read.
 */
export function deadline(cancel: AbortSignal, ms: number): CallLimit {
  return new CallLimit(cancel, ms);
}

/**
 * Why no answer came: the pacing, the time limit, the client, a redirect refused, an internal
 * address, or the network. `upstreamSetting` chooses the tool's upstream: `--base-url
 * (API_BASE_URL)`, or its API's `<NAMESPACE>_BASE_URL` in a server of several.
 */
export function networkFailure(
  error: unknown,
  label: string,
  timedOut: boolean,
  signal: AbortSignal,
  timeoutMs: number,
  upstreamSetting = '--base-url (API_BASE_URL)',
): string {
  // pacing.ts's PacingError, which says why better than the time limit it ran into
  if ((error as { code?: string }).code === 'EPACING') return `${label}: not sent: ${(error as Error).message}`;
  if (timedOut) return `${label}: no answer within ${timeoutMs} ms (timeout; raise it with --timeout)`;
  if (signal.aborted) return `${label}: cancelled by the client`;
  if (error instanceof RedirectError) return `${label}: not followed: ${error.message}`;
  // addresses.ts's InternalAddressError, known by its code: that module loads only when needed
  if ((error as { code?: string }).code === 'EINTERNAL') {
    return `${label}: not sent: ${(error as Error).message}, where the servers of a spec loaded from a URL may not take calls; choose the upstream with ${upstreamSetting}`;
  }
  // node:http errors carry their code (ECONNREFUSED); fetch's carry it in their cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? (error as { code?: string }).code ?? cause?.message ?? (error as Error).message ?? String(error);
  return `${label}: request failed (${reason})`;
}
