// Retries that respect the API (src/runtime/call/send/retry.ts) and the pace of requests per origin
// (src/runtime/call/send/pacing.ts), in their parts: reading Retry-After, the backoff's bounds, which
// requests may be sent twice, the FIFO of request slots and the rate's spacing. The whole,
// through a generated server, is test/e2e/retries.test.ts.
import { describe, expect, it } from 'vitest';
import { backoffMs, BACKOFF, createSending, mayRetry, retryAfterMs } from '../../../../../src/runtime/call/send/retry.js';
import { createPacer, PacingError, duration, sleep } from '../../../../../src/runtime/call/send/pacing.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';
import type { UpstreamResponse } from '../../../../../src/runtime/call/send/upstream-response.js';
import type { OutgoingRequest } from '../../../../../src/runtime/hooks-api.js';
import type { ToolSpec } from '../../../../../src/contract/table.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('Retry-After (RFC 9110 §10.2.3)', () => {
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Thu, 26 Nov 2026 12:00:30 GMT', 30_000],
    ['Thursday, 26-Nov-26 12:01:00 GMT', 60_000],
    ['Thu Nov 26 12:00:05 2026', 5_000],
    // a date already past: no wait, not a negative one
    ['Thu, 26 Nov 2026 11:00:00 GMT', 0],
  ])('%j → %i ms', (value, ms) => {
    expect(retryAfterMs(value, NOW)).toBe(ms);
  });

  it.each([null, undefined, '', '1.5', '-3', 'soon', '2026-11-26T12:00:30Z', 'Thu, 26 Nov 2026 12:00:30'])(
    '%j is no Retry-After (the backoff applies)',
    (value) => {
      expect(retryAfterMs(value, NOW)).toBeUndefined();
    },
  );
});

describe('backoff with full jitter', () => {
  it('stays between 0 and min(cap, base · 2^(retry−1))', () => {
    const policy = { baseMs: 250, capMs: 2_000 };
    expect(backoffMs(1, policy, () => 0)).toBe(0);
    expect(backoffMs(1, policy, () => 0.999_999)).toBe(249);
    expect(backoffMs(2, policy, () => 0.999_999)).toBe(499);
    expect(backoffMs(3, policy, () => 0.5)).toBe(500);
    // capped from the fourth retry on
    expect(backoffMs(4, policy, () => 0.999_999)).toBe(1_999);
    expect(backoffMs(30, policy, () => 0.999_999)).toBe(1_999);
    for (let retry = 1; retry <= 10; retry++) {
      const ms = backoffMs(retry, BACKOFF);
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** (retry - 1)));
    }
  });
});

describe('which requests may be sent again', () => {
  const tool = (method: string, idempotencyKey?: string) =>
    ({ name: 't', http: { method, path: '/x', params: [], ...(idempotencyKey ? { idempotencyKey } : {}) } }) as unknown as ToolSpec;

  it.each(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'get'])('%s: always (RFC 9110 §9.2.2)', (method) => {
    expect(mayRetry(tool(method), { method, headers: {} })).toBe(true);
  });

  it("QUERY (OAS 3.2) and the IANA registry's idempotent methods: always; a method it does not hold, or in other capitals, never", () => {
    expect(mayRetry(tool('QUERY'), { method: 'QUERY', headers: {} })).toBe(true);
    expect(mayRetry(tool('COPY'), { method: 'COPY', headers: {} })).toBe(true);
    expect(mayRetry(tool('PURGE'), { method: 'PURGE', headers: {} })).toBe(false);
    expect(mayRetry(tool('copy'), { method: 'copy', headers: {} })).toBe(false);
  });

  it('POST and PATCH: only with the Idempotency-Key their operation declares, present in the request (any case)', () => {
    expect(mayRetry(tool('POST'), { method: 'POST', headers: { 'Idempotency-Key': 'k' } })).toBe(false);
    expect(mayRetry(tool('POST', 'Idempotency-Key'), { method: 'POST', headers: {} })).toBe(false);
    expect(mayRetry(tool('POST', 'Idempotency-Key'), { method: 'POST', headers: { 'idempotency-key': 'k' } })).toBe(true);
    expect(mayRetry(tool('PATCH', 'idempotency-key'), { method: 'PATCH', headers: { 'Idempotency-Key': 'k' } })).toBe(true);
  });
});

