// On the wire, as a user runs it: generate servers from the specs in test/fixtures/wire/ with
// the CLI, build them, talk to them over stdio with the official SDK client, and check that
// each tool call puts exactly the right request on the wire (method, raw URL, headers, body
// bytes, as a local upstream records them) and that each kind of answer becomes the right
// MCP result.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, TMP } from '../../harness/project.js';
import { freePort } from '../../harness/process.js';
import { startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';
import { appHeaders, DEFAULT_ACCEPT, plain, textOf, wire } from '../harness/wire.js';
import { profileViolations, type Profile } from '../../harness/profile-rules.js';

const FIXTURES = join(REPO, 'test/fixtures/wire');

// Answers of the recording upstream, by path (the main spec runs under --base-url <upstream>/api).
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00]);
const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n%%EOF\n', 'latin1');
const BIG = 'a'.repeat(1000) + 'B'.repeat(4000);
function answer(req: Recorded): Answer {
  switch (req.path) {
    case '/api/r/object':
      return { body: '{"id":1,"name":"x"}' };
    case '/api/r/array':
      return { body: '[{"id":1},{"id":2}]' };
    case '/api/r/text':
      return { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'hello, world' };
    case '/api/r/png':
      return { headers: { 'content-type': 'image/png' }, body: PNG };
    case '/api/r/pdf':
      return { headers: { 'content-type': 'application/pdf' }, body: PDF };
    case '/api/r/big':
      return { headers: { 'content-type': 'text/plain', 'content-length': String(BIG.length) }, body: BIG };
    case '/api/r/fail':
      return { status: 500, body: '{"error":"boom"}' };
    case '/api/r/slow':
      return { delayMs: 3_000, body: '{"late":true}' };
  }
  if (req.method === 'DELETE') return { status: 204, body: '' };
  return { body: '{"ok":true}' };
}

let upstream: Upstream;
/** A port nothing listens on: bound, then released. */
let closedPort: number;

/** A fixture with UPSTREAM_PORT / CLOSED_PORT filled in, written below test/.tmp. */
function specWithPorts(file: string): string {
  const dir = join(TMP, 'wire-specs');
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(join(FIXTURES, file), 'utf8')
    .replaceAll('UPSTREAM_PORT', new URL(upstream.url).port)
    .replaceAll('CLOSED_PORT', String(closedPort));
  const out = join(dir, file);
  writeFileSync(out, text);
  return out;
}

async function project(spec: string, name: string): Promise<string> {
  const dir = generateProject(spec, name);
  await buildProject(dir);
  return dir;
}

beforeAll(async () => {
  upstream = await startUpstream(answer);
  closedPort = await freePort();
});

afterAll(async () => {
  await upstream?.close();
});

