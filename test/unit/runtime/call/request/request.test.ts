import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCEPT, buildRequest, type BuildOptions } from '../../../../../src/runtime/call/request/request.js';
import { ArgumentError } from '../../../../../src/contract/argument-error.js';
import { unsendableHeader } from '../../../../../src/contract/headers.js';
import { resolveServerUrl } from '../../../../../src/contract/server-url.js';
import { multipartParts } from '../../../../harness/wire.js';
import type { EncodingSpec, HttpSpec, ParamLocation, ParamSpec, ServerSpec } from '../../../../../src/contract/table.js';

const BASE = 'https://api.example.com/v1';

// --- helpers -----------------------------------------------------------------------------

/** A parameter with the OpenAPI defaults for its location (style, explode, required). */
function param(where: ParamLocation, name: string, more: Partial<ParamSpec> = {}): ParamSpec {
  const style = more.style ?? (where === 'query' || where === 'cookie' ? 'form' : 'simple');
  return {
    arg: name,
    name,
    in: where,
    style,
    explode: style === 'form',
    required: where === 'path',
    ...more,
  };
}
const path = (name: string, more?: Partial<ParamSpec>) => param('path', name, more);
const query = (name: string, more?: Partial<ParamSpec>) => param('query', name, more);
const header = (name: string, more?: Partial<ParamSpec>) => param('header', name, more);
const cookie = (name: string, more?: Partial<ParamSpec>) => param('cookie', name, more);

function op(route: string, params: ParamSpec[] = [], more: Partial<HttpSpec> = {}): HttpSpec {
  return { method: 'get', path: route, params, ...more };
}
const withBody = (mediaTypes: string[], required = false): HttpSpec =>
  op('/upload', [], { method: 'post', body: { arg: 'body', required, mediaTypes } });
/** A POST whose required body is `mediaType`, its properties encoded as `encoding` says. */
const withEncoding = (mediaType: string, encoding: Record<string, EncodingSpec>): HttpSpec =>
  op('/upload', [], {
    method: 'post',
    body: { arg: 'body', required: true, mediaTypes: [mediaType], encoding: { [mediaType]: encoding } },
  });

interface Want {
  /** Exact URL string returned. */
  url?: string;
  /** The path as the WHATWG URL parser resolves it (dot-segments removed), which is what is sent. */
  pathname?: string;
  /** Exact headers; `Accept` is added here unless given. */
  headers?: Record<string, string>;
  /** Content-Type header; null = absent. */
  contentType?: string | null;
  method?: string;
  /** Exact string body; null = no body at all. */
  body?: string | null;
  bytes?: number[];
  /** Every multipart part (headers, blank line, content; latin1), in order. */
  multipart?: string[];
  /** ArgumentError with exactly this message. */
  error?: string;
}
interface Case {
  http: HttpSpec;
  args: Record<string, unknown>;
  want: Want;
  options?: BuildOptions;
  base?: string;
}

// The "Style Examples" values from the OpenAPI specification.
const color = 'blue';
const colors = ['blue', 'black', 'brown'];
const rgb = { R: 100, G: 200, B: 150 };

const styled = (where: 'path' | 'query', style: ParamSpec['style'], explode: boolean, value: unknown, want: string): Case =>
  where === 'path'
    ? { http: op('/items/{color}', [path('color', { style, explode })]), args: { color: value }, want: { url: `${BASE}/items/${want}` } }
    : { http: op('/items', [query('color', { style, explode })]), args: { color: value }, want: { url: `${BASE}/items?${want}` } };

// --- buildRequest ------------------------------------------------------------------------

