// The call observer (observe.ts) with the real OpenTelemetry SDK behind it (telemetry.ts, its
// spans kept in the SDK's in-memory exporter): which trace context a call joins, what each
// upstream attempt records (resends counted per operation, not per call), which traceparent
// each attempt carries, and the --log-calls line. The sender stands in for the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { callObserver, incomingTrace, useCallScopes, type CallObserver } from '../../../../src/runtime/observe/observe.js';
import { startTracing, type Tracing } from '../../../../src/runtime/observe/telemetry.js';
import type { OutgoingRequest } from '../../../../src/runtime/hooks-api.js';
import type { UpstreamResponse } from '../../../../src/runtime/call/send/upstream-response.js';
import type { ToolSpec } from '../../../../src/contract/table.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const tool = (path: string) => ({ name: 'getPet', http: { method: 'GET', path, params: [] } }) as unknown as ToolSpec;
const request = (headers: Record<string, string> = {}): OutgoingRequest => ({
  tool: 'getPet',
  method: 'GET',
  url: 'http://127.0.0.1:8080/pets/secret-42?key=hidden',
  headers,
});

/** A sender that answers the statuses given, in turn, and keeps the requests it got. */
function upstream(...statuses: (number | Error)[]) {
  const sent: OutgoingRequest[] = [];
  const send = (req: OutgoingRequest): Promise<UpstreamResponse> => {
    sent.push(req);
    const next = statuses.shift() ?? 200;
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve({
      status: next,
      statusText: '',
      header: () => null,
      headerList: () => [],
      body: null,
      discard: () => undefined,
    });
  };
  return { sent, send };
}

const facts = { tool: 'getPet', known: true, requestId: 7, sessionId: 'session-secret', protocolVersion: '2025-11-25' };
const signal = new AbortController().signal;

// What a server does before its first call (createObserver): the platform's call scopes, Node's here.
beforeAll(() => useCallScopes());

describe('incomingTrace', () => {
  const headers = (h: Record<string, string>) => new Headers(h);

  it('takes _meta first (SEP-414), the HTTP header else', () => {
    const other = '00-11111111111111111111111111111111-2222222222222222-00';
    expect(incomingTrace({ traceparent: PARENT, tracestate: 'a=1' }, headers({ traceparent: other }))).toEqual({
      traceparent: PARENT,
      tracestate: 'a=1',
    });
    expect(incomingTrace({}, headers({ traceparent: other, tracestate: 'b=2' }))).toEqual({ traceparent: other, tracestate: 'b=2' });
    expect(incomingTrace(undefined, undefined)).toBeUndefined();
  });

  it.each([
    ['all-zero trace id', '00-00000000000000000000000000000000-b7ad6b7169203331-01'],
    ['all-zero parent id', '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01'],
    ['version ff', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
    ['upper case', PARENT.toUpperCase()],
    ['a header injected', `${PARENT}\r\nx-evil: 1`],
    ['not a string', 42],
  ])('ignores a traceparent that is not W3C: %s', (_label, value) => {
    expect(incomingTrace({ traceparent: value }, undefined)).toBeUndefined();
  });

  it('drops a tracestate that could not be a header, keeping the traceparent', () => {
    expect(incomingTrace({ traceparent: PARENT, tracestate: 'a=1\nb=2' }, undefined)).toEqual({ traceparent: PARENT });
  });
});

describe('without tracing', () => {
  it('forwards the incoming traceparent in place of the one the request had, in any case of its name', async () => {
    const api = upstream();
    const observer = callObserver({ logCalls: false });
    const send = observer.sender(api.send);
    await observer.call(facts, { traceparent: PARENT, tracestate: 'v=1' }, () =>
      observer.operation(tool('/pets/{id}'), () =>
        send(request({ TraceParent: 'agent-made', TRACESTATE: 'x', accept: 'application/json' }), signal),
      ),
    );
    expect(api.sent[0]!.headers).toEqual({ accept: 'application/json', traceparent: PARENT, tracestate: 'v=1' });
  });

  it('leaves a request alone when the call came without trace context', async () => {
    const api = upstream();
    const observer = callObserver({ logCalls: false });
    const send = observer.sender(api.send);
    await observer.call(facts, undefined, () =>
      observer.operation(tool('/pets/{id}'), () => send(request({ traceparent: 'given' }), signal)),
    );
    expect(api.sent[0]!.headers).toEqual({ traceparent: 'given' });
  });

  it('--log-calls: attempts and resends counted per operation, statuses and error codes, no argument value', async () => {
    const lines: string[] = [];
    const api = upstream(503, 200, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' }));
    const observer = callObserver({ logCalls: true, write: (line) => lines.push(line) });
    const send = observer.sender(api.send);
    const result = await observer.call({ ...facts, tool: 'execute' }, undefined, async () => {
      // one operation sent twice (a retry), then another operation whose only attempt fails
      await observer.operation(tool('/pets/{id}'), async () => (await send(request(), signal), send(request(), signal)));
      await observer.operation(tool('/owners/{id}'), () => send(request(), signal)).catch(() => undefined);
      return { content: [], isError: true };
    });
    expect(result.isError).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      event: 'tools/call',
      tool: 'execute',
      outcome: 'error',
      upstream: [
        { method: 'GET', route: '/pets/{id}', status: 503 },
        { method: 'GET', route: '/pets/{id}', status: 200 },
        { method: 'GET', route: '/owners/{id}', status: null, error: 'ECONNREFUSED' },
      ],
      attempts: 3,
      retries: 1,
    });
    expect(line.traceId).toBeUndefined();
    expect(lines[0]).not.toMatch(/secret-42|hidden|session-secret/);
  });

  it('concurrent calls each find their own scope: trace context and attempts never cross between them', async () => {
    const lines: string[] = [];
    const api = upstream();
    const observer = callObserver({ logCalls: true, write: (line) => lines.push(line) });
    const send = observer.sender(api.send);
    const parents = [PARENT, PARENT.replace('b7ad6b7169203331', '1111111111111111')];
    let secondSent = () => {};
    const turn = new Promise<void>((resolve) => (secondSent = resolve));
    // Interleaved: the first call's second attempt waits until the second call has sent its own.
    const first = observer.call({ ...facts, tool: 'first' }, { traceparent: parents[0]! }, () =>
      observer.operation(tool('/first'), async () => {
        await send(request({ call: 'first' }), signal);
        await turn;
        return send(request({ call: 'first' }), signal);
      }),
    );
    const second = observer.call({ ...facts, tool: 'second' }, { traceparent: parents[1]! }, () =>
      observer.operation(tool('/second'), async () => {
        const sent = await send(request({ call: 'second' }), signal);
        secondSent();
        return sent;
      }),
    );
    await Promise.all([first, second]);
    for (const req of api.sent) expect(req.headers.traceparent).toBe(req.headers.call === 'first' ? parents[0] : parents[1]);
    const logged = lines.map((line) => JSON.parse(line) as { tool: string; attempts: number; upstream: { route: string }[] });
    expect(logged.find((line) => line.tool === 'first')).toMatchObject({
      attempts: 2,
      upstream: [{ route: '/first' }, { route: '/first' }],
    });
    expect(logged.find((line) => line.tool === 'second')).toMatchObject({ attempts: 1, upstream: [{ route: '/second' }] });
  });

  it('a call that throws is logged as an error and still throws', async () => {
    const lines: string[] = [];
    const observer = callObserver({ logCalls: true, write: (line) => lines.push(line) });
    await expect(observer.call(facts, undefined, () => Promise.reject(new Error('Unknown tool')))).rejects.toThrow('Unknown tool');
    expect(JSON.parse(lines[0]!)).toMatchObject({ outcome: 'error', attempts: 0 });
  });
});

