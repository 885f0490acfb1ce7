// tools/list pages (src/runtime/mcp/pages.ts): a listing too big for one message is split
// into pages under a byte limit, read by the official client through nextCursor; a listing
// that fits is one page with no cursor, since some clients never ask for a second.
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createServerFactory } from '../../../../src/runtime/mcp/server.js';
import { page } from '../../../../src/runtime/mcp/pages.js';
import { pageStarts } from '../../../../src/contract/limits.js';
import { createExecutor } from '../../../../src/runtime/call/executor.js';
import { createLogger } from '../../../../src/runtime/start/log.js';
import { type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import type { ToolSpec, ToolTable } from '../../../../src/contract/table.js';

const tool = (i: number): ToolSpec => ({
  name: `tool_${i}`,
  description: `Tool number ${i}: ${'x'.repeat(200)}`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false },
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: `/t/${i}`, params: [] },
});
const table: ToolTable = {
  format: 1,
  name: 'paged',
  version: '1',
  servers: [{ url: 'https://api.example.com' }],
  defs: {},
  auth: {},
  tools: Array.from({ length: 50 }, (_, i) => tool(i)),
};

async function connect(listPageBytes?: number) {
  const config = readConfig([], {}) as ServerConfig;
  const log = createLogger('paged', 'silent');
  const server = createServerFactory(table, createExecutor(table, config, {}, log), undefined, {
    mode: 'direct',
    profile: 'full',
    initialToolsets: [],
    ...(listPageBytes ? { listPageBytes } : {}),
  })();
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 't', version: '1' });
  await server.connect(b);
  await client.connect(a);
  return client;
}

describe('tools/list pages', () => {
  it('a listing that fits is one page without nextCursor', async () => {
    const client = await connect();
    const result = await client.listTools();
    expect(result.tools).toHaveLength(50);
    expect(result.nextCursor).toBeUndefined();
    await client.close();
  });

  it('over the limit: pages under it, read in order through nextCursor, every tool once', async () => {
    const client = await connect(3_000);
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      // one page at a time: listTools() with no cursor would fetch and join them all
      const result = cursor === undefined ? await client.request({ method: 'tools/list', params: {} }) : await client.listTools({ cursor });
      expect(Buffer.byteLength(JSON.stringify(result.tools))).toBeLessThanOrEqual(3_000);
      names.push(...result.tools.map((t) => t.name));
      cursor = result.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 100);
    expect(pages).toBeGreaterThan(3);
    expect(names).toEqual(table.tools.map((t) => t.name));
    await client.close();
  });

  it("the official client's listTools() follows the cursors and gets every tool", async () => {
    const client = await connect(3_000);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(table.tools.map((t) => t.name));
    await client.close();
  });

  it('a cursor that is not one of ours is a JSON-RPC invalid-params error', async () => {
    const client = await connect(3_000);
    await expect(client.listTools({ cursor: 'bogus' })).rejects.toThrow(/Invalid cursor/);
    await client.close();
  });

  it('pageStarts never makes an empty page, even when one tool is over the limit', () => {
    const big = { name: 'big', inputSchema: { type: 'object' as const }, description: 'y'.repeat(500) };
    const small = { name: 's', inputSchema: { type: 'object' as const } };
    expect(pageStarts([big, small, big], 100)).toEqual([0, 1, 2]);
    expect(page([small], undefined, [0])).toEqual({ tools: [small] });
  });
});
