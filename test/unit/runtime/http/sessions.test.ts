// The session quota: --max-sessions for a transport, --max-sessions-per-client per IP address.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { claimSession, CountByAddress, releaseSession } from '../../../../src/runtime/http/sessions.js';
import { listenLocally, send, type StepServer } from '../../../harness/http-steps.js';

describe('CountByAddress', () => {
  it('counts each address against the cap on its own', () => {
    const count = new CountByAddress();
    expect([count.take('a', 2), count.take('a', 2), count.take('a', 2), count.take('b', 2)]).toEqual([true, true, false, true]);
    expect(count.give('a')).toBe(1);
    expect(count.take('a', 2)).toBe(true);
  });

  it('giving back more than was taken stays at zero', () => {
    const count = new CountByAddress();
    expect(count.give('a')).toBe(0);
    expect(count.take('a', 1)).toBe(true);
    expect(count.take('a', 1)).toBe(false);
  });
});

describe('claimSession', () => {
  let server: StepServer | undefined;
  const claimed: string[] = [];
  afterEach(async () => {
    for (const client of claimed.splice(0)) releaseSession(client);
    await server?.close();
  });

  /** Each request claims a session for its client, the transport holding `open` already. */
  async function serveClaims(config: { maxSessions: number; maxSessionsPerClient: number }, open = 0) {
    server = await listenLocally(
      createServer((req: IncomingMessage, res: ServerResponse) => {
        const client = claimSession(req, res, config, open);
        if (client === undefined) return;
        claimed.push(client);
        res.end(client);
      }),
    );
    const port = server.port;
    return async () => {
      const answer = await send(port);
      return answer.status === 200 ? answer.text : answer.status;
    };
  }

  it('a client gets sessions up to its cap, then 429 naming its address', async () => {
    const claim = await serveClaims({ maxSessions: 100, maxSessionsPerClient: 2 });
    expect([await claim(), await claim(), await claim()]).toEqual(['127.0.0.1', '127.0.0.1', 429]);
  });

  it('a released session makes room again', async () => {
    const claim = await serveClaims({ maxSessions: 100, maxSessionsPerClient: 1 });
    expect(await claim()).toBe('127.0.0.1');
    releaseSession(claimed.pop()!);
    expect(await claim()).toBe('127.0.0.1');
  });

  it('a transport at --max-sessions answers 503 before counting the client', async () => {
    const claim = await serveClaims({ maxSessions: 3, maxSessionsPerClient: 1 }, 3);
    expect([await claim(), await claim()]).toEqual([503, 503]);
    expect(claimed).toEqual([]);
  });

  it('the refusals are JSON-RPC errors that say what to do', async () => {
    await serveClaims({ maxSessions: 1, maxSessionsPerClient: 1 }, 1);
    expect((await send(server!.port)).json).toMatchObject({
      error: { code: -32000, message: 'Too many open sessions (1); close one or try later' },
    });
    await server!.close();
    await serveClaims({ maxSessions: 10, maxSessionsPerClient: 1 });
    await send(server!.port);
    expect((await send(server!.port)).json).toMatchObject({
      error: { code: -32000, message: expect.stringContaining('Too many open sessions from 127.0.0.1 (1); close one (DELETE /mcp') },
    });
  });
});