const cases: [string, Case][] = [
  // Path, OpenAPI "Style Examples" table
  ['path simple string', styled('path', 'simple', false, color, 'blue')],
  ['path simple array', styled('path', 'simple', false, colors, 'blue,black,brown')],
  ['path simple object', styled('path', 'simple', false, rgb, 'R,100,G,200,B,150')],
  ['path simple* array', styled('path', 'simple', true, colors, 'blue,black,brown')],
  ['path simple* object', styled('path', 'simple', true, rgb, 'R=100,G=200,B=150')],
  ['path label string', styled('path', 'label', false, color, '.blue')],
  ['path label array', styled('path', 'label', false, colors, '.blue,black,brown')],
  ['path label object', styled('path', 'label', false, rgb, '.R,100,G,200,B,150')],
  ['path label* array', styled('path', 'label', true, colors, '.blue.black.brown')],
  ['path label* object', styled('path', 'label', true, rgb, '.R=100.G=200.B=150')],
  ['path matrix empty', styled('path', 'matrix', false, '', ';color')],
  ['path matrix string', styled('path', 'matrix', false, color, ';color=blue')],
  ['path matrix array', styled('path', 'matrix', false, colors, ';color=blue,black,brown')],
  ['path matrix object', styled('path', 'matrix', false, rgb, ';color=R,100,G,200,B,150')],
  ['path matrix* array', styled('path', 'matrix', true, colors, ';color=blue;color=black;color=brown')],
  ['path matrix* object', styled('path', 'matrix', true, rgb, ';R=100;G=200;B=150')],
  [
    'path: several params, number and boolean, arg name differs from template name',
    {
      http: op('/users/{user_id}/flags/{on}', [path('user_id', { arg: 'userId' }), path('on')]),
      args: { userId: 42, on: true },
      want: { url: `${BASE}/users/42/flags/true` },
    },
  ],

  // Path values stay inside their segment
  ['path traversal ../admin', styled('path', 'simple', false, '../admin', '..%2Fadmin')],
  [
    'path traversal survives URL parsing',
    {
      http: op('/items/{id}/details', [path('id')]),
      args: { id: '../../admin' },
      want: { pathname: '/v1/items/..%2F..%2Fadmin/details' },
    },
  ],
  ['path slash a/b', styled('path', 'simple', false, 'a/b', 'a%2Fb')],
  ['path query and fragment x?y#z', styled('path', 'simple', false, 'x?y#z', 'x%3Fy%23z')],
  ["path space, percent and !'()*", styled('path', 'simple', false, "a b%c!'()*", 'a%20b%25c%21%27%28%29%2A')],
  ['path non-ASCII', styled('path', 'simple', false, 'café', 'caf%C3%A9')],
  ['path literal %2E%2E is data, not a dot-segment', styled('path', 'simple', false, '%2E%2E', '%252E%252E')],
  [
    'path value ".." is refused',
    {
      http: op('/items/{id}', [path('id')]),
      args: { id: '..' },
      want: { error: 'argument "id": path value would form the segment "..", which URL parsers remove' },
    },
  ],
  [
    'path value "." is refused',
    {
      http: op('/items/{id}/x', [path('id')]),
      args: { id: '.' },
      want: { error: 'argument "id": path value would form the segment ".", which URL parsers remove' },
    },
  ],
  [
    'label "." would make the segment ".." and is refused',
    {
      http: op('/items/{id}', [path('id', { style: 'label' })]),
      args: { id: '.' },
      want: { error: 'argument "id": path value would form the segment "..", which URL parsers remove' },
    },
  ],
  [
    'missing required path parameter',
    {
      http: op('/pets/{petId}', [path('petId')]),
      args: { other: 1 },
      want: { error: 'argument "petId": required path parameter is missing' },
    },
  ],
  [
    'undefined path value counts as missing',
    {
      http: op('/pets/{petId}', [path('petId')]),
      args: { petId: undefined },
      want: { error: 'argument "petId": required path parameter is missing' },
    },
  ],
  [
    'empty simple path value is refused',
    {
      http: op('/pets/{petId}', [path('petId')]),
      args: { petId: '' },
      want: { error: 'argument "petId": path parameter must not be empty' },
    },
  ],
  ['base URL trailing slash is not doubled', { http: op('/pets'), args: {}, base: `${BASE}/`, want: { url: `${BASE}/pets` } }],

  // Fixed query and fragment in the path template (AWS style)
  [
    'fixed query in template merged with params',
    {
      http: op('/{Bucket}?uploads', [path('Bucket'), query('max-uploads')]),
      args: { Bucket: 'my bucket', 'max-uploads': 5 },
      want: { url: `${BASE}/my%20bucket?uploads&max-uploads=5` },
    },
  ],
  ['fixed query alone', { http: op('/{Bucket}?uploads', [path('Bucket')]), args: { Bucket: 'b' }, want: { url: `${BASE}/b?uploads` } }],
  ['fragment in template is dropped', { http: op('/#X-Amz-Target=DynamoDB.ListTables'), args: {}, want: { url: `${BASE}/` } }],
  [
    'fixed query before a fragment; fragment dropped',
    {
      http: op('/{Key}?x-id=GetObject#frag', [path('Key'), query('versionId')]),
      args: { Key: 'k', versionId: 'v1' },
      want: { url: `${BASE}/k?x-id=GetObject&versionId=v1` },
    },
  ],

  // Query, OpenAPI "Style Examples" table
  ['query form empty', styled('query', 'form', true, '', 'color=')],
  ['query form string', styled('query', 'form', true, color, 'color=blue')],
  ['query form array', styled('query', 'form', false, colors, 'color=blue,black,brown')],
  ['query form object', styled('query', 'form', false, rgb, 'color=R,100,G,200,B,150')],
  ['query form* array', styled('query', 'form', true, colors, 'color=blue&color=black&color=brown')],
  ['query form* object', styled('query', 'form', true, rgb, 'R=100&G=200&B=150')],
  ['query spaceDelimited array', styled('query', 'spaceDelimited', false, colors, 'color=blue%20black%20brown')],
  ['query spaceDelimited object', styled('query', 'spaceDelimited', false, rgb, 'color=R%20100%20G%20200%20B%20150')],
  ['query spaceDelimited* array repeats', styled('query', 'spaceDelimited', true, colors, 'color=blue&color=black&color=brown')],
  // OAS 3.1.1 Style Examples and Appendix E: `|`, `[` and `]` are not allowed in a query (RFC 3986 §3.4)
  ['query pipeDelimited array', styled('query', 'pipeDelimited', false, colors, 'color=blue%7Cblack%7Cbrown')],
  ['query pipeDelimited object', styled('query', 'pipeDelimited', false, rgb, 'color=R%7C100%7CG%7C200%7CB%7C150')],
  ['query tabDelimited array (Swagger 2 tsv)', styled('query', 'tabDelimited', false, colors, 'color=blue%09black%09brown')],
  ['query deepObject', styled('query', 'deepObject', true, rgb, 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150')],
  [
    'query deepObject nested objects and arrays',
    styled(
      'query',
      'deepObject',
      true,
      { user: { name: 'ann lee', age: 3 }, tags: ['a', 'b'] },
      'color%5Buser%5D%5Bname%5D=ann%20lee&color%5Buser%5D%5Bage%5D=3&color%5Btags%5D%5B0%5D=a&color%5Btags%5D%5B1%5D=b',
    ),
  ],
  ['query deepObject key with brackets is encoded', styled('query', 'deepObject', true, { 'a]=b': 1 }, 'color%5Ba%5D%3Db%5D=1')],
  ['query form array of numbers', styled('query', 'form', true, [1, 2], 'color=1&color=2')],
  [
    'query empty array sends nothing (RFC 6570 §2.3)',
    { http: op('/items', [query('color')]), args: { color: [] }, want: { url: `${BASE}/items` } },
  ],
  [
    'query booleans, numbers, null',
    {
      http: op('/s', [query('flag'), query('n'), query('z')]),
      // null is "undefined" in RFC 6570 §2.3 (OAS 3.1.1 Appendix C): nothing is sent, as for [] and {}
      args: { flag: false, n: 1.5, z: null },
      want: { url: `${BASE}/s?flag=false&n=1.5` },
    },
  ],
  [
    'query order follows params, not args',
    {
      http: op('/s', [query('b'), query('a'), query('c')]),
      args: { c: 3, a: 1, b: 2 },
      want: { url: `${BASE}/s?b=2&a=1&c=3` },
    },
  ],
  [
    'query value reserved characters are encoded',
    {
      http: op('/s', [query('q')]),
      args: { q: "a/b:c?d[e]@f!$'()*,;&g=h#i+j k" },
      want: { url: `${BASE}/s?q=a%2Fb%3Ac%3Fd%5Be%5D%40f%21%24%27%28%29%2A%2C%3B%26g%3Dh%23i%2Bj%20k` },
    },
  ],
  [
    // OAS 3.1.1 Parameter Object `allowReserved`: reserved characters and percent-encoded
    // triples pass; `[`, `]` and `#` (not allowed in a query) and the form delimiters `&`, `=`,
    // `+` are still encoded, and so is a `%` that starts no triple.
    'query allowReserved keeps reserved chars and %XX triples but not [ ] # & = + or a lone %',
    {
      http: op('/s', [query('q', { allowReserved: true })]),
      args: { q: "a/b:c?d[e]@f!$'()*,;&g=h#i+j k%2F%zz|" },
      want: { url: `${BASE}/s?q=a/b:c?d%5Be%5D@f!$'()*,;%26g%3Dh%23i%2Bj%20k%2F%25zz%7C` },
    },
  ],
  [
    // Appendix E: a name is percent-encoded like a value (`filter[drive_id]=…` is not RFC 3986)
    'query name with brackets is percent-encoded',
    {
      http: op('/s', [query('filter[drive_id]', { arg: 'drive' }), query('versions', { style: 'pipeDelimited', explode: false })]),
      args: { drive: 'open&closed', versions: ['a', 'b'] },
      want: { url: `${BASE}/s?filter%5Bdrive_id%5D=open%26closed&versions=a%7Cb` },
    },
  ],
  [
    'missing required query parameter',
    {
      http: op('/s', [query('q', { required: true })]),
      args: {},
      want: { error: 'argument "q": required query parameter is missing' },
    },
  ],

  // Only what the caller gave is sent
  [
    'absent and undefined optional arguments send nothing',
    {
      http: op('/pets', [query('limit'), query('offset'), header('X-Trace'), cookie('session')], {
        body: { arg: 'body', required: false, mediaTypes: ['application/json'] },
      }),
      args: { offset: undefined, body: undefined },
      want: { url: `${BASE}/pets`, headers: {}, body: null },
    },
  ],

  // Headers
  [
    'header scalar, array, name differs from arg',
    {
      http: op('/h', [header('X-Request-ID', { arg: 'requestId' }), header('X-Ids')]),
      args: { requestId: 'a b/c', 'X-Ids': [1, 2, 3] },
      want: { headers: { 'X-Request-ID': 'a b/c', 'X-Ids': '1,2,3' } },
    },
  ],
  [
    'header object, explode false and true',
    {
      http: op('/h', [header('X-Color'), header('X-Color-Exploded', { arg: 'c2', explode: true })]),
      args: { 'X-Color': rgb, c2: rgb },
      want: { headers: { 'X-Color': 'R,100,G,200,B,150', 'X-Color-Exploded': 'R=100,G=200,B=150' } },
    },
  ],
  [
    'header params named Accept, Content-Type, Authorization are ignored',
    {
      http: op('/h', [header('Accept'), header('content-type'), header('Authorization')]),
      args: { Accept: 'text/html', 'content-type': 'text/plain', Authorization: 'Bearer x' },
      want: { headers: { Accept: DEFAULT_ACCEPT } },
    },
  ],
  [
    'header CR/LF is refused',
    {
      http: op('/h', [header('X-Note', { arg: 'note' })]),
      args: { note: 'ok\r\nX-Injected: 1' },
      want: { error: 'argument "note": header value must not contain CR, LF, NUL or other control characters' },
    },
  ],
  [
    'header NUL is refused',
    {
      http: op('/h', [header('X-Note', { arg: 'note' })]),
      args: { note: 'a\u0000b' },
      want: { error: 'argument "note": header value must not contain CR, LF, NUL or other control characters' },
    },
  ],
  [
    'missing required header',
    {
      http: op('/h', [header('X-Api-Version', { arg: 'version', required: true })]),
      args: {},
      want: { error: 'argument "version": required header parameter is missing' },
    },
  ],

  // Cookies
  [
    'cookies joined with "; " and percent-encoded',
    {
      http: op('/c', [cookie('session'), cookie('theme'), cookie('ids', { explode: false })]),
      args: { session: 'abc', theme: 'dark; mode', ids: [3, 4] },
      want: { headers: { Cookie: 'session=abc; theme=dark%3B%20mode; ids=3,4' } },
    },
  ],
  [
    'cookie array exploded',
    {
      http: op('/c', [cookie('id')]),
      args: { id: ['a', 'b'] },
      want: { headers: { Cookie: 'id=a; id=b' } },
    },
  ],

  // Bodies
  [
    'JSON body',
    {
      http: withBody(['application/json', 'application/xml']),
      args: { body: { name: 'Rex', tags: ['a'] } },
      want: { method: 'POST', body: '{"name":"Rex","tags":["a"]}', contentType: 'application/json' },
    },
  ],
  [
    'merge-patch+json chosen by option',
    {
      http: withBody(['application/json', 'application/merge-patch+json']),
      args: { body: { name: null } },
      options: { contentType: 'application/merge-patch+json' },
      want: { body: '{"name":null}', contentType: 'application/merge-patch+json' },
    },
  ],
  [
    'json-patch+json array',
    {
      http: withBody(['application/json-patch+json']),
      args: { body: [{ op: 'remove', path: '/a' }] },
      want: { body: '[{"op":"remove","path":"/a"}]', contentType: 'application/json-patch+json' },
    },
  ],
  [
    // Stripe's spec declares `style: deepObject, explode: true` for each structured property;
    // with that Encoding Object the property is serialised like a deepObject query parameter.
    'form-urlencoded, Stripe conventions through the Encoding Object',
    {
      http: op('/upload', [], {
        method: 'post',
        body: {
          arg: 'body',
          required: false,
          mediaTypes: ['application/x-www-form-urlencoded'],
          encoding: {
            'application/x-www-form-urlencoded': {
              metadata: { style: 'deepObject', explode: true },
              expand: { style: 'deepObject', explode: true },
              items: { style: 'deepObject', explode: true },
            },
          },
        },
      }),
      args: {
        body: {
          amount: 2000,
          description: 'a&b c',
          metadata: { order_id: '6735' },
          expand: ['customer', 'invoice'],
          items: [{ price: 'p_1', quantity: 2 }],
          skipped: undefined,
        },
      },
      want: {
        body:
          'amount=2000&description=a%26b%20c&metadata%5Border_id%5D=6735&expand%5B0%5D=customer&expand%5B1%5D=invoice' +
          '&items%5B0%5D%5Bprice%5D=p_1&items%5B0%5D%5Bquantity%5D=2',
        contentType: 'application/x-www-form-urlencoded',
      },
    },
  ],
  [
    // OAS 3.1.1 §4.8.15 "URL Encoded Form with JSON Values" / 3.2 "Encoding By Name": without an
    // Encoding Object an array is one pair per item and an object is its JSON text.
    'form-urlencoded without an Encoding Object: repeated keys for arrays, JSON text for objects',
    {
      http: withBody(['application/x-www-form-urlencoded']),
      args: { body: { Filters: ['a', 'b'], meta: { k: 'v' }, gone: null, none: [] } },
      want: { body: 'Filters=a&Filters=b&meta=%7B%22k%22%3A%22v%22%7D', contentType: 'application/x-www-form-urlencoded' },
    },
  ],
  [
    // RFC 7578 §4.4: a part without Content-Type is text/plain; OAS 3.1.1 "Special
    // Considerations for multipart Content": objects default to application/json, files to
    // application/octet-stream, and an array is one part per item.
    'multipart: file part, scalars, object, repeated array',
    {
      http: withBody(['multipart/form-data']),
      args: {
        body: {
          file: { content: Buffer.from('hello').toString('base64'), filename: 'hi.txt', contentType: 'text/plain' },
          raw: { content: 'AAH/' },
          count: 3,
          meta: { a: 1 },
          tags: ['x', 'y'],
        },
      },
      want: {
        multipart: [
          'Content-Disposition: form-data; name="file"; filename="hi.txt"\r\nContent-Type: text/plain\r\n\r\nhello',
          'Content-Disposition: form-data; name="raw"; filename="file"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01\xff',
          'Content-Disposition: form-data; name="count"\r\n\r\n3',
          'Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}',
          'Content-Disposition: form-data; name="tags"\r\n\r\nx',
          'Content-Disposition: form-data; name="tags"\r\n\r\ny',
        ],
      },
    },
  ],
  [
    'multipart: object with other keys is not a file part',
    {
      http: withBody(['multipart/form-data']),
      args: { body: { doc: { content: 'x', title: 't' } } },
      want: {
        multipart: ['Content-Disposition: form-data; name="doc"\r\nContent-Type: application/json\r\n\r\n{"content":"x","title":"t"}'],
      },
    },
  ],
  [
    // WHATWG HTML "multipart/form-data encoding algorithm": `"`, CR and LF in a name are escaped.
    'multipart: a quote or line break in a field name cannot end the Content-Disposition header',
    {
      http: withBody(['multipart/form-data']),
      args: { body: { 'a"b\r\nX-Evil: 1': 'v' } },
      want: { multipart: ['Content-Disposition: form-data; name="a%22b%0D%0AX-Evil: 1"\r\n\r\nv'] },
    },
  ],
  [
    'octet-stream body from base64',
    {
      http: withBody(['application/octet-stream']),
      args: { body: 'AAEC/w==' },
      want: { bytes: [0, 1, 2, 255], contentType: 'application/octet-stream' },
    },
  ],
  [
    'image/png body from base64 (URL-safe alphabet)',
    {
      http: withBody(['image/png']),
      args: { body: '-_8' },
      want: { bytes: [251, 255], contentType: 'image/png' },
    },
  ],
  [
    'binary body that is not base64 is refused',
    {
      http: withBody(['application/octet-stream']),
      args: { body: 'not base64!' },
      want: { error: 'argument "body": must be base64-encoded' },
    },
  ],
  [
    'text/plain body as is',
    {
      http: withBody(['text/plain; charset=utf-8']),
      args: { body: 'héllo\n' },
      want: { body: 'héllo\n', contentType: 'text/plain; charset=utf-8' },
    },
  ],
  [
    'application/xml chosen case-insensitively, string as is',
    {
      http: withBody(['application/json', 'application/xml']),
      args: { body: '<a/>' },
      options: { contentType: 'Application/XML' },
      want: { body: '<a/>', contentType: 'application/xml' },
    },
  ],
  [
    '*/* is sent as JSON',
    {
      http: withBody(['*/*']),
      args: { body: { a: 1 } },
      want: { body: '{"a":1}', contentType: 'application/json' },
    },
  ],
  [
    'contentType not listed',
    {
      http: withBody(['application/json']),
      args: { body: {} },
      options: { contentType: 'text/csv' },
      want: { error: 'argument "contentType": must be one of application/json, got "text/csv"' },
    },
  ],
  [
    'missing required body',
    {
      http: withBody(['application/json'], true),
      args: {},
      want: { error: 'argument "body": required request body is missing' },
    },
  ],
  [
    // Parameter Object `content`: the value is a document of that media type, percent-encoded in the URL
    'content parameters in query, path, header and cookie are JSON text',
    {
      http: op('/f/{f}', [
        path('f', { contentType: 'application/json' }),
        query('ids', { contentType: 'application/json' }),
        header('X-Meta', { contentType: 'application/json' }),
        cookie('c', { contentType: 'application/json' }),
      ]),
      args: { f: { a: 1 }, ids: ['a', 'b'], 'X-Meta': { k: 'v' }, c: [1] },
      want: {
        url: `${BASE}/f/%7B%22a%22%3A1%7D?ids=%5B%22a%22%2C%22b%22%5D`,
        headers: { 'X-Meta': '{"k":"v"}', Cookie: 'c=%5B1%5D' },
      },
    },
  ],
  [
    'a text/plain content parameter is the string itself',
    { http: op('/s', [query('q', { contentType: 'text/plain' })]), args: { q: 'a b' }, want: { url: `${BASE}/s?q=a%20b` } },
  ],
  [
    // Swagger 2.0 Parameter Object collectionFormat in a path segment and a header
    'Swagger 2.0 pipes, ssv and tsv in path and header use their separators',
    {
      http: op('/p/{a}/{b}/{c}', [
        path('a', { style: 'pipeDelimited', explode: false }),
        path('b', { style: 'spaceDelimited', explode: false }),
        path('c', { style: 'tabDelimited', explode: false }),
        header('X-A', { style: 'pipeDelimited', explode: false }),
        header('X-B', { style: 'spaceDelimited', explode: false }),
        header('X-C', { style: 'tabDelimited', explode: false }),
      ]),
      args: { a: [1, 2], b: [1, 2], c: [1, 2], 'X-A': [1, 2], 'X-B': [1, 2], 'X-C': [1, 2] },
      want: { url: `${BASE}/p/1%7C2/1%202/1%092`, headers: { 'X-A': '1|2', 'X-B': '1 2', 'X-C': '1\t2' } },
    },
  ],
  [
    // RFC 9112 §6: the client frames the message; a parameter cannot override it. The generator
    // leaves such parameters out; a hand-edited tools.json still cannot send them.
    'a Host, Transfer-Encoding, … header parameter in the table is refused when given',
    {
      http: op('/h', [header('Content-Length'), header('Host'), header('transfer-encoding'), header('X-Ok')]),
      args: { Host: 'evil.example', 'X-Ok': 'y' },
      want: { error: 'argument "Host": header "Host" cannot be sent: the HTTP client sets it itself (framing, routing or connection)' },
    },
  ],
  [
    'an unused Host header parameter in the table does not stop the call',
    {
      http: op('/h', [header('Host'), header('Proxy-Authorization'), header('X-Ok')]),
      args: { 'X-Ok': 'y' },
      want: { headers: { 'X-Ok': 'y' } },
    },
  ],
  [
    'a header parameter whose name is no token is refused',
    {
      http: op('/h', [header('X-A\r\nHost: evil', { arg: 'a' })]),
      args: { a: 'x' },
      want: { error: 'argument "a": header "X-A\\r\\nHost: evil" cannot be sent: not a valid header name (an RFC 9110 token)' },
    },
  ],
  [
    'a header value with another control character is refused',
    {
      http: op('/h', [header('X-Note', { arg: 'note' })]),
      args: { note: 'a\u0001b' },
      want: { error: 'argument "note": header value must not contain CR, LF, NUL or other control characters' },
    },
  ],
  [
    // RFC 6570 §2.3: null, an empty list and an empty map are undefined; "" is defined
    'null, [] and {} send nothing in header and cookie; null members and items are left out',
    {
      http: op('/n', [header('X-A'), header('X-B'), cookie('a'), cookie('b'), query('l'), query('m')]),
      args: { 'X-A': null, 'X-B': {}, a: null, b: '', l: ['x', null, 'y'], m: { k: null, j: 'v' } },
      want: { url: `${BASE}/n?l=x&l=y&j=v`, headers: { Cookie: 'b=' } },
    },
  ],
  [
    // RFC 6570's "undefined" is for style-based serialisation only; a `content` value is a
    // document of its media type (OAS 3.1.1 Parameter Object `content`, Appendix E)
    '{} and [] in content parameters are JSON text in every location; null still sends nothing',
    {
      http: op('/f/{f}', [
        path('f', { contentType: 'application/json' }),
        query('where', { contentType: 'application/json', required: true }),
        query('query', { contentType: 'application/json' }),
        query('none', { contentType: 'application/json' }),
        header('X-Meta', { contentType: 'application/json' }),
        cookie('c', { contentType: 'application/json' }),
      ]),
      args: { f: {}, where: [], query: {}, none: null, 'X-Meta': {}, c: [] },
      want: { url: `${BASE}/f/%7B%7D?where=%5B%5D&query=%7B%7D`, headers: { 'X-Meta': '{}', Cookie: 'c=%5B%5D' } },
    },
  ],
  [
    // OAS 3.1.1 Encoding Object: without style/explode/allowReserved a form field is content-based,
    // an object's default contentType being application/json; with a style, RFC 6570 applies
    'form-urlencoded: {} is JSON text where the field is JSON content, [] too when its contentType is JSON; styled ones send nothing',
    {
      http: withEncoding('application/x-www-form-urlencoded', {
        ids: { contentType: 'application/json' },
        deep: { style: 'deepObject', explode: true },
        list: { style: 'form', explode: false },
      }),
      args: { body: { json: {}, ids: [], repeated: [], deep: {}, list: [], gone: null } },
      want: { body: 'json=%7B%7D&ids=%5B%5D' },
    },
  ],
  [
    'multipart: {} is an application/json part, [] too when its contentType is JSON; a plain [] has no items to send',
    {
      http: withEncoding('multipart/form-data', { ids: { contentType: 'application/json' }, styled: { style: 'form', explode: true } }),
      args: { body: { json: {}, ids: [], repeated: [], styled: {}, gone: null } },
      want: {
        multipart: [
          'Content-Disposition: form-data; name="json"\r\nContent-Type: application/json\r\n\r\n{}',
          'Content-Disposition: form-data; name="ids"\r\nContent-Type: application/json\r\n\r\n[]',
        ],
      },
    },
  ],
  [
    'a required parameter given as null is missing, and the message says why',
    {
      http: op('/n', [query('q', { required: true })]),
      args: { q: null },
      want: { error: 'argument "q": required query parameter is missing (null counts as no value)' },
    },
  ],
  [
    // OAS 3.1.1 §4.8.15: an explicit JSON contentType writes the whole field as one JSON text
    'form field with an Encoding Object contentType application/json',
    {
      http: withEncoding('application/x-www-form-urlencoded', { ids: { contentType: 'application/json' } }),
      args: { body: { ids: [1, 2] } },
      want: { body: 'ids=%5B1%2C2%5D' },
    },
  ],
  [
    // A range is no Content-Type (media.ts, concreteMediaType): a file is bytes, a string text, a structure JSON
    'multipart parts whose Encoding Object contentType is a range',
    {
      http: withEncoding('multipart/form-data', {
        f: { contentType: '*/*' },
        t: { contentType: '*/*' },
        j: { contentType: 'application/*+json' },
      }),
      args: { body: { f: { content: 'AAE=' }, t: 'plain', j: { a: 1 } } },
      want: {
        multipart: [
          'Content-Disposition: form-data; name="f"; filename="file"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001',
          'Content-Disposition: form-data; name="t"\r\n\r\nplain',
          'Content-Disposition: form-data; name="j"\r\nContent-Type: application/json\r\n\r\n{"a":1}',
        ],
      },
    },
  ],
  [
    'a body declared as application/*+json goes as application/json',
    {
      http: withBody(['application/*+json']),
      args: { body: { a: 1 } },
      want: { headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' },
    },
  ],
  [
    // OAS 3.1 Encoding Object: deepObject style in a multipart body gives one part per leaf
    'multipart field with style deepObject, and a part header fixed by the spec',
    {
      http: withEncoding('multipart/form-data', { o: { style: 'deepObject', explode: true, headers: { 'X-V': '1' } } }),
      args: { body: { o: { a: 'x', b: { c: 'y' } } } },
      want: {
        multipart: [
          'Content-Disposition: form-data; name="o[a]"\r\nX-V: 1\r\n\r\nx',
          'Content-Disposition: form-data; name="o[b][c]"\r\nX-V: 1\r\n\r\ny',
        ],
      },
    },
  ],
];

describe('buildRequest', () => {
  it.each(cases)('%s', (_name, { http, args, want, options, base }) => {
    expect.hasAssertions();
    const build = () => buildRequest(http, args, base ?? BASE, options);

    if (want.error !== undefined) {
      let thrown: unknown;
      try {
        build();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ArgumentError);
      expect((thrown as ArgumentError).message).toBe(want.error);
      return;
    }

    const got = build();
    if (want.url !== undefined) expect(got.url).toBe(want.url);
    if (want.pathname !== undefined) expect(new URL(got.url).pathname).toBe(want.pathname);
    if (want.method !== undefined) expect(got.method).toBe(want.method);
    if (want.headers !== undefined) expect(got.headers).toEqual({ Accept: DEFAULT_ACCEPT, ...want.headers });
    if (want.contentType !== undefined) expect(got.headers['Content-Type']).toBe(want.contentType ?? undefined);
    if (want.body !== undefined) expect(got.body).toBe(want.body ?? undefined);
    if (want.bytes !== undefined) {
      expect(got.body).toBeInstanceOf(Uint8Array);
      expect([...(got.body as Uint8Array)]).toEqual(want.bytes);
    }
    if (want.multipart !== undefined) {
      expect(got.body).toBeInstanceOf(Uint8Array);
      expect(multipartParts(got.body as Uint8Array, got.headers['Content-Type'])).toEqual(want.multipart);
    }
  });

  it('ArgumentError carries the argument name', () => {
    try {
      buildRequest(op('/pets/{petId}', [path('petId')]), {}, BASE);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ArgumentError);
      expect((error as ArgumentError).arg).toBe('petId');
      expect((error as ArgumentError).name).toBe('ArgumentError');
    }
  });
});

// --- unsendableHeader -------------------------------------------------------------------

describe('unsendableHeader', () => {
  // The whole request, after security schemes and static headers: names the header, never its value (a secret)
  it.each([
    [{ 'X-Api-Key': 'k', Accept: 'a', Authorization: 'Bearer t' }, undefined],
    [{ host: 'evil.example' }, 'header "host" cannot be sent: the HTTP client sets it itself (framing, routing or connection)'],
    [
      { 'Transfer-Encoding': 'chunked' },
      'header "Transfer-Encoding" cannot be sent: the HTTP client sets it itself (framing, routing or connection)',
    ],
    [{ 'X Key': 'k' }, 'header "X Key" cannot be sent: not a valid header name (an RFC 9110 token)'],
    [
      { Authorization: 'Bearer\r\nHost: evil' },
      'header "Authorization" cannot be sent: its value contains CR, LF, NUL or other control characters',
    ],
    [{ 'X-Api-Key': 'caf\u00e9\u20ac' }, 'header "X-Api-Key" cannot be sent: its value contains characters outside Latin-1'],
  ])('%j', (headers, want) => {
    expect(unsendableHeader(headers)).toBe(want);
  });
});

// --- resolveServerUrl --------------------------------------------------------------------

const serverCases: [string, { server: ServerSpec; overrides?: Record<string, string>; want: string | { error: string } }][] = [
  ['trailing slash stripped', { server: { url: 'https://api.example.com/v2/' }, want: 'https://api.example.com/v2' }],
  [
    'variables filled with defaults, enum default used',
    {
      server: {
        url: '{scheme}://{region}.example.com:{port}/{base}/',
        variables: {
          scheme: { default: 'https', enum: ['https', 'http'] },
          region: { default: 'eu', enum: ['eu', 'us'] },
          port: { default: '8443' },
          base: { default: 'api' },
        },
      },
      want: 'https://eu.example.com:8443/api',
    },
  ],
  [
    'override replaces default',
    {
      server: { url: 'https://{region}.example.com', variables: { region: { default: 'eu', enum: ['eu', 'us'] } } },
      overrides: { region: 'us' },
      want: 'https://us.example.com',
    },
  ],
  [
    'override outside the enum is refused',
    {
      server: { url: 'https://{region}.example.com', variables: { region: { default: 'eu', enum: ['eu', 'us'] } } },
      overrides: { region: 'evil.com/' },
      want: { error: 'argument "region": server variable must be one of eu, us, got "evil.com/"' },
    },
  ],
  [
    'undeclared variable without override is refused',
    {
      server: { url: 'https://{tenant}.example.com' },
      want: { error: 'argument "tenant": server URL https://{tenant}.example.com uses an undefined variable' },
    },
  ],
];

describe('resolveServerUrl', () => {
  it.each(serverCases)('%s', (_name, { server, overrides, want }) => {
    if (typeof want === 'string') {
      expect(resolveServerUrl(server, overrides)).toBe(want);
    } else {
      expect(() => resolveServerUrl(server, overrides)).toThrow(ArgumentError);
      expect(() => resolveServerUrl(server, overrides)).toThrow(want.error);
    }
  });
});

describe('an `in: querystring` parameter (OAS 3.2) is the whole query string, as its media type writes it', () => {
  const querystring = (contentType: string) => param('querystring', 'q', { style: 'form', contentType });
  const url = (p: ParamSpec, value: unknown) => buildRequest(op('/foo', [p]), { q: value }, 'https://example.com').url;

  it('application/x-www-form-urlencoded: the form of the object, as a form body is written', () => {
    // the spec's spacesAndPluses example: `foo=a+%2B+b&bar=true`; %20 is the same space to a form reader
    const form = url(querystring('application/x-www-form-urlencoded'), { foo: 'a + b', bar: true });
    expect(form).toBe('https://example.com/foo?foo=a%20%2B%20b&bar=true');
    expect(Object.fromEntries(new URL(form).searchParams)).toEqual({ foo: 'a + b', bar: 'true' });
  });

  it("application/json: the JSON text, percent-encoded as one piece (the spec's TwoNoFlag example)", () => {
    expect(url(querystring('application/json'), { numbers: [1, 2], flag: null })).toBe(
      'https://example.com/foo?%7B%22numbers%22%3A%5B1%2C2%5D%2C%22flag%22%3Anull%7D',
    );
  });

  it("a string media type: the text, percent-encoded (the spec's JSONPath example)", () => {
    expect(url(querystring('application/jsonpath'), '$.a.b[1:1]')).toBe('https://example.com/foo?%24.a.b%5B1%3A1%5D');
  });

  it("after the path's literal query; a form given as anything but an object or its text is refused by name", () => {
    const p = querystring('application/x-www-form-urlencoded');
    expect(buildRequest(op('/foo?v=2', [p]), { q: { a: '1' } }, 'https://example.com').url).toBe('https://example.com/foo?v=2&a=1');
    expect(() => buildRequest(op('/foo', [p]), { q: [1] }, 'https://example.com')).toThrow(
      new ArgumentError('q', "must be an object of the form's fields, or the query string itself"),
    );
  });
});

describe("a querystring parameter's form honours its Encoding Objects, as a form body does", () => {
  it('a deepObject property in brackets, the others as form pairs', () => {
    const p = param('querystring', 'q', {
      style: 'form',
      contentType: 'application/x-www-form-urlencoded',
      encoding: { near: { style: 'deepObject', explode: true } },
    });
    const url = buildRequest(op('/pets/find', [p]), { q: { name: 'Rex', near: { lat: 1, lon: 2 } } }, 'https://example.com').url;
    expect(url).toBe('https://example.com/pets/find?name=Rex&near%5Blat%5D=1&near%5Blon%5D=2');
  });
});
