// End to end, as a user runs it: generate the Petstore sample's server with the CLI, build
// it, start it, and talk to it with the official SDK client over stdio, legacy SSE and
// Streamable HTTP (2025-11-25 sessions and 2026-07-28 stateless), while a local upstream
// records the exact HTTP requests the tool calls make.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, type ClientKind, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 'tok-e2e', SWAGGER_PETSTORE_API_KEY: 'key-e2e' };
let dir: string;
let upstream: Upstream;
let http: RunningServer;
let sse: RunningServer;

beforeAll(async () => {
  upstream = await startUpstream((req) => {
    if (req.path === '/v2/pet/404') return { status: 404, body: JSON.stringify({ code: 404, message: 'Pet not found' }) };
    if (req.path === '/v2/pet/findByStatus') return { body: JSON.stringify([{ id: 1, name: 'Rex', photoUrls: [] }]) };
    if (req.path.startsWith('/v2/pet/') && req.method === 'GET') return { body: JSON.stringify({ id: 7, name: 'Rex', photoUrls: ['u'] }) };
    return { body: JSON.stringify({ ok: true }) };
  });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-petstore');
  await buildProject(dir);
  const args = ['--base-url', `${upstream.url}/v2`, '--log-level', 'warn'];
  [http, sse] = await Promise.all([startServer(dir, 'http', args, SECRETS), startServer(dir, 'sse', args, SECRETS)]);
});

afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
  await upstream?.close();
});

interface Variant {
  name: string;
  kind: ClientKind;
  negotiate: boolean;
  version: string;
}
const variants: Variant[] = [
  { name: 'stdio, 2025-11-25', kind: 'stdio', negotiate: false, version: '2025-11-25' },
  { name: 'stdio, 2026-07-28', kind: 'stdio', negotiate: true, version: '2026-07-28' },
  { name: 'Streamable HTTP, 2025-11-25 session', kind: 'http', negotiate: false, version: '2025-11-25' },
  { name: 'Streamable HTTP, 2026-07-28', kind: 'http', negotiate: true, version: '2026-07-28' },
  { name: 'legacy SSE', kind: 'sse', negotiate: false, version: '2025-11-25' },
];

describe.each(variants)('$name', ({ kind, negotiate, version }) => {
  let client: Client;
  beforeAll(async () => {
    const target = kind === 'stdio' ? dir : kind === 'http' ? http.url : sse.url;
    client = await connect(kind, target, { negotiate, env: SECRETS, args: ['--base-url', `${upstream.url}/v2`, '--log-level', 'warn'] });
  });
  afterAll(async () => {
    await client?.close();
  });

  /** Calls a tool and returns the one upstream request it made (or none). */
  async function call(name: string, args: Record<string, unknown>) {
    upstream.clear();
    const result = await client.callTool({ name, arguments: args });
    return { result, requests: [...upstream.requests] };
  }

  it('negotiates the expected protocol revision', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
  });

  it('lists every operation as a valid tool', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(20);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(tool.inputSchema.type).toBe('object');
    }
    const find = tools.find((t) => t.name === 'findPetsByStatus');
    expect(find?.inputSchema.required).toEqual(['status']);
    expect(find?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'deletePet')?.annotations?.destructiveHint).toBe(true);
  });

  it('GET with an exploded array query, credentials from the environment', async () => {
    const { result, requests } = await call('findPetsByStatus', { status: ['available', 'sold'] });
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/v2/pet/findByStatus?status=available&status=sold');
    expect(req?.headers.authorization).toBe('Bearer tok-e2e');
    expect(req?.headers.accept).toContain('application/json');
    expect(req?.body.length).toBe(0);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: [{ id: 1, name: 'Rex', photoUrls: [] }] });
    expect((result.content as { text: string }[])[0]?.text).toBe('[{"id":1,"name":"Rex","photoUrls":[]}]');
  });

  it('POST with a JSON body', async () => {
    const pet = { name: 'Rex', photoUrls: ['u'], status: 'available' };
    const { result, requests } = await call('addPet', { body: pet });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.method).toBe('POST');
    expect(requests[0]?.path).toBe('/v2/pet');
    expect(requests[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(requests[0]?.body.toString() ?? '')).toEqual(pet);
    expect(result.isError).toBeFalsy();
  });

  it('DELETE with a path parameter; its optional api_key header parameter, named as the apiKey scheme, is filled from the scheme variable', async () => {
    const { requests } = await call('deletePet', { petId: 7 });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /v2/pet/7']);
    expect(requests[0]?.headers.api_key).toBe('key-e2e');
  });

  it('an apiKey scheme puts the key in its header', async () => {
    const { result, requests } = await call('getPetById', { petId: 7 });
    expect(requests[0]?.headers.api_key).toBe('key-e2e');
    expect(result.structuredContent).toEqual({ id: 7, name: 'Rex', photoUrls: ['u'] });
  });

  it('an upstream 404 is a tool error with the status and the body', async () => {
    const { result } = await call('getPetById', { petId: 404 });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain('404');
    expect(text).toContain('Pet not found');
  });

  it('invalid arguments are a tool error naming the argument, and nothing is sent', async () => {
    const { result, requests } = await call('getPetById', { petId: 'abc' });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toMatch(/petId/);
    expect(requests).toHaveLength(0);
  });
});

// The answer format on the wire: a POST that needs no stream is answered with one JSON body
// (each SSE frame was a socket write more per call), in a session and statelessly, while the
// GET stream of a session stays SSE for messages the server starts.
describe('Streamable HTTP answers on the wire', () => {
  let stateless: RunningServer;
  beforeAll(async () => {
    stateless = await startServer(dir, 'http', ['--base-url', `${upstream.url}/v2`, '--log-level', 'warn', '--stateless'], SECRETS);
  });
  afterAll(() => stateless?.stop());

  const post = (url: string, message: object, headers: Record<string, string> = {}) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
  const call = { id: 2, method: 'tools/call', params: { name: 'getPetById', arguments: { petId: 7 } } };
  const initialize = {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } },
  };

  it('a session: initialize and tools/call are application/json; GET /mcp is text/event-stream', async () => {
    const opened = await post(http.url, initialize);
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect([opened.status, opened.headers.get('content-type'), session.length > 0]).toEqual([200, 'application/json', true]);
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(http.url, { method: 'notifications/initialized' }, headers)).status).toBe(202);
    const answer = await post(http.url, call, headers);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(((await answer.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
      id: 7,
      name: 'Rex',
      photoUrls: ['u'],
    });
    const stream = new AbortController();
    const get = await fetch(`${http.url}/mcp`, { headers: { accept: 'text/event-stream', ...headers }, signal: stream.signal });
    expect([get.status, get.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    stream.abort();
    await fetch(`${http.url}/mcp`, { method: 'DELETE', headers });
  });

  it('--stateless: a 2025-era tools/call without a session is answered with application/json', async () => {
    const answer = await post(stateless.url, call, { 'mcp-protocol-version': '2025-11-25' });
    expect([answer.status, answer.headers.get('content-type'), answer.headers.get('mcp-session-id')]).toEqual([
      200,
      'application/json',
      null,
    ]);
    const body = (await answer.json()) as { id: number; result: { isError?: boolean; structuredContent: unknown } };
    expect([body.id, body.result.isError, body.result.structuredContent]).toEqual([2, undefined, { id: 7, name: 'Rex', photoUrls: ['u'] }]);
  });
});
