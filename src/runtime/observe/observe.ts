// What a tools/call leaves behind for the operator: OpenTelemetry spans for the call and for
// each upstream attempt (telemetry.ts, loaded with its packages only when an OTLP endpoint is
// set), and with --log-calls one JSON line per call on stderr. With neither, a W3C traceparent
// that came with the call is still forwarded upstream unchanged, so that the client's trace
// reaches the API across this server at no cost.

import { platform } from '../start/platform.js';
import {
  PROTOCOL_VERSION_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Cancellation } from '../call/send/call-limit.js';
import { clientLogOf, type ClientLog } from './client-log.js';
import type { ServerConfig } from '../start/config.js';
import { failureCode } from './failure-code.js';
import type { OutgoingRequest } from '../hooks-api.js';
import type { Logger } from '../start/log.js';
import type { OtlpProtocol, ToolCallFacts, TraceHeaders, Tracing } from './telemetry.js';
import type { TracedCall } from './telemetry-web.js';
import type { UpstreamResponse } from '../call/send/upstream-response.js';
import type { OnWait, SendMiddleware, SendOne } from '../call/send/middleware.js';
import type { ToolSpec, ToolTable } from '../../contract/table.js';
import { UNSCOPED, type CallScopes } from './call-scope.js';

export interface CallObserver {
  /** Whether calls are traced or logged; when not, only a call that brings a trace context is observed. */
  readonly active: boolean;
  /** Runs one tools/call observed: its span, the trace context it came with, its log line, its client's log. */
  call<T>(facts: ToolCallFacts, incoming: TraceHeaders | undefined, run: () => Promise<T>, clientLog?: ClientLog): Promise<T>;
  /** Runs the exchange of one operation (every attempt of its request) in its scope: its route and attempt count. */
  operation<T>(tool: ToolSpec, run: () => Promise<T>): Promise<T>;
  /** Around each try of a request (middleware.ts): its span, the traceparent it carries, its status in the log line. */
  sender: SendMiddleware;
  /**
   * A wait before a try (retry.ts, pacing.ts; `reason`: e.g. `retry-after`, `backoff`, `rate-limit`): an event on the
   * call's span, summed as `waitedMs` in its log line, and `said` (a line without argument values) in its client's log.
   */
  onWait: OnWait;
}

interface Attempt {
  method: string;
  route: string | undefined;
  status: number | null;
  error?: string;
  resend: number;
}

/** What one call gathers on its way: the trace it joined and every upstream attempt. */
interface CallRecord {
  incoming?: TraceHeaders;
  traceId?: string;
  attempts: Attempt[];
  /** Time spent waiting between attempts (Retry-After, backoff). */
  waitedMs?: number;
  tracing?: Tracing;
  /** The call's messages to its client's log (client-log.ts), when the client asked for them. */
  clientLog?: ClientLog;
}

interface Scope {
  call: CallRecord;
  operation?: { route: string; sent: number };
}

/**
 * Started only for a call that has something to observe (tracing, --log-calls, or an incoming
 * traceparent): Node 20's AsyncLocalStorage costs every promise something once it is used.
 * The platform's kind (call-scope.ts), in place once useCallScopes has run.
 */
let scopes: CallScopes<Scope> = UNSCOPED;

/** The platform's way of carrying a call's scope across awaits, loaded once, before calls are served. */
export async function useCallScopes(): Promise<void> {
  if (scopes !== UNSCOPED || platform().callScopes !== 'async-local-storage') return;
  scopes = (await import('./async-scopes.js')).asyncScopes<Scope>();
}

/** `fn` bound to the current call, for callbacks that arrive outside it (code mode's worker messages). */
export const boundToCall = <F extends (...args: never[]) => unknown>(fn: F): F => scopes.bind(fn);

/** The tracing in use, for the flush at exit. */
let activeTracing: Tracing | undefined;