/** Calls a tool and returns its result and the upstream requests it made. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  upstream.clear();
  const result = await client.callTool({ name, arguments: args });
  return { result, requests: [...upstream.requests] };
}

/** Calls a tool that must make exactly one request, and returns that request. */
async function sent(client: Client, name: string, args: Record<string, unknown>) {
  const { result, requests } = await call(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(requests).toHaveLength(1);
  return requests[0] as Recorded;
}

const b64 = (bytes: Buffer | Uint8Array) => Buffer.from(bytes).toString('base64');

/** Every byte value, CR/LF and a NUL among them: nothing may be re-encoded on the way. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

// ------------------------------------------------------------------------------------------
describe('OpenAPI 3.1 spec (test/fixtures/wire/oas31.yaml) under --base-url', () => {
  let dir: string;
  let client: Client;
  let tools: Tool[];
  const tool = (name: string): Tool => {
    const found = tools.find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };

  beforeAll(async () => {
    dir = await project(join(FIXTURES, 'oas31.yaml'), 'wire-oas31');
    client = await connect('stdio', dir, {
      // full: these tests check the schemas as generated (profiles: test/e2e/profiles.test.ts)
      args: ['--base-url', `${upstream.url}/api`, '--max-response-bytes', '1000', '--log-level', 'warn', '--client-profile', 'full'],
      env: {},
    });
    ({ tools } = await client.listTools());
  });
  afterAll(async () => {
    await client?.close();
  });

  describe('path parameters', () => {
    it.each([
      ['abc', '/api/simple/abc'],
      ['a/b', '/api/simple/a%2Fb'],
      ['a?b', '/api/simple/a%3Fb'],
      ['a#b', '/api/simple/a%23b'],
      ['a b', '/api/simple/a%20b'],
      ['100%', '/api/simple/100%25'],
      ['%2E%2E', '/api/simple/%252E%252E'],
      ['a..b', '/api/simple/a..b'],
      ["(x)*!'", '/api/simple/%28x%29%2A%21%27'],
      ['é', '/api/simple/%C3%A9'],
    ])('simple style (the default) keeps %j inside its segment: %s', async (id, url) => {
      expect(wire(await sent(client, 'getSimple', { id }))).toEqual(plain(`GET ${url}`));
    });

    it.each([
      ['getSimpleArray', { ids: ['a', 'b c'] }, '/api/simple-array/a,b%20c'],
      ['getSimpleObject', { color: { R: 100, G: 200 } }, '/api/simple-object/R=100,G=200'],
      ['getLabel', { color: ['blue', 'black'] }, '/api/label/.blue,black'],
      ['getLabelExplode', { color: ['blue', 'a/b'] }, '/api/label-explode/.blue.a%2Fb'],
      ['getMatrix', { color: 'blue' }, '/api/matrix/;color=blue'],
      ['getMatrix', { color: 'a;b=c' }, '/api/matrix/;color=a%3Bb%3Dc'],
      ['getMatrixExplode', { color: { R: 100, G: 200 } }, '/api/matrix-explode/;R=100;G=200'],
    ])('%s %j → %s', async (name, args, url) => {
      expect(wire(await sent(client, name, args))).toEqual(plain(`GET ${url}`));
    });

    it.each(['..', '.'])('a value that would form the dot-segment %j is refused, naming the argument, and nothing is sent', async (id) => {
      const { result, requests } = await call(client, 'getSimple', { id });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('argument "id"');
      expect(requests).toHaveLength(0);
    });

    it('a literal query in the path key (AWS `/{Bucket}?uploads`) is sent ahead of the parameters', async () => {
      expect(wire(await sent(client, 'createMultipartUpload', { Bucket: 'my bucket' }))).toEqual(plain('POST /api/my%20bucket?uploads'));
      expect(wire(await sent(client, 'createMultipartUpload', { Bucket: 'b', prefix: 'a/b?c' }))).toEqual(
        plain('POST /api/b?uploads&prefix=a%2Fb%3Fc'),
      );
      expect(wire(await sent(client, 'listObjectsV2', { Bucket: 'b' }))).toEqual(plain('GET /api/b?list-type=2'));
      expect(wire(await sent(client, 'listObjectsV2', { Bucket: 'b', 'max-keys': 5 }))).toEqual(plain('GET /api/b?list-type=2&max-keys=5'));
    });

    it('a fragment in the path key is never sent', async () => {
      expect(wire(await sent(client, 'rpcDo', { action: 'go' }))).toEqual(plain('POST /api/rpc/go'));
    });
  });

  describe('query parameters', () => {
    it.each([
      ['nothing given: no query at all (schema defaults are not sent)', {}, '/api/search'],
      ['form string', { q: 'a b&c=d+e' }, '/api/search?q=a%20b%26c%3Dd%2Be'],
      ['form array, explode', { tags: ['a', 'b c'] }, '/api/search?tags=a&tags=b%20c'],
      ['form array, no explode', { ids: [1, 2, 3] }, '/api/search?ids=1,2,3'],
      ['form object, explode', { point: { x: 1, y: 2 } }, '/api/search?x=1&y=2'],
      ['form object, no explode', { box: { x: 1, y: 2 } }, '/api/search?box=x,1,y,2'],
      // OAS 3.1.1 Style Examples and Appendix E: `[`, `]` and `|` are percent-encoded in a query (RFC 3986 §3.4)
      ['deepObject', { filter: { status: 'open', owner: 'a b' } }, '/api/search?filter%5Bstatus%5D=open&filter%5Bowner%5D=a%20b'],
      ['spaceDelimited', { space: ['a', 'b'] }, '/api/search?space=a%20b'],
      ['pipeDelimited', { pipe: ['a', 'b'] }, '/api/search?pipe=a%7Cb'],
      ['a name with brackets is percent-encoded too', { filter_drive_id: 'd|1' }, '/api/search?filter%5Bdrive_id%5D=d%7C1'],
      ['allowReserved keeps reserved characters', { raw: 'a/b?c:d@e,f;g' }, '/api/search?raw=a/b?c:d@e,f;g'],
      [
        'allowReserved still encodes & = # + [ ] and a lone %, not a %XX triple',
        { raw: 'x&y=z#w+v[0]%2F%' },
        '/api/search?raw=x%26y%3Dz%23w%2Bv%5B0%5D%2F%25',
      ],
      ['spec order, not argument order', { sort: 'desc', limit: 5, q: 'x' }, '/api/search?q=x&limit=5&sort=desc'],
    ])('%s', async (_label, args, url) => {
      expect(wire(await sent(client, 'search', args))).toEqual(plain(`GET ${url}`));
    });

    it('the inputSchema documents the defaults it does not send', () => {
      const props = tool('search').inputSchema.properties as Record<string, { default?: unknown }>;
      expect(props.limit?.default).toBe(20);
      expect(props.sort?.default).toBe('asc');
    });
  });

  describe('header, cookie and merged parameters', () => {
    it('header and cookie values, path-level and operation-level parameters, `id` in path and query', async () => {
      const req = await sent(client, 'getItem', {
        id: 'p 1',
        id_query: 'q/1',
        verbose: true,
        'X-Trace': 7,
        'X-Flags': ['a', 'b'],
        session: 'abc def;x',
        theme: 'dark',
      });
      expect(wire(req)).toEqual(
        plain('GET /api/items/p%201?verbose=true&id=q%2F1', {
          'x-trace': '7',
          'x-flags': 'a,b',
          cookie: 'session=abc%20def%3Bx; theme=dark',
        }),
      );
    });

    it('the operation-level parameter wins over the path-level one with the same name and place', async () => {
      const schema = tool('getItem').inputSchema;
      const props = schema.properties as Record<string, { type?: unknown; description?: string }>;
      expect(Object.keys(props)).toEqual(['id', 'verbose', 'id_query', 'X-Trace', 'X-Flags', 'session', 'theme']);
      expect(props['X-Trace']).toEqual({ type: 'integer', description: 'operation level' });
      expect(props.id_query?.description).toContain('query parameter "id"');
      expect(schema.required).toEqual(['id']);
      const { result, requests } = await call(client, 'getItem', { id: 'x', 'X-Trace': 'abc' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('X-Trace');
      expect(requests).toHaveLength(0);
    });
  });

  describe('request bodies', () => {
    it('application/json, with a nullable property; readOnly properties are not arguments', async () => {
      const req = await sent(client, 'createWidget', { body: { name: 'w', note: null } });
      expect(wire(req)).toEqual({
        request: 'POST /api/widgets',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
        body: '{"name":"w","note":null}',
      });
      const widget = (tool('createWidget').inputSchema.$defs as Record<string, { properties: Record<string, unknown> }>).Widget;
      expect(widget?.properties).toEqual({ name: { type: 'string' }, note: { type: ['string', 'null'] } });
    });

    it('application/merge-patch+json', async () => {
      const req = await sent(client, 'mergeWidget', { id: 5, body: { note: null } });
      expect(wire(req)).toEqual({
        request: 'PATCH /api/widgets/5',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/merge-patch+json' },
        body: '{"note":null}',
      });
    });

    it("application/x-www-form-urlencoded with a nested object: Stripe's Encoding Object (style: deepObject) gives brackets", async () => {
      const req = await sent(client, 'createCharge', {
        body: { amount: 100, currency: 'usd', metadata: { order_id: '6735', note: 'a b&c=d' }, expand: ['customer', 'invoice'] },
      });
      expect(wire(req)).toEqual({
        request: 'POST /api/charges',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount=100&currency=usd&metadata%5Border_id%5D=6735&metadata%5Bnote%5D=a%20b%26c%3Dd&expand%5B0%5D=customer&expand%5B1%5D=invoice',
      });
    });

    it('multipart/form-data with a file part: file name, content type and exact bytes', async () => {
      const req = await sent(client, 'uploadFile', {
        body: { file: { content: b64(ALL_BYTES), filename: 'report.bin', contentType: 'application/x-custom' }, purpose: 'backup' },
      });
      expect(`${req.method} ${req.url}`).toBe('POST /api/files');
      const contentType = String(req.headers['content-type']);
      expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
      expect(Object.keys(appHeaders(req)).sort()).toEqual(['accept', 'content-type']);
      expect(req.body.toString('latin1')).toContain(
        'Content-Disposition: form-data; name="file"; filename="report.bin"\r\nContent-Type: application/x-custom\r\n',
      );
      const form = await new Response(req.body, { headers: { 'content-type': contentType } }).formData();
      expect([...form.keys()]).toEqual(['file', 'purpose']);
      const file = form.get('file') as File;
      expect(file.name).toBe('report.bin');
      expect(file.type).toBe('application/x-custom');
      expect(Buffer.from(await file.arrayBuffer())).toEqual(ALL_BYTES);
      expect(form.get('purpose')).toBe('backup');
    });

    it('application/octet-stream: the base64 argument arrives as its exact bytes', async () => {
      const req = await sent(client, 'putBlob', { key: 'k', body: b64(ALL_BYTES) });
      expect(`${req.method} ${req.url}`).toBe('PUT /api/blobs/k');
      expect(appHeaders(req)).toEqual({ accept: DEFAULT_ACCEPT, 'content-type': 'application/octet-stream' });
      expect(req.body).toEqual(ALL_BYTES);
    });

    it.each([
      ['postNote', '/api/notes', 'text/plain', 'line 1\r\nline "2" {x} é'],
      ['postXml', '/api/xml', 'application/xml', '<?xml version="1.0"?><a x="1">é &amp; ü</a>'],
    ])('%s → %s: the %s string is sent as is', async (name, url, contentType, body) => {
      const req = await sent(client, name, { body });
      expect(wire(req)).toEqual({ request: `POST ${url}`, headers: { accept: DEFAULT_ACCEPT, 'content-type': contentType }, body });
    });

    it('JSON and XML bodies: JSON by default', async () => {
      const schema = tool('postDoc').inputSchema.properties as Record<string, { enum?: unknown }>;
      expect(schema.contentType?.enum).toEqual(['application/json', 'application/xml']);
      const req = await sent(client, 'postDoc', { body: { title: 't' } });
      expect(wire(req)).toEqual({
        request: 'POST /api/docs',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
        body: '{"title":"t"}',
      });
    });

    it('JSON and XML bodies: XML, sent as is, when the contentType argument says so', async () => {
      const xml = '<doc><title>t</title></doc>';
      const req = await sent(client, 'postDoc', { body: xml, contentType: 'application/xml' });
      expect(wire(req)).toEqual({
        request: 'POST /api/docs',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/xml' },
        body: xml,
      });
    });

    it('JSON and XML bodies: a JSON object is never sent labelled application/xml', async () => {
      // The runtime cannot write XML from an object; sending its JSON text as XML would put
      // bytes on the wire that the upstream cannot read. Refusing it (naming the argument) is right.
      const { result, requests } = await call(client, 'postDoc', { body: { title: 't' }, contentType: 'application/xml' });
      expect(requests.map((r) => `${String(r.headers['content-type'])} ${r.body.toString()}`)).toEqual([]);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('argument "body"');
    });
  });

  describe('answers', () => {
    it('a JSON object: the text as received, and structuredContent', async () => {
      const { result } = await call(client, 'getObject', {});
      expect(result).toEqual({ content: [{ type: 'text', text: '{"id":1,"name":"x"}' }], structuredContent: { id: 1, name: 'x' } });
    });

    it('a JSON array with an outputSchema: structuredContent is { result: [...] }', async () => {
      expect(tool('listThings').outputSchema?.properties).toHaveProperty('result');
      const { result } = await call(client, 'listThings', {});
      expect(result).toEqual({
        content: [{ type: 'text', text: '[{"id":1},{"id":2}]' }],
        structuredContent: { result: [{ id: 1 }, { id: 2 }] },
      });
    });

    it('text/plain: text content', async () => {
      const { result } = await call(client, 'getText', {});
      expect(result).toEqual({ content: [{ type: 'text', text: 'hello, world' }] });
    });

    it('image/png: image content with the base64 bytes and the media type', async () => {
      const { result } = await call(client, 'getPng', {});
      expect(result).toEqual({ content: [{ type: 'image', data: b64(PNG), mimeType: 'image/png' }] });
    });

    it('application/pdf: an embedded resource with the blob and the media type', async () => {
      const { result } = await call(client, 'getPdf', {});
      expect(result).toEqual({
        content: [{ type: 'resource', resource: { uri: `${upstream.url}/api/r/pdf`, mimeType: 'application/pdf', blob: b64(PDF) } }],
      });
    });

    it('204: a short success text', async () => {
      const { result, requests } = await call(client, 'deleteThing', { id: 3 });
      expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /api/r/things/3']);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeUndefined();
      expect(result.content).toHaveLength(1);
      expect(textOf(result)).toMatch(/^HTTP 204\b.*success/);
      expect(textOf(result).length).toBeLessThan(80);
    });

    it('a body above --max-response-bytes is cut, with a note that says so', async () => {
      const { result } = await call(client, 'getBig', {});
      expect(result.isError).toBeFalsy();
      const text = textOf(result);
      expect(text.startsWith('a'.repeat(1000))).toBe(true);
      expect(text).not.toContain('B');
      expect(text.slice(1000)).toMatch(/truncated/);
    });

    it('status 500: a tool error with the status and an excerpt of the body', async () => {
      const { result } = await call(client, 'getFail', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('500');
      expect(textOf(result)).toContain('{"error":"boom"}');
    });

    it('no answer within --timeout 500: a tool error that says so, well before the answer', async () => {
      // Its own server process, so that no other call has to fit in 500 ms on a busy machine.
      const impatient = await connect('stdio', dir, {
        args: ['--base-url', `${upstream.url}/api`, '--timeout', '500', '--log-level', 'warn'],
        env: {},
      });
      try {
        const started = Date.now();
        const { result, requests } = await call(impatient, 'getSlow', {});
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/r/slow']);
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/timeout/i);
        expect(textOf(result)).toContain('500 ms');
      } finally {
        await impatient.close();
      }
    });

    it('cancellation: aborting the MCP call closes the upstream connection', async () => {
      // The recording upstream answers eventually; this one never does and notes the close.
      let arrived!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      let closedAt = 0;
      const hang: Server = createServer((_req, res) => {
        arrived();
        res.on('close', () => (closedAt = Date.now()));
      });
      await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
      const cancelling = await connect('stdio', dir, {
        args: ['--base-url', `http://127.0.0.1:${(hang.address() as AddressInfo).port}/api`, '--timeout', '20000', '--log-level', 'warn'],
        env: {},
      });
      try {
        const controller = new AbortController();
        const started = Date.now();
        const pending = cancelling.callTool({ name: 'getSlow', arguments: {} }, { signal: controller.signal });
        const outcome = pending.then(
          () => 'resolved',
          () => 'rejected',
        );
        await arrival;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 200 - (Date.now() - started))));
        const abortedAt = Date.now();
        controller.abort();
        expect(await outcome).toBe('rejected');
        for (let i = 0; i < 40 && closedAt === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(closedAt, 'the upstream connection was not closed').toBeGreaterThan(0);
        expect(closedAt - abortedAt).toBeLessThan(2_000);
      } finally {
        await cancelling.close();
        hang.closeAllConnections();
        await new Promise((resolve) => hang.close(resolve));
      }
    });
  });

  describe('tool metadata', () => {
    it('description is summary + description, title from the summary', () => {
      const t = tool('getObject');
      expect(t.description).toBe('Get an object\n\nReads one object from the store.');
      expect(t.title).toBe('Get an object');
    });

    it('deprecated operations say so first', () => {
      expect(tool('oldThing').description).toBe('[DEPRECATED] Old thing\n\nUse getObject instead.');
    });

    it.each([
      ['getObject', { readOnlyHint: true }],
      ['deleteThing', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
      ['replaceThing', { readOnlyHint: false, idempotentHint: true }],
      ['createWidget', { readOnlyHint: false }],
    ])('annotations of %s', (name, hints) => {
      expect(tool(name).annotations).toMatchObject(hints);
    });

    it('POST is neither destructive nor idempotent', () => {
      const annotations = tool('createWidget').annotations ?? {};
      expect(annotations.destructiveHint).toBeFalsy();
      expect(annotations.idempotentHint).toBeFalsy();
    });
  });
});

// ------------------------------------------------------------------------------------------
describe('OpenAPI 3.0 servers (test/fixtures/wire/servers-oas30.yaml), no --base-url', () => {
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    const dir = await project(specWithPorts('servers-oas30.yaml'), 'wire-servers');
    client = await connect('stdio', dir, { args: ['--log-level', 'warn', '--client-profile', 'full'], env: {} });
    ({ tools } = await client.listTools());
  });
  afterAll(async () => {
    await client?.close();
  });

  it('the root server URL with its {port} and {version} variables at their defaults', async () => {
    expect(wire(await sent(client, 'ping', {}))).toEqual(plain('GET /v2/ping'));
  });

  it('an operation-level server replaces the root one', async () => {
    expect(wire(await sent(client, 'elsewhere', {}))).toEqual(plain('GET /override/elsewhere'));
  });

  it('a refused connection is a tool error naming the upstream', async () => {
    const { result, requests } = await call(client, 'refused', {});
    expect(requests).toHaveLength(0);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`127.0.0.1:${closedPort}/refused`);
    expect(textOf(result)).toMatch(/ECONNREFUSED|refused/);
  });

  it('3.0 `nullable: true` and readOnly body properties', async () => {
    const pet = (tools.find((t) => t.name === 'replacePet')?.inputSchema.$defs as Record<string, { properties: object }>).Pet;
    expect(pet?.properties).toEqual({ name: { type: 'string' }, nickname: { type: ['string', 'null'] } });
    const req = await sent(client, 'replacePet', { id: 1, body: { name: 'Rex', nickname: null } });
    expect(wire(req)).toEqual({
      request: 'PUT /v2/pets/1',
      headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
      body: '{"name":"Rex","nickname":null}',
    });
  });
});

// ------------------------------------------------------------------------------------------
describe('Swagger 2.0 (test/fixtures/wire/swagger2.yaml), no --base-url', () => {
  let client: Client;

  beforeAll(async () => {
    const dir = await project(specWithPorts('swagger2.yaml'), 'wire-swagger2');
    client = await connect('stdio', dir, { args: ['--log-level', 'warn', '--client-profile', 'full'], env: {} });
  });
  afterAll(async () => {
    await client?.close();
  });

  it.each([
    ['no collectionFormat is csv', { plain: ['a', 'b c'] }, '/api/v1/list?plain=a,b%20c'],
    ['csv', { csv: ['a', 'b'] }, '/api/v1/list?csv=a,b'],
    ['ssv', { ssv: ['a', 'b'] }, '/api/v1/list?ssv=a%20b'],
    ['pipes', { pipes: [1, 2] }, '/api/v1/list?pipes=1%7C2'],
    ['multi', { multi: ['a', 'b'] }, '/api/v1/list?multi=a&multi=b'],
  ])('host + basePath, collectionFormat %s', async (_label, args, url) => {
    expect(wire(await sent(client, 'list', args))).toEqual(plain(`GET ${url}`));
  });

  it('formData with type: file is a multipart body', async () => {
    const req = await sent(client, 'upload', {
      body: { file: { content: b64(ALL_BYTES), filename: 'a.bin', contentType: 'image/x-test' }, note: 'hi' },
    });
    expect(`${req.method} ${req.url}`).toBe('POST /api/v1/upload');
    const contentType = String(req.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(req.body, { headers: { 'content-type': contentType } }).formData();
    const file = form.get('file') as File;
    expect(file.name).toBe('a.bin');
    expect(file.type).toBe('image/x-test');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(ALL_BYTES);
    expect(form.get('note')).toBe('hi');
  });
});

// ------------------------------------------------------------------------------------------
describe('request media types (test/fixtures/wire/media-oas30.yaml) under --base-url', () => {
  let dir: string;
  let client: Client;
  const serve = (profile: string) =>
    connect('stdio', dir, { args: ['--base-url', `${upstream.url}/api`, '--log-level', 'warn', '--client-profile', profile], env: {} });

  beforeAll(async () => {
    dir = await project(join(FIXTURES, 'media-oas30.yaml'), 'wire-media');
    client = await serve('full');
  });
  afterAll(async () => {
    await client?.close();
  });

  describe('ranges and suffixes', () => {
    it('a body declared as application/*+json goes as JSON, labelled application/json', async () => {
      const req = await sent(client, 'postProblem', { body: { title: 't', status: 400 } });
      expect(wire(req)).toEqual({
        request: 'POST /api/problems',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
        body: '{"title":"t","status":400}',
      });
    });

    it('application/vnd.foo+json is JSON, sent as itself', async () => {
      const req = await sent(client, 'postVendor', { body: { title: 't' } });
      expect(wire(req)).toEqual({
        request: 'POST /api/vendor',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/vnd.foo+json' },
        body: '{"title":"t"}',
      });
    });

    it('application/problem+xml is XML: the document text, sent as is', async () => {
      const xml = '<problem xmlns="urn:ietf:rfc:7807"><title>t</title></problem>';
      const req = await sent(client, 'postProblemXml', { body: xml });
      expect(wire(req)).toEqual({
        request: 'POST /api/problems.xml',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/problem+xml' },
        body: xml,
      });
    });

    it('*/* with a binary schema: the base64 argument goes as application/octet-stream bytes', async () => {
      const req = await sent(client, 'putAnything', { body: b64(ALL_BYTES) });
      expect(`${req.method} ${req.url}`).toBe('PUT /api/anything');
      expect(appHeaders(req)).toEqual({ accept: DEFAULT_ACCEPT, 'content-type': 'application/octet-stream' });
      expect(req.body).toEqual(ALL_BYTES);
    });
  });

  describe('media types with different schemas (pdfbroker pdfconcat)', () => {
    const PDF_B = Buffer.from('%PDF-1.7\n\x00\xff second\n%%EOF\n', 'latin1');

    it('JSON by default: the JSON fields, as JSON', async () => {
      const req = await sent(client, 'pdfconcat', { body: { pdfDocumentsAsBase64String: [b64(PDF), b64(PDF_B)] } });
      expect(wire(req)).toEqual({
        request: 'POST /api/pdf/pdfconcat',
        headers: { accept: DEFAULT_ACCEPT, 'content-type': 'application/json' },
        body: JSON.stringify({ pdfDocumentsAsBase64String: [b64(PDF), b64(PDF_B)] }),
      });
    });

    it('contentType multipart/form-data: the file fields, as file parts with their exact bytes', async () => {
      const req = await sent(client, 'pdfconcat', {
        contentType: 'multipart/form-data',
        body: { pdfdocument1: { content: b64(PDF), filename: 'a.pdf' }, pdfdocument2: { content: b64(PDF_B), filename: 'b.pdf' } },
      });
      expect(`${req.method} ${req.url}`).toBe('POST /api/pdf/pdfconcat');
      const contentType = String(req.headers['content-type']);
      expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
      const form = await new Response(req.body, { headers: { 'content-type': contentType } }).formData();
      expect([...form.keys()]).toEqual(['pdfdocument1', 'pdfdocument2']);
      for (const [name, filename, bytes] of [
        ['pdfdocument1', 'a.pdf', PDF],
        ['pdfdocument2', 'b.pdf', PDF_B],
      ] as const) {
        const file = form.get(name) as File;
        expect(file.name).toBe(filename);
        expect(file.type).toBe('application/octet-stream'); // the Encoding Object's contentType
        expect(Buffer.from(await file.arrayBuffer())).toEqual(bytes);
      }
    });

    it('a JSON field sent with contentType multipart/form-data is refused, naming the argument and the field; nothing is sent', async () => {
      const { result, requests } = await call(client, 'pdfconcat', {
        contentType: 'multipart/form-data',
        body: { pdfDocumentsAsBase64String: [b64(PDF)] },
      });
      expect(requests).toEqual([]);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'Invalid arguments for pdfconcat: argument "body": field "pdfDocumentsAsBase64String" belongs to the application/json form of the body, not to multipart/form-data (set contentType to application/json)',
      );
    });

    it('a file field without contentType is refused, saying which contentType takes it; nothing is sent', async () => {
      const { result, requests } = await call(client, 'pdfconcat', { body: { pdfdocument1: { content: b64(PDF) } } });
      expect(requests).toEqual([]);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'Invalid arguments for pdfconcat: argument "body": field "pdfdocument1" belongs to the multipart/form-data form of the body, not to application/json (set contentType to multipart/form-data)',
      );
    });

    it('a value that fits no field of the chosen form is refused against that form', async () => {
      const { result, requests } = await call(client, 'pdfconcat', {
        contentType: 'multipart/form-data',
        body: { pdfdocument1: 'not a file part' },
      });
      expect(requests).toEqual([]);
      expect(textOf(result)).toBe('Invalid arguments for pdfconcat: argument "body.pdfdocument1": must be object (as multipart/form-data)');
    });

    describe.each<Profile>(['portable', 'openai-strict', 'gemini'])('under --client-profile %s', (profile) => {
      let listedClient: Client;
      let listed: Tool[];
      beforeAll(async () => {
        listedClient = await serve(profile);
        listed = (await listedClient.listTools()).tools;
      });
      afterAll(async () => {
        await listedClient?.close();
      });

      it("every tool keeps the profile's rules, and the body lists both forms below the top", () => {
        expect(listed.flatMap((t) => profileViolations(t, profile))).toEqual([]);
        const pdfconcat = listed.find((t) => t.name === 'pdfconcat') as Tool;
        const forms = objectForms((pdfconcat.inputSchema.properties as Record<string, Schema>).body as Schema);
        expect(forms.map((f) => Object.keys(f.properties as object))).toEqual([
          ['pdfDocumentsAsBase64String'],
          ['pdfdocument1', 'pdfdocument2'],
        ]);
        expect(forms.map((f) => String(f.description).slice(0, 40))).toEqual([
          'When contentType is application/json (th',
          'When contentType is multipart/form-data.',
        ]);
      });

      it('a multipart call written as this profile asks is sent as multipart', async () => {
        // openai-strict makes every property required, optional ones nullable: null means absent
        const absent = profile === 'openai-strict' ? null : undefined;
        const file = { content: b64(PDF), filename: 'a.pdf', contentType: absent };
        upstream.clear();
        const result = await listedClient.callTool({
          name: 'pdfconcat',
          arguments: { contentType: 'multipart/form-data', body: { pdfdocument1: file, pdfdocument2: absent } },
        });
        expect(result.isError, textOf(result)).toBeFalsy();
        const req = upstream.requests[0] as Recorded;
        const form = await new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
        expect([...form.keys()]).toEqual(['pdfdocument1']);
        expect(Buffer.from(await (form.get('pdfdocument1') as File).arrayBuffer())).toEqual(PDF);
      });
    });
  });
});

type Schema = Record<string, unknown>;

/** The object schemas among a listed schema's anyOf branches, nested ones included (openai-strict adds a null branch around them). */
function objectForms(schema: Schema): Schema[] {
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]) : [];
  return branches.flatMap((b) => (b.type === 'object' ? [b] : objectForms(b)));
}
