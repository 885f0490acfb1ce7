// The send step of a call (src/runtime/call/send/exchange.ts): how a request is named in messages,
// the answer of a real local upstream read within the size limit, one deadline over the
// exchange, and why no answer came, in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadline, networkFailure, readAnswer, requestLabel } from '../../../../../src/runtime/call/send/exchange.js';
import { RedirectError, sendOnce } from '../../../../../src/runtime/call/send/upstream.js';
import { startUpstream, type Upstream } from '../../../../harness/upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream((req) =>
    req.path === '/empty'
      ? { status: 204 }
      : { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '10' }, body: '0123456789' },
  );
});
afterAll(async () => upstream?.close());

describe('requestLabel', () => {
  it.each([
    ['no query', 'GET', 'https://api.example/v1/pets', 'GET https://api.example/v1/pets'],
    ['the query left out: it may carry a key', 'POST', 'https://api.example/v1/pets?api_key=s3cret#x', 'POST https://api.example/v1/pets'],
    ['a default port dropped, another kept', 'GET', 'http://api.example:8080/', 'GET http://api.example:8080/'],
  ])('%s', (_name, method, url, want) => {
    expect(requestLabel({ method, url }).label).toBe(want);
  });
});

describe('readAnswer', () => {
  const named = { label: 'GET /x', uri: 'http://up/x' };
  const get = (path: string) => sendOnce(new URL(`${upstream.url}${path}`), 'GET', {}, undefined, new AbortController().signal);
  it.each([
    ['whole, under the limit', '/text', 100, { bytes: '0123456789', truncated: false, declaredLength: 10 }],
    ['cut at the limit, with the declared length', '/text', 4, { bytes: '0123', truncated: true, declaredLength: 10 }],
    ['no content', '/empty', 100, { bytes: '', truncated: false, declaredLength: undefined }],
  ])('%s', async (_name, path, limit, want) => {
    const answer = await readAnswer(await get(path), named, limit);
    expect({ bytes: new TextDecoder().decode(answer.bytes), truncated: answer.truncated, declaredLength: answer.declaredLength }).toEqual(
      want,
    );
    expect(answer.label).toBe('GET /x');
  });
  it('keeps the status and content type as sent', async () => {
    const answer = await readAnswer(await get('/text'), named, 100);
    expect([answer.status, answer.statusText, answer.contentType]).toEqual([200, 'OK', 'text/plain; charset=utf-8']);
  });
});

describe('deadline', () => {
  it('aborts at the time limit and says so', async () => {
    const limit = deadline(new AbortController().signal, 10);
    await new Promise((resolve) => limit.signal.addEventListener('abort', resolve));
    expect(limit.timedOut()).toBe(true);
    expect((limit.signal.reason as DOMException).name).toBe('TimeoutError');
    limit.done();
  });
  it('aborts with the client’s cancellation, already given or given later, and not as a timeout', () => {
    const early = new AbortController();
    early.abort('gone');
    const before = deadline(early.signal, 60_000);
    expect([before.signal.aborted, before.signal.reason, before.timedOut()]).toEqual([true, 'gone', false]);
    before.done();
    const late = new AbortController();
    const after = deadline(late.signal, 60_000);
    expect(after.signal.aborted).toBe(false);
    late.abort('later');
    expect([after.signal.aborted, after.signal.reason]).toEqual([true, 'later']);
    after.done();
  });
  it('once done, neither the timer nor the client aborts it', async () => {
    const client = new AbortController();
    const limit = deadline(client.signal, 5);
    limit.done();
    client.abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(limit.signal.aborted).toBe(false);
  });
});

describe('networkFailure', () => {
  const open = new AbortController().signal;
  const cancelled = AbortSignal.abort();
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it.each([
    ['the time limit first', new Error('x'), true, cancelled, 'GET /x: no answer within 1000 ms (timeout; raise it with --timeout)'],
    ['the client', new Error('x'), false, cancelled, 'GET /x: cancelled by the client'],
    ['a refused redirect', new RedirectError('more than 5 redirects'), false, open, 'GET /x: not followed: more than 5 redirects'],
    ['node:http’s code', coded('ECONNREFUSED'), false, open, 'GET /x: request failed (ECONNREFUSED)'],
    [
      'fetch’s code, in its cause',
      Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }),
      false,
      open,
      'GET /x: request failed (ENOTFOUND)',
    ],
    ['else the message', new Error('socket hang up'), false, open, 'GET /x: request failed (socket hang up)'],
  ])('%s', (_name, error, timedOut, signal, want) => {
    expect(networkFailure(error, 'GET /x', timedOut, signal, 1000)).toBe(want);
  });
  it('an internal address: says which servers may not take calls and how to choose another', () => {
    const text = networkFailure(coded('EINTERNAL', '10.0.0.1 is a private address'), 'GET /x', false, open, 1000);
    expect(text).toMatch(
      /^GET \/x: not sent: 10\.0\.0\.1 is a private address, where the servers of a spec loaded from a URL .*--base-url/,
    );
  });
});
