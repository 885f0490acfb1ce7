// What the spans of a tools/call and of its upstream attempts record, by the OTel semantic
// conventions for MCP and for HTTP clients, and how they end: the same whichever exporter sends
// them (telemetry.ts over the OpenTelemetry SDK, telemetry-web.ts over fetch), and nothing the
// arguments carry.

import { sha256, toHex } from '../start/crypto.js';

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
export interface AttemptFacts {
  method: string;
  url: string;
  route: string | undefined;
  /** 0 for the first attempt of an operation, then 1, 2… (http.request.resend_count). */
  resendCount: number;
}

/** The longest client-chosen text a span keeps (a tool name, a request id): a client may send megabytes of either. */
const CLIENT_TEXT_CHARS = 128;

export function toolCallAttributes(facts: ToolCallFacts): Record<string, string> {
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
export function attemptAttributes(facts: AttemptFacts): Record<string, string | number> {
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
export function rpcErrorType(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'number' ? String(code) : ((error as Error)?.name ?? 'Error');
}

/** How `settle` records a span's outcome: its failure's `error.type`, and its end. */
export interface SpanEnd {
  fail(type: string): void;
  end(): void;
}

/** `running`'s outcome on its span: `error.type` on failure, never a message (it may quote arguments); ended either way. */
export async function settle<T>(
  span: SpanEnd,
  running: Promise<T>,
  failure: (value: T) => string | undefined,
  thrownType: (error: unknown) => string,
): Promise<T> {
  try {
    const value = await running;
    const type = failure(value);
    if (type !== undefined) span.fail(type);
    return value;
  } catch (error) {
    span.fail(thrownType(error));
    throw error;
  } finally {
    span.end();
  }
}