export function callObserver(options: { tracing?: Tracing; logCalls: boolean; write?: (line: string) => void }): CallObserver {
  const { tracing, logCalls } = options;
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const active = tracing !== undefined || logCalls;
  return {
    active,
    call(facts, incoming, run, clientLog) {
      if (!active && incoming === undefined && clientLog === undefined) return run();
      return observedCall(facts, incoming, run, clientLog);
    },
    operation(tool, run) {
      const current = scopes.current();
      if (current === undefined && tracing === undefined) return run();
      const call = current?.call ?? { attempts: [], ...(tracing ? { tracing } : {}) };
      return scopes.run({ call, operation: { route: tool.http.path, sent: 0 } }, run);
    },
    onWait: noteWait,
    sender(send) {
      return (request, signal) => {
        const current = scopes.current();
        // Unobserved, the common case: the sender itself, without an async layer of its own.
        if (current === undefined && tracing === undefined) return send(request, signal);
        return observedAttempt(send, current, request, signal);
      };
    },
  };

  async function observedCall<T>(
    facts: ToolCallFacts,
    incoming: TraceHeaders | undefined,
    run: () => Promise<T>,
    clientLog: ClientLog | undefined,
  ): Promise<T> {
    const record = newRecord(incoming, tracing);
    if (clientLog !== undefined) record.clientLog = clientLog;
    const started = performance.now();
    let failed = true;
    try {
      const value = await inScope(facts, record, run);
      failed = isToolError(value);
      return value;
    } finally {
      if (logCalls) write(callLine(facts.tool, failed, performance.now() - started, record));
    }
  }

  async function observedAttempt(
    send: SendOne,
    current: Scope | undefined,
    request: OutgoingRequest,
    signal: Cancellation,
  ): Promise<UpstreamResponse> {
    const attempt = countAttempt(current, request.method);
    const go = (trace: TraceHeaders | undefined) => send(trace === undefined ? request : withTrace(request, trace), signal);
    try {
      const facts = { method: request.method, url: request.url, route: attempt.route, resendCount: attempt.resend };
      const response = tracing ? await tracing.attempt(facts, go) : await go(current?.call.incoming);
      attempt.status = response.status;
      if (response.status >= 400) current?.call.clientLog?.('warning', `${attemptName(attempt)} answered HTTP ${response.status}`);
      return response;
    } catch (error) {
      attempt.error = failureCode(error);
      current?.call.clientLog?.('warning', `${attemptName(attempt)} failed (${attempt.error})`);
      throw error;
    }
  }
}

function newRecord(incoming: TraceHeaders | undefined, tracing: Tracing | undefined): CallRecord {
  return {
    attempts: [],
    // the trace the call belongs to, for the log line, until its own span says it
    ...(incoming ? { incoming, traceId: incoming.traceparent.slice(3, 35) } : {}),
    ...(tracing ? { tracing } : {}),
  };
}

/** The call run in its scope, inside its span when tracing. */
function inScope<T>(facts: ToolCallFacts, record: CallRecord, run: () => Promise<T>): Promise<T> {
  const scoped = () => scopes.run({ call: record }, run);
  if (record.tracing === undefined) return scoped();
  const traced = (traceId: string) => {
    record.traceId = traceId;
    return scoped();
  };
  return record.tracing.toolCall(facts, record.incoming, traced, isToolError);
}

/** An attempt as a log names it: method and route template, never the filled URL. */
const attemptName = (attempt: Attempt) => `${attempt.method} ${attempt.route ?? '(status URL)'}`;

/** A new attempt of the current operation, counted in its call. */
function countAttempt(current: Scope | undefined, method: string): Attempt {
  const operation = current?.operation;
  const attempt: Attempt = { method, route: operation?.route, status: null, resend: operation?.sent ?? 0 };
  if (operation) operation.sent++;
  current?.call.attempts.push(attempt);
  return attempt;
}

/** The observer of a server: tracing when an OTLP endpoint is set, the call log with --log-calls. */
export async function createObserver(
  table: ToolTable,
  config: Pick<ServerConfig, 'logCalls'>,
  log: Logger,
  env: NodeJS.ProcessEnv = platform().env,
): Promise<CallObserver> {
  await useCallScopes();
  const protocol = otlpProtocol(env, log);
  if (protocol !== undefined) activeTracing = await startTracingHere(table, env, protocol, log);
  return callObserver({ ...(activeTracing ? { tracing: activeTracing } : {}), logCalls: config.logCalls });
}

/** The platform's tracing: the OpenTelemetry SDK on Node, OTLP/HTTP JSON over fetch elsewhere. */
async function startTracingHere(table: ToolTable, env: NodeJS.ProcessEnv, protocol: OtlpProtocol, log: Logger): Promise<Tracing> {
  const service = { serviceName: env.OTEL_SERVICE_NAME || table.name, serviceVersion: table.version };
  const warn = (message: string) => log.warn(message);
  if (platform().traces === 'otel-sdk') return (await import('./telemetry.js')).startTracing({ ...service, protocol, warn });
  const { startWebTracing } = await import('./telemetry-web.js');
  const spanScopes: CallScopes<TracedCall> =
    platform().callScopes === 'async-local-storage' ? (await import('./async-scopes.js')).asyncScopes<TracedCall>() : UNSCOPED;
  return startWebTracing({ ...service, env, scopes: spanScopes, warn });
}

/** A wait before a try, in the current call's record (CallObserver's `onWait`). */
function noteWait(ms: number, reason: string, said: string): void {
  const call = scopes.current()?.call;
  if (call === undefined) return;
  call.waitedMs = (call.waitedMs ?? 0) + ms;
  call.tracing?.event('retry.wait', { 'retry.wait_ms': Math.round(ms), 'retry.reason': reason });
  call.clientLog?.('info', said);
}

/** Why a call's credentials failed (a line without secrets), in its call's client's log as an error. */
export function noteCredentialFailure(said: string): void {
  scopes.current()?.call.clientLog?.('error', said);
}

