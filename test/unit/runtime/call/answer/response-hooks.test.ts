// The afterResponse hooks (src/runtime/call/answer/response-hooks.ts) see a real upstream's answer
// as a fetch Response that is built only when a hook reads it: an answer no hook read goes on
// as it came; one a hook read, changed or replaced goes on as the hook left it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingRequest } from '../../../../../src/runtime/hooks-api.js';
import { afterResponse, lazyResponse, type AfterResponse } from '../../../../../src/runtime/call/answer/response-hooks.js';
import { readLimited, sendOnce } from '../../../../../src/runtime/call/send/upstream.js';
import type { UpstreamResponse } from '../../../../../src/runtime/call/send/upstream-response.js';
import { startUpstream, type Upstream } from '../../../../harness/upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream(() => ({ headers: { 'x-from': 'upstream' }, body: '{"name":"rex"}' }));
});
afterAll(async () => upstream?.close());

const request = (): OutgoingRequest => ({ tool: 'getPet', method: 'GET', url: `${upstream.url}/pets/1`, headers: {} });
const answer = () => sendOnce(new URL(request().url), 'GET', {}, undefined, new AbortController().signal);
const text = async (response: UpstreamResponse) => new TextDecoder().decode((await readLimited(response, 1 << 20)).bytes);

describe('afterResponse', () => {
  it('without hooks, or with hooks that never read the answer, the answer goes on unconverted', async () => {
    const seen: string[] = [];
    const quiet: AfterResponse = (_response, sent) => void seen.push(sent.tool);
    for (const hooks of [[], [undefined, undefined], [quiet, quiet]]) {
      const original = await answer();
      const after = await afterResponse(original, request(), hooks);
      expect(after).toBe(original);
      expect(await text(after)).toBe('{"name":"rex"}');
    }
    expect(seen).toEqual(['getPet', 'getPet']);
  });

  it.each<[string, AfterResponse[], { status: number; from: string | null; body: string }]>([
    [
      'a hook that reads the body and returns a new Response: the new one',
      [
        async (response) => {
          const body = (await response.json()) as { name: string };
          return new Response(JSON.stringify({ name: body.name.toUpperCase() }), { status: 201, headers: response.headers });
        },
      ],
      { status: 201, from: 'upstream', body: '{"name":"REX"}' },
    ],
    [
      'a hook that changes a header and returns nothing: the changed one',
      [(response) => void response.headers.set('x-from', 'hook')],
      { status: 200, from: 'hook', body: '{"name":"rex"}' },
    ],
    [
      'the tool’s hook, then the global one, each given what the one before returned',
      [() => new Response('tool', { status: 202 }), async (response) => new Response(`${await response.text()}+global`, response)],
      { status: 202, from: null, body: 'tool+global' },
    ],
    [
      'a hook that returns the very Response it was given: as if it returned nothing',
      [(response) => response],
      { status: 200, from: 'upstream', body: '{"name":"rex"}' },
    ],
  ])('%s', async (_name, hooks, want) => {
    const after = await afterResponse(await answer(), request(), hooks);
    expect({ status: after.status, from: after.header('x-from'), body: await text(after) }).toEqual(want);
  });
});

describe('lazyResponse', () => {
  it('is a Response, and builds nothing until it is read', async () => {
    const lazy = lazyResponse(await answer());
    expect(lazy.response).toBeInstanceOf(Response);
    expect(await Promise.resolve(lazy.response)).toBe(lazy.response); // awaiting it reads nothing
    expect(lazy.built()).toBeUndefined();
    expect(lazy.response.status).toBe(200);
    expect(lazy.built()).toBeInstanceOf(Response);
    expect(lazy.response.headers.get('x-from')).toBe('upstream');
    expect(await lazy.response.clone().json()).toEqual({ name: 'rex' });
    expect(await lazy.response.text()).toBe('{"name":"rex"}');
    expect(lazy.response.bodyUsed).toBe(true);
  });
});
