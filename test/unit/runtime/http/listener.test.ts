// The order of the request pipeline: readiness before everything, CORS preflight before the
// guard, the guard before authentication, authentication before the body is read.
import { afterEach, describe, expect, it } from 'vitest';
import { type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import { requestSteps } from '../../../../src/runtime/http/listener.js';
import { Drain } from '../../../../src/runtime/http/drain.js';
import type { HttpEndpoints } from '../../../../src/runtime/http/endpoints.js';
import { recordingLogger, send, serveSteps, type Sent, type StepServer } from '../../../harness/http-steps.js';

const config = readConfig(['--transport', 'http', '--cors-origins', 'https://web.example'], { MCP_AUTH_TOKEN: 't' }) as ServerConfig;
const TOKEN = { authorization: 'Bearer t' };
const JSON_TYPE = { 'content-type': 'application/json' };

/** Owns /mcp and answers 204 without reading anything. */
const mcp: HttpEndpoints = {
  describe: 'test at /mcp',
  async handle(_req, res, url) {
    if (url.pathname !== '/mcp') return false;
    res.writeHead(204).end();
    return true;
  },
  close: async () => {},
};

describe('requestSteps', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it.each<[string, Sent, number]>([
    ['the probe needs neither a listed Host nor the token', { path: '/healthz', headers: { host: '10.0.0.7:3000' } }, 200],
    [
      'a preflight from a listed origin needs no token',
      { method: 'OPTIONS', path: '/mcp', headers: { origin: 'https://web.example' } },
      204,
    ],
    [
      'a foreign Host is refused before the token is looked at',
      { method: 'POST', path: '/mcp', headers: { host: 'evil.example', ...TOKEN } },
      403,
    ],
    ['no token: 401 before the body is read', { method: 'POST', path: '/mcp', headers: JSON_TYPE, body: '{"broken":' }, 401],
    ['with the token the body is checked', { method: 'POST', path: '/mcp', headers: { ...JSON_TYPE, ...TOKEN }, body: '{"broken":' }, 400],
    ['then the endpoint answers', { method: 'POST', path: '/mcp', headers: { ...JSON_TYPE, ...TOKEN }, body: '{}' }, 204],
    ['an unknown path is 404', { path: '/nowhere', headers: TOKEN }, 404],
  ])('%s', async (_name, request, want) => {
    server = await serveSteps(...requestSteps(config, new Drain(config, recordingLogger()), [mcp]));
    expect((await send(server.port, request)).status).toBe(want);
  });
});
