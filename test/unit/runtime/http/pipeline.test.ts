// The request pipeline runs its steps in order until one answers; synchronous steps run within
// the request event itself.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson } from '../../../../src/runtime/http/answer.js';
import { pipeline, type Exchange, type HttpStep } from '../../../../src/runtime/http/pipeline.js';
import { send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

const exchange = (): Exchange => ({ req: {} as IncomingMessage, res: {} as ServerResponse, url: new URL('http://localhost/') });

describe('pipeline', () => {
  it.each([
    ['every step passes', [true, true, true], ['a', 'b', 'c']],
    ['the second answers', [true, false, true], ['a', 'b']],
    ['the first answers', [false, true, true], ['a']],
  ])('%s', async (_name, passes, want) => {
    const ran: string[] = [];
    const steps = ['a', 'b', 'c'].map(
      (name, i): HttpStep =>
        () => (ran.push(name), passes[i]!),
    );
    await pipeline(steps)(exchange());
    expect(ran).toEqual(want);
  });

  it('waits for an asynchronous step before the next, and stops when it answers', async () => {
    const ran: string[] = [];
    const later =
      (name: string, passed: boolean): HttpStep =>
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        ran.push(name);
        return passed;
      };
    await pipeline([later('a', true), later('b', false), later('c', true)])(exchange());
    expect(ran).toEqual(['a', 'b']);
  });

  it('runs synchronous steps before it returns, an asynchronous one stops that', () => {
    const ran: string[] = [];
    const sync =
      (name: string): HttpStep =>
      () => (ran.push(name), true);
    const done = pipeline([sync('a'), sync('b'), async () => true, sync('c')])(exchange());
    expect(ran).toEqual(['a', 'b']);
    return done.then(() => expect(ran).toEqual(['a', 'b', 'c']));
  });

  it('a step sees what an earlier step set on the exchange', async () => {
    let seen: unknown;
    const steps: HttpStep[] = [(e) => ((e.body = { id: 1 }), true), (e) => ((seen = e.body), true)];
    await pipeline(steps)(exchange());
    expect(seen).toEqual({ id: 1 });
  });

  it('rejects with the error a step throws', async () => {
    const failing: HttpStep = () => {
      throw new Error('boom');
    };
    await expect(pipeline([failing])(exchange())).rejects.toThrow('boom');
  });
});

describe('pipeline on a real server', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it('the request is answered by the first step that answers', async () => {
    const teapot: HttpStep = ({ url, res }) => {
      if (url.pathname !== '/tea') return true;
      sendJson(res, 418, { tea: true });
      return false;
    };
    server = await serveSteps(teapot);
    expect(await send(server.port, { path: '/tea' })).toMatchObject({ status: 418, json: { tea: true } });
    expect(await send(server.port, { path: '/coffee' })).toMatchObject({ status: 200, json: { passed: true } });
  });
});
