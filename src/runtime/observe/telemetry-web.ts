// OpenTelemetry tracing on the platforms (Workers, Deno, Lambda, Vercel): the same spans as
// telemetry.ts, sent as OTLP/HTTP JSON with the platform's fetch instead of the OpenTelemetry SDK
// (whose exporters reach for node:http, and whose batching runs after the answer, when a
// platform may already have stopped the request's work). Each call's spans are therefore sent
// before its answer, in one request that waits at most EXPORT_WAIT_MS: an unreachable receiver
// delays a call by that much and loses its spans, said once in the log.
// https://opentelemetry.io/docs/specs/otlp/#otlphttp (JSON: ids in hex, times as strings)
// https://opentelemetry.io/docs/specs/otel/protocol/exporter/ (the OTEL_EXPORTER_OTLP_* variables)

import type { TraceHeaders, Tracing } from './telemetry.js';
import type { CallScopes } from './call-scope.js';
import { failureCode } from './failure-code.js';
import { attemptAttributes, rpcErrorType, settle, toolCallAttributes, type AttemptFacts, type SpanEnd } from './span-attributes.js';
import { randomBytes, toHex } from '../start/crypto.js';

/** The most an export holds a call's answer (the specification's default timeout is 10 s: too long for a call). */
const EXPORT_WAIT_MS = 2_000;
const SERVER_KIND = 2;
const CLIENT_KIND = 3;
const STATUS_ERROR = 2;

interface WebSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano?: string;
  attributes: Record<string, string | number>;
  events: { timeUnixNano: string; name: string; attributes: Record<string, string | number> }[];
  error?: boolean;
}

/** The call being traced: its span, the spans of its attempts, and the tracestate it came with. */
export interface TracedCall {
  span: WebSpan;
  spans: WebSpan[];
  tracestate?: string;
}

export interface WebTracingOptions {
  serviceName: string;
  serviceVersion: string;
  env: Record<string, string | undefined>;
  /** How the call's span is found again by its attempts (the platform's AsyncLocalStorage). */
  scopes: CallScopes<TracedCall>;
  warn(message: string): void;
}

export function startWebTracing(options: WebTracingOptions): Tracing {
  const { scopes } = options;
  const send = otlpSender(options);
  return {
    toolCall(facts, parent, run, failed) {
      if (parent !== undefined && !sampled(parent)) return run(idsOf(parent).traceId);
      const name = facts.known ? `tools/call ${facts.tool}` : 'tools/call';
      const span = startSpan(name, SERVER_KIND, toolCallAttributes(facts), parent);
      const call: TracedCall = { span, spans: [span], ...(parent?.tracestate ? { tracestate: parent.tracestate } : {}) };
      return scopes.run(call, () =>
        settle(ended(span), run(span.traceId), (value) => (failed(value) ? 'tool_error' : undefined), rpcErrorType).finally(() =>
          send(call.spans),
        ),
      );
    },
    attempt(facts, go) {
      const call = scopes.current();
      const span = attemptSpan(facts, call);
      const headers: TraceHeaders = {
        traceparent: `00-${span.traceId}-${span.spanId}-01`,
        ...(call?.tracestate ? { tracestate: call.tracestate } : {}),
      };
      const answered = go(headers).then((response) => {
        span.attributes['http.response.status_code'] = response.status;
        return response;
      });
      const settled = settle(
        ended(span),
        answered,
        (response) => (response.status >= 400 ? String(response.status) : undefined),
        failureCode,
      );
      // Outside a call (nothing to join): sent on its own.
      return call === undefined ? settled.finally(() => send([span])) : settled;
    },
    event(name, attributes) {
      scopes.current()?.span.events.push({ timeUnixNano: nowNano(), name, attributes });
    },
    flush: () => Promise.resolve(),
  };
}

/** An attempt's CLIENT span, child of its call's span (or of nothing, outside a call). */
function attemptSpan(facts: AttemptFacts, call: TracedCall | undefined): WebSpan {
  const name = facts.route ? `${facts.method} ${facts.route}` : facts.method;
  const span = startSpan(name, CLIENT_KIND, attemptAttributes(facts), call?.span);
  call?.spans.push(span);
  return span;
}