const quiet = createLogger('test', 'silent');
const noWait = () => undefined;
/** For what does not send. */
const NO_CHAIN = { upstream: () => Promise.reject(new Error('not sent')), around: [], onWait: noWait };

describe('the Idempotency-Key a POST or PATCH is retried with', () => {
  const keyedTool = (method: string) =>
    ({
      name: 't',
      http: {
        method,
        path: '/x',
        params: [{ arg: 'Idempotency-Key', name: 'Idempotency-Key', in: 'header', style: 'simple', explode: false, required: false }],
        idempotencyKey: 'Idempotency-Key',
      },
    }) as unknown as ToolSpec;
  const sending = createSending({ retries: 2, maxConcurrent: 8 }, quiet, NO_CHAIN);
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is made once per call when the agent gave none (or null), a new one for each call', () => {
    const first = sending.keyed(keyedTool('POST'), { body: {} });
    expect(first['Idempotency-Key']).toMatch(UUID);
    expect(sending.keyed(keyedTool('PATCH'), { 'Idempotency-Key': null })['Idempotency-Key']).toMatch(UUID);
    expect(sending.keyed(keyedTool('POST'), { body: {} })['Idempotency-Key']).not.toBe(first['Idempotency-Key']);
  });

  it("is the agent's (or its beforeRequest hook's) when given; none is made for other methods, nor without retries", () => {
    expect(sending.keyed(keyedTool('POST'), { 'Idempotency-Key': 'mine' })).toEqual({ 'Idempotency-Key': 'mine' });
    expect(sending.keyed(keyedTool('GET'), {})).toEqual({});
    expect(sending.keyed(keyedTool('PUT'), {})).toEqual({});
    expect(createSending({ retries: 0, maxConcurrent: 8 }, quiet, NO_CHAIN).keyed(keyedTool('POST'), {})).toEqual({});
  });
});

/** A response whose body is two chunks, and which says when it was discarded. */
function response(status = 200): UpstreamResponse & { discarded: boolean } {
  const made = {
    status,
    statusText: 'OK',
    header: () => null,
    headerList: () => [],
    body: (async function* () {
      yield new Uint8Array([1]);
      yield new Uint8Array([2]);
    })(),
    discarded: false,
    discard: () => void (made.discarded = true),
  };
  return made;
}

async function drain(answer: UpstreamResponse): Promise<void> {
  for await (const chunk of answer.body ?? []) void chunk;
}

describe('request slots per origin', () => {
  it('at most N in flight; the others get a slot first come first served, when a body is read or dropped', async () => {
    const pacer = createPacer({ maxConcurrent: 2 }, quiet, noWait);
    const never = new AbortController().signal;
    const call = pacer.forCall(never, Date.now() + 10_000, 'test');
    const order: number[] = [];
    const sent = [1, 2, 3, 4].map((n) =>
      call.send('http://a', async () => {
        order.push(n);
        return response();
      }),
    );
    const [first, second] = await Promise.all([sent[0], sent[1]]);
    await sleep(10, never);
    expect(order).toEqual([1, 2]);
    // another origin has slots of its own
    await call.send('http://b', async () => response());
    await drain(first as UpstreamResponse);
    await sent[2];
    expect(order).toEqual([1, 2, 3]);
    (second as UpstreamResponse).discard();
    await sent[3];
    expect(order).toEqual([1, 2, 3, 4]);
    call.done();
  });

  it("a call's end frees its slots, and a wait ends with the call's signal, naming the setting on a timeout", async () => {
    const pacer = createPacer({ maxConcurrent: 1 }, quiet, noWait);
    const holder = pacer.forCall(new AbortController().signal, Date.now() + 10_000, 'holder');
    await holder.send('http://a', async () => response());
    const timer = new AbortController();
    const waiting = pacer.forCall(timer.signal, Date.now() + 10_000, 'waiting').send('http://a', async () => response());
    timer.abort(new DOMException('no answer within 50 ms', 'TimeoutError'));
    await expect(waiting).rejects.toThrow(
      new PacingError('all 1 request slots to http://a stayed busy for the whole call (--max-concurrent-requests)'),
    );
    const cancel = new AbortController();
    const cancelled = pacer.forCall(cancel.signal, Date.now() + 10_000, 'cancelled').send('http://a', async () => response());
    cancel.abort(new Error('cancelled by the client'));
    await expect(cancelled).rejects.toThrow('cancelled by the client');
    // the two that gave up left the queue: the slot the holder frees goes to the next comer
    holder.done();
    const next = pacer.forCall(new AbortController().signal, Date.now() + 10_000, 'next');
    await expect(next.send('http://a', async () => response())).resolves.toBeDefined();
    next.done();
  });
});

