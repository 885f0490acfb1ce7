// What a failed resources/read tells the client, by the upstream's status (the table in
// docs/tools.md, "Route mapping"), through the official client: 404 and 410
// are the protocol's resource-not-found, the others a JSON-RPC error with the status and a
// bounded excerpt of the body, never a credential the body echoes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError, ResourceNotFoundError, type Client } from '@modelcontextprotocol/client';
import { connectInMemory } from '../../../../harness/in-memory.js';
import { startUpstream, type Upstream } from '../../../harness/upstream.js';
import type { ToolTable } from '../../../../src/contract/table.js';

const SECRET = 's3cret-static-header';
let upstream: Upstream;
let client: Client;

beforeAll(async () => {
  // /things/<status> answers that status, echoing the header it was sent, as some APIs do.
  upstream = await startUpstream((req) => ({
    status: Number(req.path.split('/')[2]),
    body: `{"message":"refused","echo":"${String(req.headers['x-key'])}"}${req.path.endsWith('/500') ? ' '.repeat(10_000) + 'tail' : ''}`,
  }));
  const table: ToolTable = {
    format: 1,
    name: 'things',
    version: '1',
    servers: [{ url: upstream.url }],
    defs: {},
    auth: {},
    tools: [
      {
        name: 'getThing',
        description: 'A thing',
        inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
        annotations: { readOnlyHint: true },
        http: {
          method: 'GET',
          path: '/things/{id}',
          params: [{ arg: 'id', name: 'id', in: 'path', style: 'simple', explode: false, required: true }],
        },
        resource: { uriTemplate: 'things://things/{id}', variables: { id: 'id' } },
      },
    ],
  };
  client = await connectInMemory(table, {}, {}, ['--header', `X-Key: ${SECRET}`]);
});
afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

/** The error a read of things://things/<status> ends in. */
async function readError(status: number): Promise<ProtocolError> {
  const error: unknown = await client.readResource({ uri: `things://things/${status}` }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

describe('resources/read of an upstream error', () => {
  it.each([404, 410])('%i is resource-not-found, naming the URI and the upstream status with its excerpt', async (status) => {
    const error = await readError(status);
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    // the SDK's resource-not-found: -32602 on the wire, recognised by data that is the URI alone
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ uri: `things://things/${status}` });
    expect(error.message).toMatch(
      new RegExp(
        `^Resource not found: things://things/${status}: upstream ${status} .*GET http://127\\.0\\.0\\.1:\\d+/things/${status}: \\{"message":"refused"`,
      ),
    );
  });

  it.each([
    [400, -32602, /^The upstream refused the arguments of things:\/\/things\/400: upstream 400 /],
    [422, -32602, /^The upstream refused the arguments of things:\/\/things\/422: upstream 422 /],
    [401, -32603, /^The upstream refused the server's credentials reading things:\/\/things\/401 \(check them\): upstream 401 /],
    [403, -32603, /^The server's credentials lack the permission to read things:\/\/things\/403: upstream 403 /],
    [429, -32603, /^Could not read things:\/\/things\/429: upstream 429 /],
    [503, -32603, /^Could not read things:\/\/things\/503: upstream 503 /],
  ])('%i is error %i with the status and excerpt in message and data', async (status, code, message) => {
    const error = await readError(status);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).toContain('{"message":"refused"');
    expect(error.data).toEqual({ uri: `things://things/${status}`, status, excerpt: expect.stringContaining('{"message":"refused"') });
  });

  it('the excerpt is bounded, and a credential the body echoes is taken out', async () => {
    const error = await readError(500);
    const { excerpt } = error.data as { excerpt: string };
    expect(excerpt).not.toContain('tail');
    expect(excerpt.endsWith(' […]')).toBe(true);
    expect(error.message).not.toContain(SECRET);
    expect(excerpt).not.toContain(SECRET);
    expect(excerpt).toContain('"echo":"');
    expect((await readError(404)).message).not.toContain(SECRET);
  });
});
