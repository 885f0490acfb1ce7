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
import { sha256, toHex } from '../start/crypto.js';

/** OTEL_EXPORTER_OTLP_PROTOCOL values this server can send (gRPC would need another stack). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** W3C Trace Context as it travels in `_meta` (SEP-414) or in HTTP headers. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** What a tools/call span records: nothing the arguments carry. */
export interface ToolCallFacts {
  tool: string;
  /** A served tool or meta-tool: its name goes into the span name (else the name could be anything a client sends). */
  known: boolean;
  requestId?: string | number;
  sessionId?: string;
  protocolVersion?: string;
}

/** One upstream attempt: the route template, not the URL that carries the arguments. */
interface AttemptFacts {
  method: string;
  url: string;
  route: string | undefined;
  /** 0 for the first attempt of an operation, then 1, 2… (http.request.resend_count). */
  resendCount: number;
}

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
        settle(span, run(span.spanContext().traceId), (value) => (failed(value) ? 'tool_error' : undefined), rpcErrorType),
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
      return settle(span, answered, (response) => (response.status >= 400 ? String(response.status) : undefined), failureCode);
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

/** The span ended with its outcome: `error.type` and an ERROR status on failure, never a message (it may quote arguments). */
async function settle<T>(
  span: Span,
  running: Promise<T>,
  failure: (value: T) => string | undefined,
  thrownType: (error: unknown) => string,
): Promise<T> {
  try {
    const value = await running;
    const type = failure(value);
    if (type !== undefined) {
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return value;
  } catch (error) {
    span.setAttribute('error.type', thrownType(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** The longest client-chosen text a span keeps (a tool name, a request id): a client may send megabytes of either. */
const CLIENT_TEXT_CHARS = 128;

function toolCallAttributes(facts: ToolCallFacts): Record<string, string> {
  return {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': facts.tool.slice(0, CLIENT_TEXT_CHARS),
    ...(facts.requestId !== undefined ? { 'jsonrpc.request.id': String(facts.requestId).slice(0, CLIENT_TEXT_CHARS) } : {}),
    // The session id admits whoever holds it to the session: traces get a digest that correlates, not the id.
    ...(facts.sessionId ? { 'mcp.session.id': toHex(sha256(facts.sessionId)).slice(0, 32) } : {}),
    ...(facts.protocolVersion ? { 'mcp.protocol.version': facts.protocolVersion } : {}),
  };
}

/** HTTP client span attributes (semantic conventions, stable): no url.full, which would carry path and query values. */
function attemptAttributes(facts: AttemptFacts): Record<string, string | number> {
  const url = new URL(facts.url);
  const scheme = url.protocol.replace(/:$/, '');
  return {
    'http.request.method': facts.method,
    ...(facts.route ? { 'url.template': facts.route } : {}),
    'url.scheme': scheme,
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': url.port ? Number(url.port) : scheme === 'https' ? 443 : 80,
    ...(facts.resendCount > 0 ? { 'http.request.resend_count': facts.resendCount } : {}),
  };
}

/** A JSON-RPC error's code, as the MCP conventions record it; else the error's class. */
function rpcErrorType(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'number' ? String(code) : ((error as Error)?.name ?? 'Error');
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