describe('rate limit per origin', () => {
  it('spaces requests 1/N s apart, and refuses at once a wait that would end after the call', async () => {
    const pacer = createPacer({ maxConcurrent: 100, ratePerSecond: 10 }, quiet, noWait);
    const signal = new AbortController().signal;
    const call = pacer.forCall(signal, Date.now() + 10_000, 'test');
    const times: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map(() =>
        call.send('http://a', async () => {
          times.push(Date.now());
          return response();
        }),
      ),
    );
    // Each request goes at its slot or later, never earlier: the i-th no sooner than i intervals after the first (a timer
    // may fire a millisecond early). Two neighbours may be closer when the first of them was late, as in any schedule.
    for (let i = 1; i < times.length; i++) expect((times[i] as number) - (times[0] as number)).toBeGreaterThanOrEqual(i * 100 - 2);
    const short = pacer.forCall(signal, Date.now() + 30, 'short');
    await call.send('http://a', async () => response());
    const started = Date.now();
    await expect(short.send('http://a', async () => response())).rejects.toThrow(
      /^the rate limit \(--rate-limit 10 per second to http:\/\/a\) would hold it \d+ ms, longer than the \d+ ms left of the call's time$/,
    );
    expect(Date.now() - started).toBeLessThan(20);
    call.done();
    short.done();
  });

  it('says waits in duration', () => {
    expect([duration(30_000), duration(1_234), duration(12_600), duration(250.4), duration(-5)]).toEqual([
      '30 s',
      '1.2 s',
      '13 s',
      '250 ms',
      '0 ms',
    ]);
  });
});

describe('a 401 to a token that can be renewed (RFC 6750 §3.1)', () => {
  const tool = { name: 't', http: { method: 'GET', path: '/x', params: [] } } as unknown as ToolSpec;
  const request = (token: string) => ({ tool: 't', method: 'GET', url: 'http://a/x', headers: { authorization: token } });
  const limit = () => ({ signal: new AbortController().signal, endsAt: Date.now() + 10_000 });
  /** Tries whose upstream answers 401 to everything, keeping the tokens it saw and the answers it gave. */
  const answering401 = () => {
    const seen: string[] = [];
    const answers: (UpstreamResponse & { discarded: boolean })[] = [];
    const upstream = async (sent: OutgoingRequest) => {
      seen.push(sent.headers.authorization as string);
      answers.push(response(401));
      return answers.at(-1) as UpstreamResponse;
    };
    const attempts = createSending({ retries: 2, maxConcurrent: 8 }, quiet, { upstream, around: [], onWait: noWait }).forCall(
      tool,
      limit(),
    );
    return { seen, answers, attempts };
  };

  it('is sent once more with the request refresh prepares, once per call; the first answer is discarded', async () => {
    const { seen, answers, attempts } = answering401();
    let refreshed = 0;
    const sent = await attempts.send(request('old'), async () => (refreshed++, { request: request('new') }));
    expect(seen).toEqual(['old', 'new']);
    expect(refreshed).toBe(1);
    expect('failure' in sent ? undefined : sent.request.headers.authorization).toBe('new');
    expect(answers.map((a) => a.discarded)).toEqual([true, false]);
    attempts.done();
  });

  it('without refresh (no fetched or exchanged token) the 401 is the answer', async () => {
    const { seen, attempts } = answering401();
    const sent = await attempts.send(request('static'));
    expect(seen).toEqual(['static']);
    expect('failure' in sent ? undefined : sent.response.status).toBe(401);
    attempts.done();
  });
});
