// One SDK Server per connection or per request (src/runtime/mcp/server-instances.ts): a
// request's instance, closed after each exchange, ends what is still pending with the SDK's
// own error, made without a stack (its capture cost every call); a session's keeps it.
import { describe, expect, it } from 'vitest';
import { InMemoryTransport, SdkError, SdkErrorCode, type Server } from '@modelcontextprotocol/server';
import { serverFactory, type Serving } from '../../../../src/runtime/mcp/server-instances.js';
import { Lazy } from '../../../../src/runtime/start/lazy.js';
import { summarize } from '../../../../src/contract/summary.js';
import type { ToolTable } from '../../../../src/contract/table.js';

const table: ToolTable = { format: 1, name: 'api', version: '1', servers: [], defs: {}, auth: {}, tools: [] };

/** Why a tools/call still pending when its instance closed was aborted. */
async function closingReason(serving: Serving): Promise<unknown> {
  let pending: (signal: AbortSignal) => void = () => {};
  const aborted = new Promise<AbortSignal>((resolve) => (pending = resolve));
  const handlers = new Lazy(async () => ({
    attach: (server: Server) =>
      server.setRequestHandler('tools/call', (_request, ctx) => {
        pending(ctx.mcpReq.signal);
        return new Promise(() => {});
      }),
  }));
  await handlers.get();
  const server = serverFactory(summarize(table), 'direct', handlers)(serving);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } });
  const signal = await aborted;
  await server.close();
  return signal.reason;
}

describe('serverFactory', () => {
  it("ends a request instance's pending requests with the SDK's closing error, without a stack", async () => {
    const reason = await closingReason('request');
    expect(reason).toBeInstanceOf(SdkError);
    expect((reason as SdkError).code).toBe(SdkErrorCode.ConnectionClosed);
    expect((reason as Error).stack).not.toMatch(/\n\s+at /);
  });

  it("keeps the stack of a session instance's closing error, and the stack limit after a close", async () => {
    const limit = Error.stackTraceLimit;
    await closingReason('request');
    expect(Error.stackTraceLimit).toBe(limit);
    const reason = await closingReason('session');
    expect((reason as SdkError).code).toBe(SdkErrorCode.ConnectionClosed);
    expect((reason as Error).stack).toMatch(/\n\s+at /);
  });
});
