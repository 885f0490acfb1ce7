// A first tools/list answered from the prepared listing (src/runtime/mcp/early-listing.ts) only
// where the general path would send the same bytes: not to a client that gets Apps views,
// whether it declared the extension at initialize or in the request's own _meta (2026-07-28).
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { CLIENT_CAPABILITIES_META_KEY, InMemoryTransport, Server, type JSONRPCRequest } from '@modelcontextprotocol/server';
import { answerEarly } from '../../../../src/runtime/mcp/early-listing.js';
import type { PreparedListing } from '../../../../src/contract/prepared-listing.js';

const listing: PreparedListing = {
  format: 1,
  table: '1:0',
  mode: 'direct',
  profile: 'portable',
  starts: [0],
  tools: [{ name: 'getPet', description: 'GET /pet.', inputSchema: { type: 'object' } }],
};
const prepared = async () => listing;
const server = () => new Server({ name: 'api', version: '1' }, { capabilities: { tools: {} } });
const list = (meta?: Record<string, unknown>): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: meta ? { _meta: meta } : {},
});
const appsExtension = { extensions: { 'io.modelcontextprotocol/ui': {} } };
const declaringApps = { [CLIENT_CAPABILITIES_META_KEY]: appsExtension };

/** A server whose 2025-era session began with an initialize declaring the Apps extension. */
async function sessionDeclaringApps(): Promise<{ server: Server; client: Client }> {
  const server = new Server({ name: 'api', version: '1' }, { capabilities: { tools: {} } });
  const client = new Client({ name: 'apps-client', version: '1' }, { capabilities: appsExtension });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { server, client };
}

describe('answerEarly', () => {
  it('answers a request whose client gets no views', async () => {
    expect(await answerEarly(server(), list(), prepared, 'auto')).toBe(true);
    expect(await answerEarly(server(), list({ [CLIENT_CAPABILITIES_META_KEY]: {} }), prepared, 'auto')).toBe(true);
  });

  it('declines a request that declares Apps in its _meta envelope, unless --apps is off', async () => {
    expect(await answerEarly(server(), list(declaringApps), prepared, 'auto')).toBe(false);
    expect(await answerEarly(server(), list(declaringApps), prepared, 'off')).toBe(true);
  });

  it('declines a session whose client declared Apps at initialize, unless --apps is off', async () => {
    const { server: session, client } = await sessionDeclaringApps();
    try {
      expect(await answerEarly(session, list(), prepared, 'auto')).toBe(false);
      expect(await answerEarly(session, list(), prepared, 'off')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('declines when there is no prepared listing for this table', async () => {
    expect(await answerEarly(server(), list(), async () => undefined, 'auto')).toBe(false);
  });
});
