// Request serialisation, round 2, on the wire: servers generated from
// test/fixtures/wire/serialization-{oas31,swagger2}.yaml, called over stdio with the official
// SDK client; each test checks the exact request a recording upstream received, and names the
// rule of OpenAPI (or Swagger 2.0, RFC 6570, RFC 7578) it follows.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, TMP } from '../../harness/project.js';
import { startUpstream, type Recorded, type Upstream } from '../harness/upstream.js';
import { DEFAULT_ACCEPT, multipartParts, plain, textOf, wire } from '../harness/wire.js';

const FIXTURES = join(REPO, 'test/fixtures/wire');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((req) =>
    req.method === 'DELETE' || req.path.includes('/studio') ? { status: 204, body: '' } : { body: '{"ok":true}' },
  );
});
afterAll(async () => {
  await upstream?.close();
});

/** Calls a tool that must succeed with exactly one upstream request, and returns that request. */
async function sent(client: Client, name: string, args: Record<string, unknown>): Promise<Recorded> {
  upstream.clear();
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(upstream.requests).toHaveLength(1);
  return upstream.requests[0] as Recorded;
}

async function serve(fixture: string, name: string, basePath: string): Promise<{ client: Client; tools: Tool[] }> {
  const dir = generateProject(join(FIXTURES, fixture), name);
  await buildProject(dir);
  const client = await connect('stdio', dir, {
    args: ['--base-url', `${upstream.url}${basePath}`, '--log-level', 'warn', '--client-profile', 'full'],
    env: {},
  });
  const { tools } = await client.listTools();
  return { client, tools };
}

/** The generation summary, as a user reads it (a dry run writes nothing). */
function summary(fixture: string): string {
  return execFileSync('node', [join(REPO, 'bin/mcp-gen.js'), join(FIXTURES, fixture), '--out', join(TMP, 'wire-r2-dry'), '--dry-run'], {
    cwd: REPO,
    encoding: 'utf8',
  });
}

const propertiesOf = (tools: Tool[], name: string): string[] => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return Object.keys(tool.inputSchema.properties ?? {});
};

