// Sending a call's request and reading the answer: one time limit over the whole exchange,
// the body read up to --max-response-bytes, and a failure to get an answer said in words the
// model can act on.

import type { UpstreamAnswer } from './response.js';
import { readLimited, RedirectError, type UpstreamResponse } from './upstream.js';

/** How messages name a request: `METHOD url-without-query` (a query string can carry secrets), and that URL. */
export function requestLabel(request: { method: string; url: string }): { label: string; uri: string } {
  const target = new URL(request.url);
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
 * The call's time limit and the client's cancellation as one signal, from one controller:
 * AbortSignal.any over AbortSignal.timeout makes three signals per call and keeps its timer
 * alive after the answer. `done` ends the limit once the answer is read.
 */
export function deadline(cancel: AbortSignal, ms: number): { signal: AbortSignal; endsAt: number; timedOut(): boolean; done(): void } {
  const controller = new AbortController();
  const endsAt = Date.now() + ms;
  let timedOut = false;
  const timer = expiries.add(ms, () => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  });
  const onCancel = () => controller.abort(cancel.reason);
  if (cancel.aborted) onCancel();
  else cancel.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    endsAt,
    timedOut: () => timedOut,
    done() {
      timer.cancelled = true;
      cancel.removeEventListener('abort', onCancel);
    },
  };
}

interface Expiry {
  at: number;
  fire: () => void;
  cancelled: boolean;
}

/**
 * The calls' time limits, one queue and one timer per duration: a limit set and cleared with a
 * timer of its own on every call costs more CPU than the rest of the limit. Limits of one
 * duration expire in the order they were set, so each queue is in order, and its timer waits
 * for the first limit still running. The timer does not keep the process alive: a call in
 * flight has its socket for that.
 */
class Expiries {
  private readonly queues = new Map<number, { entries: Expiry[]; timer?: NodeJS.Timeout }>();

  add(ms: number, fire: () => void): Expiry {
    let queue = this.queues.get(ms);
    if (queue === undefined) this.queues.set(ms, (queue = { entries: [] }));
    const entry: Expiry = { at: performance.now() + ms, fire, cancelled: false };
    // Ended limits leave the front as soon as the next one is set: a busy queue stays short.
    while (queue.entries[0]?.cancelled) queue.entries.shift();
    queue.entries.push(entry);
    if (queue.timer === undefined) this.arm(ms, queue);
    return entry;
  }

  private arm(ms: number, queue: { entries: Expiry[]; timer?: NodeJS.Timeout }): void {
    while (queue.entries[0]?.cancelled) queue.entries.shift();
    const first = queue.entries[0];
    if (first === undefined) {
      queue.timer = undefined;
      return;
    }
    queue.timer = setTimeout(() => this.expire(ms, queue), Math.max(0, first.at - performance.now())).unref();
  }

  private expire(ms: number, queue: { entries: Expiry[]; timer?: NodeJS.Timeout }): void {
    const now = performance.now();
    for (let first = queue.entries[0]; first !== undefined && (first.cancelled || first.at <= now); first = queue.entries[0]) {
      queue.entries.shift();
      if (!first.cancelled) first.fire();
    }
    this.arm(ms, queue);
  }
}

const expiries = new Expiries();

/** Why no answer came: the pacing, the time limit, the client, a redirect refused, an internal address, or the network. */
export function networkFailure(error: unknown, label: string, timedOut: boolean, signal: AbortSignal, timeoutMs: number): string {
  // pacing.ts's PacingError, which says why better than the time limit it ran into
  if ((error as { code?: string }).code === 'EPACING') return `${label}: not sent: ${(error as Error).message}`;
  if (timedOut) return `${label}: no answer within ${timeoutMs} ms (timeout; raise it with --timeout)`;
  if (signal.aborted) return `${label}: cancelled by the client`;
  if (error instanceof RedirectError) return `${label}: not followed: ${error.message}`;
  // addresses.ts's InternalAddressError, known by its code: that module loads only when needed
  if ((error as { code?: string }).code === 'EINTERNAL') {
    return `${label}: not sent: ${(error as Error).message}, where the servers of a spec loaded from a URL may not take calls; choose the upstream with --base-url (API_BASE_URL)`;
  }
  // node:http errors carry their code (ECONNREFUSED); fetch's carry it in their cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? (error as { code?: string }).code ?? cause?.message ?? (error as Error).message ?? String(error);
  return `${label}: request failed (${reason})`;
}

/** ECONNREFUSED, TimeoutError, AbortError…: what made a request fail, without the message (it names the URL). */
export function failureCode(error: unknown): string {
  const failure = error as { code?: unknown; name?: string; cause?: { code?: unknown } } | undefined;
  const code = failure?.cause?.code ?? failure?.code;
  return typeof code === 'string' ? code : (failure?.name ?? 'Error');
}
