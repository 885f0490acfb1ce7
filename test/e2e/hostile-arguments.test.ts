// The model's arguments against the request a generated server sends, over stdio with the
// official SDK client, to a recording upstream: no argument adds a header to a multipart part,
// and none puts a second value beside the API key's query parameter or cookie, which an API
// that reads the first value would take instead of the operator's key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, TMP } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { multipartParts, textOf } from '../harness/wire.js';

const KEY = 'the-operators-key';
let upstream: Upstream;
let client: Client;

const freeForm = (name: string, location: 'query' | 'cookie') => ({
  name,
  in: location,
  style: 'form',
  explode: true,
  schema: { type: 'object', additionalProperties: { type: 'string' } },
});

beforeAll(async () => {
  upstream = await startUpstream(() => ({ body: '{}' }));
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Hostile arguments', version: '1' },
    servers: [{ url: `${upstream.url}/api` }],
    components: {
      schemas: { Ref: { type: 'object', properties: { id: { type: 'integer' } } } },
      securitySchemes: {
        queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
    },
    paths: {
      '/upload': {
        post: {
          operationId: 'upload',
          requestBody: {
            content: {
              'multipart/form-data': {
                schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } } },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/search': {
        get: {
          operationId: 'search',
          security: [{ queryKey: [] }],
          parameters: [
            freeForm('filters', 'query'),
            { name: 'api_key', in: 'query', schema: { type: 'string' } },
            { name: 'owner', in: 'query', schema: { type: 'string' } },
            { name: 'state', in: 'query', schema: { type: 'string', enum: ['open', 'closed'] } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/items/{id}': {
        delete: {
          operationId: 'deleteItem',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/items': {
        get: {
          operationId: 'listItems',
          parameters: [
            { name: 'since_id', in: 'query', schema: { type: 'integer', format: 'int64', maximum: Number('9223372036854775807') } },
          ],
          responses: { '200': { description: 'ok' } },
        },
        post: {
          operationId: 'tagItem',
          parameters: [{ name: 'X-Tag-Id', in: 'header', schema: { type: 'integer', format: 'int64' } }],
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    target: { type: 'integer', format: 'int64' },
                    also: { type: 'array', items: { $ref: '#/components/schemas/Ref' } },
                    weight: { type: 'number' },
                  },
                },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/me': {
        get: {
          operationId: 'me',
          security: [{ cookieKey: [] }],
          parameters: [freeForm('prefs', 'cookie')],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const specDir = join(TMP, 'hostile-arguments-spec');
  mkdirSync(specDir, { recursive: true });
  writeFileSync(join(specDir, 'openapi.json'), JSON.stringify(spec));
  // the operator pins the owner: the model never sees the argument, the server always sends acme
  const config = { toolOverrides: { search: { arguments: { owner: { hidden: true, value: 'acme' } } } } };
  writeFileSync(join(specDir, 'mcp-gen.config.json'), JSON.stringify(config));
  const dir = generateProject(join(specDir, 'openapi.json'), 'e2e-hostile-arguments', [
    '--env-prefix',
    'HOSTILE',
    '--config',
    join(specDir, 'mcp-gen.config.json'),
  ]);
  await buildProject(dir);
  client = await connect('stdio', dir, { env: { HOSTILE_QUERY_KEY: KEY, HOSTILE_COOKIE_KEY: KEY } });
});

afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

describe('a multipart file part', () => {
  it('refuses a contentType with a line break, which would add headers to the part, and sends nothing', async () => {
    upstream.clear();
    const contentType = 'text/plain\r\nContent-Disposition: form-data; name="admin"\r\n\r\ntrue';
    const result = await client.callTool({ name: 'upload', arguments: { body: { file: { content: 'aGk=', contentType } } } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/body\.file\.contentType.*CR, LF/);
    expect(upstream.requests).toEqual([]);
  });

  it('still sends a plain contentType and a filename with quotes and line breaks, escaped', async () => {
    upstream.clear();
    const file = { content: 'aGk=', contentType: 'text/plain; charset=utf-8', filename: 'a"b\r\nc.txt' };
    const result = await client.callTool({ name: 'upload', arguments: { body: { file } } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const sent = upstream.requests[0];
    expect(multipartParts(sent?.body ?? Buffer.alloc(0), sent?.headers['content-type'] as string)).toEqual([
      'Content-Disposition: form-data; name="file"; filename="a%22b%0D%0Ac.txt"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhi',
    ]);
  });
});

describe("the API key's query parameter and cookie", () => {
  it('carry only the configured key, whatever names a free-form object argument gives', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'search', arguments: { filters: { api_key: 'the-models-key', color: 'red' } } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(upstream.requests[0]?.query.getAll('api_key')).toEqual([KEY]);
    expect(upstream.requests[0]?.query.get('color')).toBe('red');
  });

  it("offer no argument of the key's name: a declared parameter that has it is the scheme's", async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'search', arguments: { api_key: 'the-models-key' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/unknown argument "api_key"/);
    expect(upstream.requests).toEqual([]);
  });

  it('the cookie too', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'me', arguments: { prefs: { session: 'the-models-session', theme: 'dark' } } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(upstream.requests[0]?.headers['cookie']).toBe(`theme=dark; session=${KEY}`);
  });
});

describe("a free-form object's names", () => {
  it('cannot give a parameter the operator pins (a hidden argument): refused, nothing sent', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'search', arguments: { filters: { owner: 'someone-else' } } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/argument "filters": property "owner" is the query parameter of argument "owner"/);
    expect(upstream.requests).toEqual([]);
  });

  it("cannot give a listed parameter past its own checks either (state's enum)", async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'search', arguments: { filters: { state: 'deleted' } } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/property "state" is the query parameter of argument "state"; give it there/);
    expect(upstream.requests).toEqual([]);
  });

  it('are sent when no other parameter has them, beside the pinned one', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'search', arguments: { filters: { color: 'red' }, state: 'open' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(upstream.requests[0]?.url).toBe(`/api/search?color=red&owner=acme&state=open&api_key=${KEY}`);
  });
});

describe('an integer beyond 2^53', () => {
  it('given as text in a path parameter, is sent as those digits, not rounded to another id', async () => {
    upstream.clear();
    // Number("9007199254740993") is 9007199254740992: the call must not delete the item next to it
    const result = await client.callTool({ name: 'deleteItem', arguments: { id: '9007199254740993' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /api/items/9007199254740993']);
  });

  it('given as text in a query parameter and a header, is sent exactly, int64 maximum included', async () => {
    upstream.clear();
    const listed = await client.callTool({ name: 'listItems', arguments: { since_id: '9223372036854775807' } });
    expect(listed.isError, textOf(listed)).toBeFalsy();
    const tagged = await client.callTool({ name: 'tagItem', arguments: { 'X-Tag-Id': '-9007199254740993', body: { target: 5 } } });
    expect(tagged.isError, textOf(tagged)).toBeFalsy();
    expect(upstream.requests[0]?.url).toBe('/api/items?since_id=9223372036854775807');
    expect(upstream.requests[1]?.headers['x-tag-id']).toBe('-9007199254740993');
  });

  it('in an int64 parameter, is listed as the integer the spec says; text other than digits is refused', async () => {
    upstream.clear();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'listItems')?.inputSchema.properties?.since_id).toMatchObject({ type: 'integer' });
    const refused = await client.callTool({ name: 'listItems', arguments: { since_id: '12abc' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/argument "since_id"/);
    expect(upstream.requests).toEqual([]);
  });

  it('beyond int64, given as text, is refused though it rounds to the int64 maximum: nothing is sent', async () => {
    upstream.clear();
    // Number('9223372036854775808') equals Number('9223372036854775807'): only the digits tell
    const result = await client.callTool({ name: 'listItems', arguments: { since_id: '9223372036854775808' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/argument "since_id": 9223372036854775808 is outside int64/);
    expect(upstream.requests).toEqual([]);
  });

  it('given as a JSON number, which arrives rounded, is refused naming the argument: nothing is deleted', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'deleteItem', arguments: { id: 2 ** 53 + 2 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/argument "id": 9007199254740994 is beyond 2\^53.*text of digits/);
    expect(upstream.requests).toEqual([]);
  });

  it('in a JSON body, which cannot carry it exactly, is refused: nothing is sent', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'tagItem', arguments: { body: { target: '9007199254740993' } } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/argument "body\.target": must be integer/);
    expect(upstream.requests).toEqual([]);
  });

  it('as a JSON number inside a JSON body, where the schema says integer, is refused naming its place: nothing is sent', async () => {
    upstream.clear();
    const direct = await client.callTool({ name: 'tagItem', arguments: { body: { target: 2 ** 53 + 2 } } });
    expect(textOf(direct)).toMatch(/argument "body\.target": 9007199254740994 is beyond 2\^53/);
    const throughRef = await client.callTool({ name: 'tagItem', arguments: { body: { target: 5, also: [{ id: 1 }, { id: 2 ** 60 }] } } });
    expect(throughRef.isError).toBe(true);
    expect(textOf(throughRef)).toMatch(/argument "body\.also\.1\.id": 1152921504606846976 is beyond 2\^53/);
    expect(upstream.requests).toEqual([]);
  });

  it('as a number where the schema says number, is data and is sent', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'tagItem', arguments: { body: { target: 5, weight: 1e20 } } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(JSON.parse(upstream.requests[0]?.body.toString() ?? '{}')).toEqual({ target: 5, weight: 1e20 });
  });

  it('within 2^53, given as text, is read as the number it says', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'deleteItem', arguments: { id: '9007199254740991' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /api/items/9007199254740991']);
  });
});
