// GET /healthz: 200 while serving, 503 once draining; every other request goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { healthCheck } from '../../../../src/runtime/http/health.js';
import { send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

describe('healthCheck', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it.each([
    ['serving', false, 'GET', '/healthz', 200, { status: 'ok' }],
    ['draining', true, 'GET', '/healthz', 503, { status: 'draining' }],
    ['with a query', false, 'GET', '/healthz?probe=1', 200, { status: 'ok' }],
    ['another method goes on', false, 'POST', '/healthz', 200, { passed: true }],
    ['another path goes on', true, 'GET', '/mcp', 200, { passed: true }],
  ])('%s', async (_name, draining, method, path, want, json) => {
    server = await serveSteps(healthCheck(() => draining));
    expect(await send(server.port, { method, path })).toMatchObject({ status: want, json });
  });
});
