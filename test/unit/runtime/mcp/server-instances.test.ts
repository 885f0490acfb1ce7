// One SDK Server per connection or per request (src/runtime/mcp/server-instances.ts): a
// request's instance, closed after each exchange, ends what is still pending with the SDK's
// own error, made without a stack (its capture cost every call); a session's keeps it.
import { describe, expect, it } from 'vitest';
import { InMemoryTransport, SdkError, SdkErrorCode, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import type { EarlyListing } from '../../../../src/runtime/mcp/early-listing.js';
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

/**
 * A session instance whose table loads on first need, sent a tools/list and a tools/call back to
 * back: what happened, in order (the table's loading, each answer and what it listed or said).
 */
async function listThenCall(early: EarlyListing | undefined): Promise<string[]> {
  const events: string[] = [];
  const handlers = new Lazy(async () => {
    events.push('table loaded');
    return {
      attach: (server: Server) => {
        server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'fromTable', inputSchema: { type: 'object' as const } }] }));
        server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text' as const, text: 'called' }] }));
      },
    };
  });
  const server = serverFactory(summarize(table), 'direct', handlers, early)('session');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answered = new Promise<void>((resolve) => {
    clientSide.onmessage = (message: JSONRPCMessage) => {
      const result = (message as { id: number; result: { tools?: { name: string }[]; content?: { text: string }[] } }).result;
      events.push(`answer ${(message as { id: number }).id}: ${result.tools?.[0]?.name ?? result.content?.[0]?.text}`);
      if ((message as { id: number }).id === 2) resolve();
    };
  });
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  await clientSide.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fromTable', arguments: {} } });
  await answered;
  await server.close();
  return events;
}

describe('an instance whose table is not loaded yet', () => {
  it('answers a first tools/list the early listing takes before loading the table, and the call after it', async () => {
    const early: EarlyListing = async (server) => {
      server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'prepared', inputSchema: { type: 'object' as const } }] }));
      return true;
    };
    expect(await listThenCall(early)).toEqual(['answer 1: prepared', 'table loaded', 'answer 2: called']);
  });

  it('loads the table first when the early listing declines, or when there is none', async () => {
    const declines: EarlyListing = async () => false;
    const loadedFirst = ['table loaded', 'answer 1: fromTable', 'answer 2: called'];
    expect(await listThenCall(declines)).toEqual(loadedFirst);
    expect(await listThenCall(undefined)).toEqual(loadedFirst);
  });
});