/** W3C Trace Context §3.2.2.5: a parent that was not sampled is not recorded under, as the SDK's ParentBased sampler does. */
const sampled = (parent: TraceHeaders) => (parseInt(parent.traceparent.slice(53, 55), 16) & 1) === 1;

/** A span under `parent` (the client's, as its traceparent says, or the call's), in a new trace without one. */
function startSpan(
  name: string,
  kind: number,
  attributes: Record<string, string | number>,
  parent?: TraceHeaders | Pick<WebSpan, 'traceId' | 'spanId'>,
): WebSpan {
  const of = parent === undefined ? undefined : 'traceparent' in parent ? idsOf(parent) : parent;
  return {
    traceId: of?.traceId ?? toHex(randomBytes(16)),
    spanId: toHex(randomBytes(8)),
    ...(of !== undefined ? { parentSpanId: of.spanId } : {}),
    name,
    kind,
    startTimeUnixNano: nowNano(),
    attributes: { ...attributes },
    events: [],
  };
}

/** The trace and span ids of a traceparent (version 00: `00-<trace>-<span>-<flags>`). */
const idsOf = (headers: TraceHeaders) => ({ traceId: headers.traceparent.slice(3, 35), spanId: headers.traceparent.slice(36, 52) });

/** A span as settle ends it: `error.type` and an ERROR status on failure, its end time. */
const ended = (span: WebSpan): SpanEnd => ({
  fail(type) {
    span.attributes['error.type'] = type;
    span.error = true;
  },
  end: () => void (span.endTimeUnixNano = nowNano()),
});

/**
 * Nanoseconds since the epoch, as OTLP/JSON writes a 64-bit integer: a decimal string. From
 * Date.now(): workerd's performance clock starts at 0 and, like its Date, moves only across I/O.
 */
const nowNano = () => `${Date.now()}000000`;

/** Sends spans to the receiver, waiting at most EXPORT_WAIT_MS; a failure is logged once, then again only after a success. */
function otlpSender(options: WebTracingOptions): (spans: WebSpan[]) => Promise<void> {
  const { env } = options;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/+$/, '')}/v1/traces`;
  const headers = {
    ...headerList(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...headerList(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    'content-type': 'application/json',
  };
  const resource = { attributes: encodeAttributes(resourceAttributes(options)) };
  let failing = false;
  return async (spans) => {
    const body = JSON.stringify({
      resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'mcp-gen' }, spans: spans.map(encodeSpan) }] }],
    });
    const problem = await post(endpoint, headers, body);
    if (problem !== undefined && !failing) options.warn(`telemetry: spans not exported to ${endpoint.split('?')[0]}: ${problem}`);
    failing = problem !== undefined;
  };
}

/** One export; what went wrong, in a few words, or undefined. */
async function post(endpoint: string, headers: Record<string, string>, body: string): Promise<string | undefined> {
  try {
    const response = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(EXPORT_WAIT_MS) });
    await response.body?.cancel();
    return response.ok ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? `no answer within ${EXPORT_WAIT_MS} ms` : (error as Error).message;
  }
}

/** `key=value` pairs separated by commas, values percent-decoded (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
function headerList(text: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      pairs[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // a malformed escape: the pair is left out, as the SDK does
    }
  }
  return pairs;
}

/** service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES's, else the table's name (as the SDK's env detector merges them). */
function resourceAttributes(options: WebTracingOptions): Record<string, string> {
  const given = headerList(options.env.OTEL_RESOURCE_ATTRIBUTES);
  const named = options.env.OTEL_SERVICE_NAME ? options.serviceName : (given['service.name'] ?? options.serviceName);
  return {
    'telemetry.sdk.name': 'mcp-gen',
    'telemetry.sdk.language': 'webjs',
    'service.version': options.serviceVersion,
    ...given,
    'service.name': named,
  };
}

function encodeSpan(span: WebSpan) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano ?? nowNano(),
    attributes: encodeAttributes(span.attributes),
    events: span.events.map((event) => ({ ...event, attributes: encodeAttributes(event.attributes) })),
    status: span.error ? { code: STATUS_ERROR } : {},
  };
}

/** OTLP's AnyValue: strings as stringValue, integers as intValue (a decimal string in JSON), other numbers as doubleValue. */
function encodeAttributes(attributes: Record<string, string | number>) {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value:
      typeof value === 'string' ? { stringValue: value } : Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value },
  }));
}
