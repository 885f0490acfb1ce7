// OpenTelemetry tracing, exported over OTLP/HTTP. This module and every @opentelemetry package
// load only when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
// (observe.ts imports it then): a server without a collector pays nothing for it.
// Spans follow the OTel semantic conventions for MCP (the tool call, SERVER) and for HTTP
// clients (each upstream attempt, CLIENT), without argument values: the route is the template,
// never the filled URL, and no header, query or body is recorded.

import { context, diag, DiagLogLevel, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { failureCode } from './failure-code.js';
import {
  attemptAttributes,
  rpcErrorType,
  settle,
  toolCallAttributes,
  type AttemptFacts,
  type ToolCallFacts,
  type SpanEnd,
} from './span-attributes.js';

/** OTEL_EXPORTER_OTLP_PROTOCOL values this server can send (gRPC would need another stack). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** W3C Trace Context as it travels in `_meta` (SEP-414) or in HTTP headers. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

export type { AttemptFacts, ToolCallFacts } from './span-attributes.js';

export interface Tracing {
  /** Runs a tools/call as the active SERVER span, child of `parent` when the client sent one. */
  toolCall<T>(
    facts: ToolCallFacts,
    parent: TraceHeaders | undefined,
    run: (traceId: string) => Promise<T>,
    failed: (value: T) => boolean,
  ): Promise<T>;
  /** Runs one upstream attempt as a CLIENT span under the active one; `send` gets the traceparent to put on the request. */
  attempt<R extends { status: number }>(facts: AttemptFacts, send: (headers: TraceHeaders | undefined) => Promise<R>): Promise<R>;
  /** An event on the active span (a retry's wait). */
  event(name: string, attributes: Record<string, string | number>): void;
  /** Exports what is buffered (at exit), waiting at most `ms`. */
  flush(ms: number): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  serviceVersion: string;
  protocol: OtlpProtocol;
  warn(message: string): void;
  /** Tests only: where spans go instead of the OTLP exporter. */
  exporter?: SpanExporter;
}

/**
 * Calls are rare next to an HTTP service's requests, and a stdio server is often ended by its
 * client without notice: a second's batching loses little. OTEL_BSP_SCHEDULE_DELAY overrides it.
 */
const DEFAULT_BATCH_DELAY_MS = 1_000;

export async function startTracing(options: TracingOptions): Promise<Tracing> {
  // Export failures would otherwise vanish: the SDK reports them through diag.
  const warn = (message: string) => options.warn(`telemetry: ${message}`);
  const quiet = () => undefined;
  diag.setLogger({ error: warn, warn, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
  const exporter = options.exporter ?? (await otlpExporter(options.protocol));
  const batchDelay = process.env.OTEL_BSP_SCHEDULE_DELAY === undefined ? { scheduledDelayMillis: DEFAULT_BATCH_DELAY_MS } : {};
  const provider = new BasicTracerProvider({
    resource: serviceResource(options.serviceName, options.serviceVersion),
    spanProcessors: [new BatchSpanProcessor(exporter, batchDelay)],
  });
  // Global, so that the user's hooks can add spans of their own with @opentelemetry/api.
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer('mcp-gen');

  return {
    toolCall(facts, parent, run, failed) {
      const parentContext = parent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, parent);
      const name = facts.known ? `tools/call ${facts.tool}` : 'tools/call';
      return tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes: toolCallAttributes(facts) }, parentContext, (span) =>
        settle(ended(span), run(span.spanContext().traceId), (value) => (failed(value) ? 'tool_error' : undefined), rpcErrorType),
      );
    },
    attempt(facts, send) {
      const span = tracer.startSpan(facts.route ? `${facts.method} ${facts.route}` : facts.method, {
        kind: SpanKind.CLIENT,
        attributes: attemptAttributes(facts),
      });
      const spanContext = trace.setSpan(context.active(), span);
      const carrier: Record<string, string> = {};
      propagation.inject(spanContext, carrier);
      // Nothing to inject only for an invalid span context: then the request goes as it is.
      const headers: TraceHeaders | undefined = carrier.traceparent
        ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) }
        : undefined;
      const answered = context
        .with(spanContext, () => send(headers))
        .then((response) => {
          span.setAttribute('http.response.status_code', response.status);
          return response;
        });
      return settle(ended(span), answered, (response) => (response.status >= 400 ? String(response.status) : undefined), failureCode);
    },
    event(name, attributes) {
      trace.getActiveSpan()?.addEvent(name, attributes);
    },
    async flush(ms) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([provider.forceFlush().catch(() => undefined), late]);
      clearTimeout(timer);
    },
  };
}

/** service.name is the table's name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
function serviceResource(name: string, version: string) {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': name, 'service.version': version }))
    .merge(detectResources({ detectors: [envDetector] }));
}

/** The OTLP/HTTP exporter of the protocol asked for; each reads its endpoint, headers and timeout from OTEL_EXPORTER_OTLP_*. */
async function otlpExporter(protocol: OtlpProtocol): Promise<SpanExporter> {
  if (protocol === 'http/json') return new (commonJs(await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter)();
  return new (commonJs(await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter)();
}

/**
 * A CommonJS package's exports as import() gives them: Node names them on the module, a bundle
 * (the project's esbuild build) only under `default`, which Node's namespace has too.
 */
const commonJs = <T extends object>(module: T): T => (module as { default?: T }).default ?? module;

/** An SDK span as settle ends it: `error.type` and an ERROR status on failure. */
const ended = (span: Span): SpanEnd => ({
  fail(type) {
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR });
  },
  end: () => span.end(),
});