/** A long-running operation's progress (a line without argument values), in its call's client's log. */
export function noteProgress(said: string): void {
  scopes.current()?.call.clientLog?.('info', said);
}

/** Exports the spans still buffered, before the process exits (at most 2 s). */
export async function flushTelemetry(): Promise<void> {
  await activeTracing?.flush(2_000);
}

/**
 * Whether to trace, and how to send: OTLP/HTTP in protobuf by default (the OTel specification's
 * default), JSON on request; undefined without an endpoint, or when the SDK is disabled.
 */
function otlpProtocol(env: NodeJS.ProcessEnv, log: Logger): OtlpProtocol | undefined {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return undefined;
  // The specification's default, where the SDK sends it; the platforms send JSON (web-server.ts refuses protobuf there).
  const fallback = platform().traces === 'otel-sdk' ? 'http/protobuf' : 'http/json';
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || fallback).trim();
  if (asked === 'http/protobuf' || asked === 'http/json') return asked;
  log.warn(`OTEL_EXPORTER_OTLP_PROTOCOL=${asked.slice(0, 40)}: this server sends http/protobuf or http/json only; traces are off`);
  return undefined;
}

/**
 * Wraps the tools/call handler so that each call is observed, with what the request says about
 * itself: the trace context of its `_meta` (SEP-414), else of its HTTP request's headers.
 */
export function observed<Req extends { params: { name: string; _meta?: Record<string, unknown> } }, Res>(
  observer: CallObserver,
  server: Server,
  known: (name: string) => boolean,
  handler: (request: Req, ctx: ServerContext) => Promise<Res>,
): (request: Req, ctx: ServerContext) => Promise<Res> {
  return (request, ctx) => {
    const incoming = incomingTrace(request.params._meta, ctx.http?.req?.headers);
    const clientLog = clientLogOf(server, ctx);
    // Nothing to trace, log or forward: the handler alone, without gathering the call's facts.
    if (!observer.active && incoming === undefined && clientLog === undefined) return handler(request, ctx);
    const facts: ToolCallFacts = {
      tool: request.params.name,
      known: known(request.params.name),
      requestId: ctx.mcpReq.id,
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
    };
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const version = envelope?.[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion();
    if (typeof version === 'string') facts.protocolVersion = version;
    return observer.call(facts, incoming, () => handler(request, ctx), clientLog);
  };
}

/** The caller's trace context: `_meta.traceparent` first, the HTTP header else; only well-formed values. */
export function incomingTrace(meta: Record<string, unknown> | undefined, headers: Headers | undefined): TraceHeaders | undefined {
  return (
    traceHeaders(meta?.[TRACEPARENT_META_KEY], meta?.[TRACESTATE_META_KEY]) ??
    traceHeaders(headers?.get('traceparent'), headers?.get('tracestate'))
  );
}

/** W3C Trace Context §3.2: version 00's form, ids not all zeros; a value that would not be a valid header is dropped. */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** §3.3: at most 32 members of printable ASCII; the limit here is on length only. */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

function traceHeaders(traceparent: unknown, tracestate: unknown): TraceHeaders | undefined {
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent.trim())) return undefined;
  const state = typeof tracestate === 'string' && TRACESTATE.test(tracestate.trim()) ? tracestate.trim() : undefined;
  return { traceparent: traceparent.trim(), ...(state ? { tracestate: state } : {}) };
}

/**
 * The request with this trace context, replacing any traceparent and tracestate it had (an
 * argument the spec declares, a --header, a hook): the API is told one parent, the real one.
 */
function withTrace(request: OutgoingRequest, trace: TraceHeaders): OutgoingRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower !== 'traceparent' && lower !== 'tracestate') headers[name] = value;
  }
  headers.traceparent = trace.traceparent;
  if (trace.tracestate !== undefined) headers.tracestate = trace.tracestate;
  return { ...request, headers };
}

const isToolError = (value: unknown): boolean => (value as { isError?: unknown } | undefined)?.isError === true;

/** The --log-calls line: what happened and how long it took, without an argument or a secret. */
function callLine(tool: string, failed: boolean, ms: number, record: CallRecord): string {
  const upstream = record.attempts.map((a) => ({
    method: a.method,
    ...(a.route ? { route: a.route } : {}),
    status: a.status,
    ...(a.error ? { error: a.error } : {}),
  }));
  const line = {
    time: new Date().toISOString(),
    event: 'tools/call',
    tool: tool.slice(0, 128),
    outcome: failed ? 'error' : 'ok',
    durationMs: Math.round(ms * 10) / 10,
    upstream,
    attempts: record.attempts.length,
    retries: record.attempts.filter((a) => a.resend > 0).length,
    ...(record.waitedMs ? { waitedMs: Math.round(record.waitedMs) } : {}),
    ...(record.traceId ? { traceId: record.traceId } : {}),
  };
  return `${JSON.stringify(line)}\n`;
}
