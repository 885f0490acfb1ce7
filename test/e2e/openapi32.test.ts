// An OpenAPI 3.2 spec generates and serves like a 3.1 one: the Petstore fixture
// (test/fixtures/openapi-3.2/petstore.yaml) generated and built, served over Streamable HTTP,
// called by the official SDK client; the recording upstream sees the QUERY method, the
// additional operation's method, and the query string an `in: querystring` parameter makes.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, startServer, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SPEC = fileURLToPath(new URL('../fixtures/openapi-3.2/petstore.yaml', import.meta.url));

let upstream: Upstream;
let server: RunningServer;
let client: Client;

beforeAll(async () => {
  upstream = await startUpstream((req) => ({
    body: JSON.stringify(req.method === 'COPY' ? { id: 8, name: 'Rex' } : [{ id: 1, name: 'Rex' }]),
  }));
  const dir = generateProject(SPEC, 'e2e-openapi32');
  await buildProject(dir);
  server = await startServer(dir, 'http', ['--base-url', `${upstream.url}/v2`], { PETSTORE_AUTH_TOKEN: 'device-token' });
  client = await connect('http', server.url);
}, 300_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await upstream?.close();
});

describe('a generated 3.2 server', () => {
  it('lists the QUERY tool as read-only, and the additional operation as a tool', async () => {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    expect(tools.get('searchPets')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.get('copyPet')?.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.get('findPets')?.inputSchema.properties).toHaveProperty('filter');
  });

  it('the QUERY tool sends a QUERY request with its query document as the body', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'searchPets', arguments: { body: { species: 'dog', maxAge: 3 } } });
    expect(result.isError).toBeFalsy();
    const [sent] = upstream.requests;
    expect(sent).toMatchObject({ method: 'QUERY', url: '/v2/pets' });
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers.authorization).toBe('Bearer device-token');
    expect(JSON.parse(sent?.body.toString() ?? '')).toEqual({ species: 'dog', maxAge: 3 });
  });

  it('the querystring tool makes the whole query string from its form argument', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'findPets', arguments: { filter: { name: 'a + b', vaccinated: true } } });
    expect(result.isError).toBeFalsy();
    const [sent] = upstream.requests;
    expect(sent).toMatchObject({ method: 'GET', url: '/v2/pets/find?name=a%20%2B%20b&vaccinated=true' });
    expect(Object.fromEntries(sent?.query ?? [])).toEqual({ name: 'a + b', vaccinated: 'true' });
  });

  it('the additional operation is sent with its own method', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'copyPet', arguments: { petId: 7 } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['COPY /v2/pets/7']);
  });
});