describe('with tracing', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let observer: CallObserver;
  const lines: string[] = [];

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'pets', serviceVersion: '1', protocol: 'http/json', warn: () => undefined, exporter });
    observer = callObserver({ tracing, logCalls: true, write: (line) => lines.push(line) });
  });
  afterAll(() => exporter.shutdown());

  const spans = async (): Promise<ReadableSpan[]> => {
    await tracing.flush(1_000);
    return exporter.getFinishedSpans();
  };
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  it('a resend is its own span with http.request.resend_count, each request naming its own span', async () => {
    exporter.reset();
    const api = upstream(503, 200);
    const send = observer.sender(api.send);
    await observer.call(facts, { traceparent: PARENT }, () =>
      observer.operation(tool('/pets/{id}'), async () => (await send(request(), signal), send(request(), signal))),
    );
    const all = await spans();
    const call = all.find((s) => s.name === 'tools/call getPet')!;
    const attempts = all.filter((s) => s.name === 'GET /pets/{id}');
    expect(call.spanContext().traceId).toBe(PARENT.slice(3, 35));
    expect(parentOf(call)).toBe(PARENT.slice(36, 52));
    expect(
      attempts.map((s) => [parentOf(s), s.attributes['http.response.status_code'], s.attributes['http.request.resend_count']]),
    ).toEqual([
      [call.spanContext().spanId, 503, undefined],
      [call.spanContext().spanId, 200, 1],
    ]);
    expect(attempts[0]!.attributes['error.type']).toBe('503');
    expect(api.sent.map((r) => r.headers.traceparent)).toEqual(
      attempts.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`),
    );
    // the session id is digested, and no URL value is recorded anywhere
    expect(call.attributes['mcp.session.id']).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(all.map((s) => s.attributes))).not.toMatch(/secret|hidden/);
    // the log line names the trace the spans are in
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ traceId: call.spanContext().traceId, attempts: 2, retries: 1 });
  });

  it('a wait between attempts (onWait, for the retry loop and the pacing) is an event on the call span and waitedMs in the log line', async () => {
    exporter.reset();
    const api = upstream(429, 200);
    const send = observer.sender(api.send);
    await observer.call(facts, undefined, () =>
      observer.operation(tool('/pets/{id}'), async () => {
        await send(request(), signal);
        observer.onWait(250, 'retry-after', 'waiting');
        return send(request(), signal);
      }),
    );
    const call = (await spans()).find((s) => s.name === 'tools/call getPet')!;
    expect(call.events.map((e) => [e.name, e.attributes])).toEqual([
      ['retry.wait', { 'retry.wait_ms': 250, 'retry.reason': 'retry-after' }],
    ]);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ attempts: 2, retries: 1, waitedMs: 250 });
  });

  it('a call without a parent starts a trace; a failed request records its error code, never its message', async () => {
    exporter.reset();
    const api = upstream(Object.assign(new Error('getaddrinfo ENOTFOUND secret.example'), { code: 'ENOTFOUND' }));
    const send = observer.sender(api.send);
    const result = await observer.call({ ...facts, tool: 'no such tool', known: false }, undefined, () =>
      observer
        .operation(tool('/pets/{id}'), () => send(request(), signal))
        .then(
          () => ({ isError: false }),
          () => ({ isError: true }),
        ),
    );
    expect(result.isError).toBe(true);
    const all = await spans();
    const call = all.find((s) => s.name === 'tools/call')!;
    expect(parentOf(call)).toBeUndefined();
    expect(call.attributes['error.type']).toBe('tool_error');
    const attempt = all.find((s) => s.name === 'GET /pets/{id}')!;
    expect(attempt.attributes['error.type']).toBe('ENOTFOUND');
    expect(attempt.events).toEqual([]);
  });
});
