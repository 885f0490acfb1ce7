// Retries that respect the API. A request that can safely be sent twice (RFC 9110 §9.2.2: GET,
// HEAD, PUT, DELETE, OPTIONS; a POST or PATCH only with the Idempotency-Key its operation
// declares, the same key on every try) is tried again after a connection failure or a 429,
// 502, 503 or 504: after the API's Retry-After when it sends one, else after an exponential
// backoff with full jitter. No wait runs past the call's time limit: then the last answer goes
// back with a sentence saying how long the API asked to wait. A 401 to a request whose token
// was fetched or exchanged is sent once more with a fresh one (RFC 6750 §3.1). Every try passes
// the pacing (pacing.ts) and is its own send, so that each is logged and traced (middleware.ts).

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Cancellation } from './call-limit.js';
import type { OutgoingRequest } from '../../hooks-api.js';
import type { Logger } from '../../start/log.js';
import { createPacer, duration, pacedBy, sleep, type PacingLimits, type Rate } from './pacing.js';
import type { ApiSending } from '../../start/api-settings.js';
import { composeSend, type OnWait, type SendMiddleware, type SendOne } from './middleware.js';
import { getHeader } from '../request/request.js';
import type { UpstreamResponse } from './upstream-response.js';
import type { ToolSpec } from '../../../contract/table.js';

export interface RetryPolicy {
  /** Tries in all, the first included: 1 = no retry. */
  attempts: number;
  /** The first backoff's ceiling; each next one doubles it, up to capMs. */
  baseMs: number;
  capMs: number;
}

/** 250 ms, 500 ms, 1 s…: quick enough for a blip, slow enough not to hammer an API that is struggling. */
export const BACKOFF = { baseMs: 250, capMs: 10_000 } as const;

/** RFC 9110 §9.2.2, and QUERY (draft-ietf-httpbis-safe-method-w-body §2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'QUERY']);
/** Methods retried only with an Idempotency-Key. */
const KEYED_METHODS = new Set(['POST', 'PATCH']);
/** Too many requests, and a gateway or the service saying the failure is passing (RFC 6585 §4, RFC 9110 §15.6). */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
/**
 * The connection failed under the request: reset (a socket hang-up is node's ECONNRESET),
 * refused, broken or unreachable; fetch (undici) reports its own socket failure. Never our own
 * time limit or the client's cancellation, which abort the call's signal.
 */
const CONNECTION_FAILURES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** How long Retry-After (RFC 9110 §10.2.3) asks to wait, in ms from `now`: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(httpDate(text) ?? '');
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** An HTTP-date in one of its three forms (RFC 9110 §5.6.7), written as Date.parse reads it in GMT. */
function httpDate(text: string): string | undefined {
  if (/^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i.test(text)) return text;
  if (/^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i.test(text)) return text;
  // asctime carries no zone, and is GMT.
  if (/^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i.test(text)) return `${text} GMT`;
  return undefined;
}

/** Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): anywhere from 0 to min(cap, base · 2^(retry−1)). */
export function backoffMs(retry: number, policy: Pick<RetryPolicy, 'baseMs' | 'capMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/** Whether the request may be sent again: an idempotent method, or a POST/PATCH that carries its operation's Idempotency-Key. */
export function mayRetry(tool: ToolSpec, request: Pick<OutgoingRequest, 'method' | 'headers'>): boolean {
  const method = request.method.toUpperCase();
  if (IDEMPOTENT.has(method)) return true;
  const key = tool.http.idempotencyKey;
  return KEYED_METHODS.has(method) && key !== undefined && getHeader(request.headers, key) !== undefined;
}

type Outcome = { response: UpstreamResponse } | { error: unknown };

/** Why this try is worth another: the status or the connection failure; undefined when it is not. */
function retryReason(outcome: Outcome, signal: Cancellation): string | undefined {
  if ('response' in outcome) return RETRIED_STATUSES.has(outcome.response.status) ? `HTTP ${outcome.response.status}` : undefined;
  if (signal.aborted) return undefined;
  const error = outcome.error as { code?: string; cause?: { code?: string } };
  const code = error?.code ?? error?.cause?.code;
  return code !== undefined && CONNECTION_FAILURES.has(code) ? code : undefined;
}

/** The wait before the next try: the API's Retry-After when it gave one, else the backoff. */
function nextWait(outcome: Outcome, retry: number, policy: RetryPolicy): { ms: number; asked: boolean } {
  const asked = 'response' in outcome ? retryAfterMs(outcome.response.header('retry-after')) : undefined;
  return asked !== undefined ? { ms: asked, asked: true } : { ms: backoffMs(retry, policy), asked: false };
}

/** The response to read, the request it answers, and a sentence for the agent when the tries ended without a good answer. */
export interface Sent {
  response: UpstreamResponse;
  request: OutgoingRequest;
  note?: string;
}

/** The request prepared again, with a fresh token; or the tool error that stops it. */
export type Refresh = () => Promise<{ request: OutgoingRequest } | { failure: CallToolResult }>;

/** One call's tries: each request sent, paced and observed, and again while the API allows it. */
interface CallAttempts {
  /**
   * Sends the request and tries it again as the API allows; after a 401, with `refresh` (given
   * when the request used a token that can be renewed), once more with the request it prepares.
   */
  send(request: OutgoingRequest, refresh?: Refresh): Promise<Sent | { failure: CallToolResult }>;
  /** Frees what the call still holds of the pacing. */
  done(): void;
}

export interface Sending {
  /** The tool's Idempotency-Key argument filled with a fresh key when the agent gave none: once per call, before the first try. */
  keyed(tool: ToolSpec, args: Record<string, unknown>): Record<string, unknown>;
  forCall(tool: ToolSpec, limit: { signal: Cancellation; endsAt: number }): CallAttempts;
}

/**
 * How each try goes out: `upstream`, inside the server's `around` (the observer's), inside the
 * call's pacing; `onWait` is told of every wait before a try.
 */
export interface SendChain {
  upstream: SendOne;
  around: readonly SendMiddleware[];
  onWait: OnWait;
}

/** --retries and the pacing, and over several APIs each API's own retries and rate (api-settings.ts) by namespace. */
export type SendingSettings = { retries: number; perApi?: ReadonlyMap<string, ApiSending> } & PacingLimits;

export function createSending(settings: SendingSettings, log: Logger, chain: SendChain): Sending {
  const policy: RetryPolicy = { attempts: settings.retries + 1, ...BACKOFF };
  const pacer = createPacer(settings, log, chain.onWait);
  const apiOf = (tool: ToolSpec) => (tool.api === undefined ? undefined : settings.perApi?.get(tool.api));
  const attemptsOf = (tool: ToolSpec) => (apiOf(tool)?.retries ?? settings.retries) + 1;
  return {
    keyed: (tool, args) => (attemptsOf(tool) > 1 ? withIdempotencyKey(tool, args) : args),
    forCall(tool, limit) {
      // The route template, not the URL: logs carry no argument values.
      const name = `${tool.name} (${tool.http.method} ${tool.http.path})`;
      const pace = pacer.forCall(limit.signal, limit.endsAt, name, rateOf(tool));
      // The one place a try's chain is composed: paced first, so that its span and log time the request, not its wait for a slot.
      const sendOne = composeSend(chain.upstream, [pacedBy(pace), ...chain.around]);
      const call: TryContext = { tool, name, sendOne, signal: limit.signal, endsAt: limit.endsAt, attempts: attemptsOf(tool) };
      return {
        async send(request, refresh) {
          const sent = await tries(request, call);
          if (refresh === undefined || sent.response.status !== 401) return sent;
          // RFC 6750 §3.1: the token may have been revoked or expired early; one fresh try, once per call.
          sent.response.discard();
          const again = await refresh();
          return 'failure' in again ? again : tries(again.request, call);
        },
        done: () => pace.done(),
      };
    },
  };

  async function tries(request: OutgoingRequest, call: TryContext): Promise<Sent> {
    const allowed = mayRetry(call.tool, request) ? call.attempts : 1;
    for (let attempt = 1; ; attempt++) {
      const outcome = await settle(() => call.sendOne(request, call.signal));
      const next = afterTry(outcome, attempt, allowed, call);
      if ('stop' in next) return settled(outcome, request, next.stop);
      if ('response' in outcome) outcome.response.discard();
      await sleep(next.waitMs, call.signal);
    }
  }

  /** The rate of an API's tool, in its API's own bucket (null: none); the server's for the rest. */
  function rateOf(tool: ToolSpec): Rate | null | undefined {
    const api = apiOf(tool);
    if (api === undefined) return undefined;
    return api.rate === undefined ? null : { ...api.rate, bucket: tool.api as string };
  }

  /** After a try: stop there (with a sentence for the agent when the API's answer is bad), or wait and try again; logged. */
  function afterTry(
    outcome: Outcome,
    attempt: number,
    allowed: number,
    call: TryContext,
  ): { stop: string | undefined } | { waitMs: number } {
    const reason = retryReason(outcome, call.signal);
    if (reason === undefined) return { stop: undefined };
    if (attempt >= allowed) return { stop: allowed > 1 ? `The API answered ${reason} to all ${allowed} tries.` : undefined };
    const wait = nextWait(outcome, attempt, policy);
    const left = call.endsAt - Date.now();
    const waitText = wait.asked
      ? `the API asked to wait ${duration(wait.ms)} (Retry-After)`
      : `the next try would wait ${duration(wait.ms)}`;
    if (wait.ms >= left) {
      log.info(`${call.name}: try ${attempt} got ${reason}; not tried again: ${waitText}, past the call's time limit`);
      return { stop: `Not tried again: ${waitText}, longer than the ${duration(left)} left of this call's time limit (--timeout).` };
    }
    const asked = wait.asked ? ' (Retry-After)' : '';
    const said = `${call.name}: try ${attempt} of ${allowed} got ${reason}; trying again in ${Math.round(wait.ms)} ms${asked}`;
    log.info(said);
    chain.onWait(wait.ms, wait.asked ? 'retry-after' : 'backoff', said);
    return { waitMs: wait.ms };
  }
}

/** What the tries of one request know of their call. */
interface TryContext {
  tool: ToolSpec;
  /** The tool and its route template, for the log. */
  name: string;
  /** One try: paced, observed, sent. */
  sendOne: SendOne;
  signal: Cancellation;
  endsAt: number;
  /** Tries in all that its API allows (--retries + 1, or its API's own). */
  attempts: number;
}

/** An error result with the retries' sentence (why they stopped) as a text block of its own. */
export function withNote(result: CallToolResult, note: string | undefined): CallToolResult {
  return note === undefined ? result : { ...result, content: [...result.content, { type: 'text', text: note }] };
}

/**
 * Sets a POST's or PATCH's declared Idempotency-Key argument to a new UUID unless the agent (or
 * its beforeRequest hook) gave one. Other methods are retried without it: some APIs (Svix)
 * declare the header on every operation, and a GET gains nothing from a key.
 */
function withIdempotencyKey(tool: ToolSpec, args: Record<string, unknown>): Record<string, unknown> {
  const name = tool.http.idempotencyKey?.toLowerCase();
  if (name === undefined || !KEYED_METHODS.has(tool.http.method.toUpperCase())) return args;
  const param = tool.http.params.find((p) => p.in === 'header' && p.name.toLowerCase() === name);
  if (param === undefined || (args[param.arg] !== undefined && args[param.arg] !== null)) return args;
  const out = { ...args };
  // defined, not assigned: an argument may be named `__proto__`
  Object.defineProperty(out, param.arg, { value: crypto.randomUUID(), enumerable: true, writable: true, configurable: true });
  return out;
}

async function settle(send: () => Promise<UpstreamResponse>): Promise<Outcome> {
  try {
    return { response: await send() };
  } catch (error) {
    return { error };
  }
}

function settled(outcome: Outcome, request: OutgoingRequest, note?: string): Sent {
  if ('error' in outcome) throw outcome.error;
  return note === undefined ? { response: outcome.response, request } : { response: outcome.response, request, note };
}
