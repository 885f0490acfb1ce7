// The platforms' tracing (telemetry-web.ts) when its OTLP receiver fails: a receiver that is
// not there, or answers later than the export may wait, costs the call at most that wait and
// never its result, and is said once in the log, not at every call. Real fetch to real local
// ports; the tracing is the one the platforms run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startWebTracing } from '../../../../src/runtime/observe/telemetry-web.js';
import { UNSCOPED } from '../../../../src/runtime/observe/call-scope.js';
import { freePort } from '../../../../harness/process.js';

const FACTS = { tool: 'getPet', known: true };
const servers: Server[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Tracing that exports to `endpoint`, with the warnings it gives. */
function tracingTo(endpoint: string) {
  const warnings: string[] = [];
  const tracing = startWebTracing({
    serviceName: 'pets',
    serviceVersion: '1.0.0',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    scopes: UNSCOPED,
    warn: (message) => warnings.push(message),
  });
  const call = () =>
    tracing.toolCall(
      FACTS,
      undefined,
      () => Promise.resolve({ content: [] }),
      () => false,
    );
  return { call, warnings };
}

describe('the platforms tracing, its receiver failing', () => {
  it('a receiver that is not there: each call still gets its result, the failure is said once', async () => {
    const { call, warnings } = tracingTo(`http://127.0.0.1:${await freePort()}`);
    expect(await call()).toEqual({ content: [] });
    expect(await call()).toEqual({ content: [] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^telemetry: spans not exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: /);
  });

  it('a receiver slower than the export waits holds the call about 2 s, no more', async () => {
    const silent = createServer(() => undefined);
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { call, warnings } = tracingTo(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    const started = Date.now();
    expect(await call()).toEqual({ content: [] });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(warnings).toEqual([expect.stringContaining('no answer within 2000 ms')]);
    silent.closeAllConnections();
  }, 10_000);
});
