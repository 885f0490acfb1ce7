// CORS headers only for listed origins; their preflight is answered without going further.
import { afterEach, describe, expect, it } from 'vitest';
import { cors } from '../../../../src/runtime/http/cors.js';
import { send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

describe('cors', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it.each([
    ['off: no header', [], 'GET', 'https://web.example', 200, undefined],
    ['off: a preflight goes on', [], 'OPTIONS', 'https://web.example', 200, undefined],
    ['a listed origin', ['https://web.example'], 'GET', 'https://web.example', 200, 'https://web.example'],
    ['an unlisted origin', ['https://web.example'], 'GET', 'https://other.example', 200, undefined],
    ['no Origin', ['https://web.example'], 'POST', undefined, 200, undefined],
    ['a listed preflight', ['https://web.example'], 'OPTIONS', 'https://web.example', 204, 'https://web.example'],
    ['an unlisted preflight goes on', ['https://web.example'], 'OPTIONS', 'https://other.example', 200, undefined],
    ['any origin', ['*'], 'GET', 'https://any.example', 200, '*'],
  ])('%s', async (_name, origins, method, origin, want, allowOrigin) => {
    server = await serveSteps(cors(origins));
    const answer = await send(server.port, { method, headers: origin === undefined ? {} : { origin } });
    expect(answer.status).toBe(want);
    expect(answer.headers['access-control-allow-origin']).toBe(allowOrigin);
    if (allowOrigin !== undefined) {
      expect(answer.headers.vary).toBe('Origin');
      expect(answer.headers['access-control-expose-headers']).toBe('Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
    }
  });

  it('the preflight names the methods and headers an MCP client sends', async () => {
    server = await serveSteps(cors(['https://web.example']));
    const answer = await send(server.port, { method: 'OPTIONS', headers: { origin: 'https://web.example' } });
    expect(answer.headers).toMatchObject({
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': 'Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept',
      'access-control-max-age': '600',
    });
    expect(answer.text).toBe('');
  });
});
