// Host and Origin must name this server (DNS-rebinding protection): loopback names always,
// other names only when the operator lists them.
import { afterEach, describe, expect, it } from 'vitest';
import { hostOriginGuard } from '../../../../src/runtime/http/guard.js';
import { hostnameOf } from '../../../../src/runtime/http/host-names.js';
import { send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

const NONE = { allowedHosts: [], allowedOrigins: [], corsOrigins: [] };

describe('hostOriginGuard', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it.each([
    ['loopback Host, no Origin', NONE, { host: '127.0.0.1:1' }, 200],
    ['localhost Host', NONE, { host: 'localhost:1' }, 200],
    ['IPv6 loopback Host', NONE, { host: '[::1]:1' }, 200],
    ['a foreign Host', NONE, { host: 'evil.example' }, 403],
    ['a listed Host', { ...NONE, allowedHosts: ['api.example.com'] }, { host: 'api.example.com' }, 200],
    [
      'a listed Host given with scheme and port',
      { ...NONE, allowedHosts: ['https://api.example.com:8443'] },
      { host: 'api.example.com:8443' },
      200,
    ],
    ['a loopback Origin', NONE, { host: 'localhost', origin: 'http://localhost:5173' }, 200],
    ['a foreign Origin', NONE, { host: 'localhost', origin: 'http://evil.example' }, 403],
    [
      'a listed Origin',
      { ...NONE, allowedOrigins: ['https://app.example.com'] },
      { host: 'localhost', origin: 'https://app.example.com' },
      200,
    ],
    [
      'an Origin on a listed Host',
      { ...NONE, allowedHosts: ['app.example.com'] },
      { host: 'localhost', origin: 'https://app.example.com' },
      200,
    ],
    ['a CORS origin', { ...NONE, corsOrigins: ['https://web.example'] }, { host: 'localhost', origin: 'https://web.example' }, 200],
    ['any Origin with CORS *', { ...NONE, corsOrigins: ['*'] }, { host: 'localhost', origin: 'http://evil.example' }, 200],
    ['CORS * still checks the Host', { ...NONE, corsOrigins: ['*'] }, { host: 'evil.example', origin: 'http://evil.example' }, 403],
    [
      "the OAuth public URL's host and origin",
      { ...NONE, oauth: { publicUrl: 'https://mcp.example.com' } as never },
      { host: 'mcp.example.com', origin: 'https://mcp.example.com' },
      200,
    ],
    ['only that host', { ...NONE, oauth: { publicUrl: 'https://mcp.example.com' } as never }, { host: 'evil.example' }, 403],
  ])('%s', async (_name, config, headers, want) => {
    server = await serveSteps(hostOriginGuard(config));
    const answer = await send(server.port, { headers });
    expect(answer.status).toBe(want);
    if (want === 403) expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });
});

describe('hostnameOf', () => {
  it.each([
    ['https://app.example.com:8443', 'app.example.com'],
    ['app.example.com:8443', 'app.example.com'],
    ['app.example.com', 'app.example.com'],
    ['http://[::1]:3000', '[::1]'],
    ['http://exa mple', 'http://exa mple'],
  ])('%s → %s', (given, want) => {
    expect(hostnameOf(given)).toBe(want);
  });
});