// ------------------------------------------------------------------------------------------
describe('OpenAPI 3.1 (test/fixtures/wire/serialization-oas31.yaml)', () => {
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    ({ client, tools } = await serve('serialization-oas31.yaml', 'wire-r2-oas31', '/api'));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('Parameter Object `content` (OAS 3.1.1 §4.8.12.3): each value is sent as its JSON text, percent-encoded where the location needs it', async () => {
    const req = await sent(client, 'contentParams', { filter: { a: 1 }, ids: ['a', 'b'], 'x-meta': { k: 'v' }, pref: { dark: true } });
    expect(wire(req)).toEqual(
      plain('GET /api/content/%7B%22a%22%3A1%7D?ids=%5B%22a%22%2C%22b%22%5D', {
        'x-meta': '{"k":"v"}',
        cookie: 'pref=%7B%22dark%22%3Atrue%7D',
      }),
    );
  });

  it('Encoding Object in multipart (OAS 3.1.1 §4.8.15): style/explode split a property, contentType and fixed headers label its part; the defaults are JSON for objects and a part per array item', async () => {
    const req = await sent(client, 'multipartEncoding', {
      body: {
        profile: { name: 'Ann', age: 7 },
        meta: { k: 'v' },
        tags: ['x', 'y'],
        ids: [1, 2],
        doc: '<a/>',
        avatar: { content: PNG.toString('base64'), filename: 'a.png' },
      },
    });
    expect(`${req.method} ${req.url}`).toBe('POST /api/multipart');
    const disposition = (name: string, rest = '') => `Content-Disposition: form-data; name="${name}"${rest}\r\n`;
    expect(multipartParts(req.body, req.headers['content-type'] as string)).toEqual([
      // profile: `style: form, explode: true` → one part per property
      `${disposition('name')}\r\nAnn`,
      `${disposition('age')}\r\n7`,
      // meta: an object with no Encoding Object → application/json
      `${disposition('meta')}Content-Type: application/json\r\n\r\n{"k":"v"}`,
      // tags: an array of primitives → one text/plain part per item (RFC 7578 §4.4: no Content-Type line)
      `${disposition('tags')}\r\nx`,
      `${disposition('tags')}\r\ny`,
      // ids: `style: form, explode: false` → one part, comma-separated
      `${disposition('ids')}\r\n1,2`,
      // doc: contentType and the header whose value the spec fixes (`const`); X-Free has none and is not sent
      `${disposition('doc')}Content-Type: application/xml\r\nX-Doc-Version: 2\r\n\r\n<a/>`,
      // avatar: a file; its Encoding Object's first content type labels it
      `${disposition('avatar', '; filename="a.png"')}Content-Type: image/png\r\n\r\n${PNG.toString('latin1')}`,
    ]);
  });

  it('multipart bytes declared the 3.1 way (contentMediaType, OAS 3.1.1 "Working with Binary Data") or by an Encoding contentType are listed as base64, and the decoded bytes are sent', async () => {
    const body = (tools.find((t) => t.name === 'multipartBytes')?.inputSchema.properties?.body ?? {}) as {
      properties: Record<string, { type?: string; contentEncoding?: string; description?: string; properties?: Record<string, unknown> }>;
    };
    // picture: a file part, as format: binary is
    expect(body.properties.picture?.type).toBe('object');
    expect(body.properties.picture?.properties?.content).toMatchObject({ type: 'string', contentEncoding: 'base64' });
    // raw: still a string, but one that says it is base64
    expect(body.properties.raw).toMatchObject({ type: 'string', contentEncoding: 'base64' });
    expect(body.properties.raw?.description).toMatch(/base64/i);
    // caption: text stays text
    expect(body.properties.caption).toEqual({ type: 'string', contentMediaType: 'text/plain' });

    const RAW = Buffer.from([0x00, 0x01, 0xfe, 0xff]);
    const req = await sent(client, 'multipartBytes', {
      body: { picture: { content: PNG.toString('base64'), filename: 'p.png' }, raw: RAW.toString('base64'), caption: 'AQID' },
    });
    const disposition = (name: string, rest = '') => `Content-Disposition: form-data; name="${name}"${rest}\r\n`;
    expect(multipartParts(req.body, req.headers['content-type'] as string)).toEqual([
      `${disposition('picture', '; filename="p.png"')}Content-Type: image/png\r\n\r\n${PNG.toString('latin1')}`,
      `${disposition('raw')}Content-Type: application/octet-stream\r\n\r\n${RAW.toString('latin1')}`,
      // a text part that happens to be valid base64 is sent as the text it is
      `${disposition('caption')}\r\nAQID`,
    ]);
  });

  it('application/x-www-form-urlencoded without an Encoding Object (OAS 3.1.1 "URL Encoded Form with JSON Values"): repeated keys for arrays, JSON text for objects; with one, its style', async () => {
    const req = await sent(client, 'formDefaults', {
      body: { Filters: ['a', 'b'], Meta: { k: 'v' }, Deep: { k: 'v' }, Piped: ['a', 'b'], Note: 'x y' },
    });
    expect(wire(req)).toEqual({
      request: 'POST /api/form',
      headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Filters=a&Filters=b&Meta=%7B%22k%22%3A%22v%22%7D&Deep%5Bk%5D=v&Piped=a%7Cb&Note=x%20y',
    });
  });

  it('headers the HTTP layer owns (RFC 9112 §6: Content-Length, Transfer-Encoding; Host; Connection) are not arguments, and the framing is right', async () => {
    expect(propertiesOf(tools, 'framingHeaders')).toEqual(['X-Kept', 'body']);
    const req = await sent(client, 'framingHeaders', { 'X-Kept': 'yes', body: Buffer.from('hello').toString('base64') });
    expect(req.headers['content-length']).toBe('5');
    expect(wire(req)).toEqual({
      request: 'PUT /api/framing',
      headers: { accept: DEFAULT_ACCEPT, 'x-kept': 'yes', 'content-type': 'application/octet-stream' },
      body: 'hello',
    });
    const owned = 'cannot be sent: the HTTP client sets it itself (framing, routing or connection); left out of the arguments';
    const warnings = summary('serialization-oas31.yaml');
    ['Content-Length', 'Host', 'Transfer-Encoding', 'Connection'].forEach((name, i) =>
      expect(warnings).toContain(`warning: #/paths/~1framing/put/parameters/${i}: header "${name}" ${owned}`),
    );
  });

  it('a requestBody on GET is ignored (OAS 3.0.3 Operation Object: "SHALL be ignored by consumers"); on DELETE it is kept', async () => {
    expect(propertiesOf(tools, 'searchWithBody')).toEqual(['q']);
    expect(wire(await sent(client, 'searchWithBody', { q: 'x' }))).toEqual(plain('GET /api/search?q=x'));
    const req = await sent(client, 'deleteWithBody', { body: { ids: [1] } });
    expect(wire(req)).toEqual({
      request: 'DELETE /api/search',
      headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
      body: '{"ids":[1]}',
    });
    expect(summary('serialization-oas31.yaml')).toContain(
      'request bodies dropped: 1 GET/HEAD operation takes no body argument (GET /search)',
    );
  });

  it('null, [] and {} are "undefined" (RFC 6570 §2.3, OAS 3.1.1 Appendix C) in every location and send nothing; "" is a value', async () => {
    const req = await sent(client, 'emptyValues', {
      id: '7',
      cursor: null,
      list: [],
      map: {},
      deep: {},
      blank: '',
      'X-Opt': null,
      'X-List': [],
      c: null,
      d: '',
    });
    expect(wire(req)).toEqual(plain('GET /api/empty/7?blank=', { cookie: 'd=' }));
    upstream.clear();
    const missing = await client.callTool({ name: 'emptyValues', arguments: { id: null } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/"?id"?/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('{} and [] sent as JSON content are JSON text, not "undefined" (OAS 3.1.1 Parameter `content`, Encoding Object defaults): query, form and multipart', async () => {
    const form = await sent(client, 'emptyJsonForm', { where: [], query: {}, body: { json: {}, ids: [], deep: {} } });
    expect(wire(form)).toEqual({
      request: 'POST /api/aggregate?where=%5B%5D&query=%7B%7D',
      headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      // deep has style deepObject: RFC 6570 serialisation, where {} is undefined
      body: 'json=%7B%7D&ids=%5B%5D',
    });
    const parts = await sent(client, 'emptyJsonParts', { body: { json: {}, ids: [], tags: [] } });
    expect(multipartParts(parts.body, parts.headers['content-type'] as string)).toEqual([
      'Content-Disposition: form-data; name="json"\r\nContent-Type: application/json\r\n\r\n{}',
      'Content-Disposition: form-data; name="ids"\r\nContent-Type: application/json\r\n\r\n[]',
      // tags: an array is a part per item (RFC 7578 §4.3), and [] has none
    ]);
  });

  it('a form body that is an array has no fields: the tool is left out with a reason, or sent as its other media type', async () => {
    expect(tools.map((t) => t.name)).not.toContain('arrayFormBody');
    expect(summary('serialization-oas31.yaml')).toContain(
      'POST /studio/{id}: its application/x-www-form-urlencoded request body is not an object',
    );
    const req = await sent(client, 'arrayFormOrJson', { id: '1', body: ['a'] });
    expect(wire(req)).toEqual({
      request: 'POST /api/studio2/1',
      headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
      body: '["a"]',
    });
  });
});

// ------------------------------------------------------------------------------------------
describe('Swagger 2.0 collectionFormat (test/fixtures/wire/serialization-swagger2.yaml)', () => {
  let client: Client;

  beforeAll(async () => {
    ({ client } = await serve('serialization-swagger2.yaml', 'wire-r2-swagger2', '/api/v2'));
  });
  afterAll(async () => {
    await client?.close();
  });

  const list = ['a', 'b'];

  it('formData arrays in a urlencoded form: csv (the default) a,b; ssv, tsv and pipes their separators; multi repeated keys', async () => {
    const req = await sent(client, 'formCollections', { body: { plain: list, csv: list, ssv: list, tsv: list, pipes: list, multi: list } });
    expect(wire(req)).toEqual({
      request: 'POST /api/v2/form',
      headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'plain=a,b&csv=a,b&ssv=a%20b&tsv=a%09b&pipes=a%7Cb&multi=a&multi=b',
    });
  });

  it('formData arrays in multipart: csv is one part a,b; multi a part per item', async () => {
    const req = await sent(client, 'multipartCollections', { body: { csv: list, multi: list } });
    expect(multipartParts(req.body, req.headers['content-type'] as string)).toEqual([
      'Content-Disposition: form-data; name="csv"\r\n\r\na,b',
      'Content-Disposition: form-data; name="multi"\r\n\r\na',
      'Content-Disposition: form-data; name="multi"\r\n\r\nb',
    ]);
  });

  it('path and header arrays: pipes, ssv and tsv use their separators, csv commas (Swagger 2.0 Parameter Object collectionFormat)', async () => {
    const req = await sent(client, 'pathHeaderCollections', {
      pipes: list,
      ssv: list,
      tsv: list,
      csv: list,
      'X-Pipes': list,
      'X-Ssv': list,
      'X-Tsv': list,
      'X-Csv': list,
    });
    expect(wire(req)).toEqual(
      plain('GET /api/v2/p/a%7Cb/a%20b/a%09b/a,b', { 'x-pipes': 'a|b', 'x-ssv': 'a b', 'x-tsv': 'a\tb', 'x-csv': 'a,b' }),
    );
  });
});
