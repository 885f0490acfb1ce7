// buildModel (src/model/build.ts): operations → the tool table and the report.
// Specs are built inline as LoadedSpec objects; the last block runs the real Petstore sample
// through loadSpec.
import { formatWarning } from '../../../src/warnings.js';
import { describe, expect, it } from 'vitest';
import { Ajv, AjvJsonSchemaValidator, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/server';
import { buildModel, type ServerModel } from '../../../src/model/build.js';
import type { ModelOptions } from '../../../src/model/model-options.js';
import { loadSpec, type LoadedSpec } from '../../../src/parse/load.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { JsonSchema, ToolSpec } from '../../../src/contract/table.js';
import { defGraph } from '../../../src/contract/def-refs.js';

// --- helpers -----------------------------------------------------------------------------

const DEFAULT_OPTIONS: ModelOptions = { maxDescriptionLength: 1_000 };
const SERVERS = [{ url: 'https://api.example.com/v1' }];

/** A 3.0 spec with an absolute server, so that no server warning appears unless wanted. */
function spec(paths: JsonObject, more: JsonObject = {}, specVersion = '3.0.3', source = 'test.yaml'): LoadedSpec {
  return {
    doc: { openapi: specVersion, info: { title: 'Test API', version: '1.0.0' }, servers: SERVERS, paths, ...more },
    specVersion,
    source,
    warnings: [],
  };
}

function model(s: LoadedSpec, options: Partial<ModelOptions> = {}): ServerModel {
  return buildModel(s, { ...DEFAULT_OPTIONS, ...options });
}

/** The one tool of a one-operation spec. */
function only(m: ServerModel): ToolSpec {
  expect(m.table.tools).toHaveLength(1);
  return m.table.tools[0] as ToolSpec;
}

/** One operation at `/things`, built from its parts. */
const op = (method: string, operation: JsonObject, path = '/things'): JsonObject => ({
  [path]: { [method]: { responses: {}, ...operation } },
});

const props = (t: ToolSpec) => t.inputSchema.properties as Record<string, JsonSchema>;

const draft07 = new Ajv({ strict: false });
addFormats(draft07);
const sdk = new AjvJsonSchemaValidator();
function toolSchema(m: ServerModel, t: ToolSpec): JsonSchema {
  const reached = defGraph(m.table.defs).reachedFrom(t.inputSchema);
  return reached.length ? { ...t.inputSchema, $defs: Object.fromEntries(reached.map((k) => [k, m.table.defs[k]])) } : t.inputSchema;
}

// --- names --------------------------------------------------------------------------------

describe('tool names', () => {
  const cases: [
    string,
    { given: JsonObject; want: { names: string[]; renamed: { operation: string; name: string; reason: string }[] } },
  ][] = [
    [
      'from the operationId, unchanged',
      {
        given: { '/pets': { get: { operationId: 'listPets' }, post: { operationId: 'createPet' } } },
        want: { names: ['listPets', 'createPet'], renamed: [] },
      },
    ],
    [
      'from the route when there is no operationId',
      {
        given: { '/pets/{petId}': { get: {} } },
        want: {
          names: ['get_pets_petId'],
          renamed: [{ operation: 'GET /pets/{petId}', name: 'get_pets_petId', reason: 'no operationId' }],
        },
      },
    ],
    [
      'a blank operationId counts as none',
      {
        given: { '/pets': { delete: { operationId: '  ' } } },
        want: { names: ['delete_pets'], renamed: [{ operation: 'DELETE /pets', name: 'delete_pets', reason: 'no operationId' }] },
      },
    ],
    [
      'an operationId that is not a valid tool name is sanitised and reported',
      {
        given: { '/repos/{owner}/{repo}': { get: { operationId: 'repos/get' } } },
        want: {
          names: ['repos_get'],
          renamed: [{ operation: 'GET /repos/{owner}/{repo}', name: 'repos_get', reason: 'not a valid MCP tool name' }],
        },
      },
    ],
    [
      'operationIds differing only in case collide: the second gets _2',
      {
        given: { '/a': { get: { operationId: 'getPet' } }, '/b': { get: { operationId: 'GetPet' } } },
        want: { names: ['getPet', 'GetPet_2'], renamed: [{ operation: 'GET /b', name: 'GetPet_2', reason: 'name already taken' }] },
      },
    ],
    [
      'a duplicated operationId',
      {
        given: { '/a': { get: { operationId: 'list' }, post: { operationId: 'list' } }, '/b': { get: { operationId: 'list' } } },
        want: {
          names: ['list', 'list_2', 'list_3'],
          renamed: [
            { operation: 'POST /a', name: 'list_2', reason: 'name already taken' },
            { operation: 'GET /b', name: 'list_3', reason: 'name already taken' },
          ],
        },
      },
    ],
    [
      'a route name and an operationId that collide',
      {
        given: { '/pets': { get: {} }, '/other': { get: { operationId: 'get_pets' } } },
        want: {
          names: ['get_pets', 'get_pets_2'],
          renamed: [
            { operation: 'GET /pets', name: 'get_pets', reason: 'no operationId' },
            { operation: 'GET /other', name: 'get_pets_2', reason: 'name already taken' },
          ],
        },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const m = model(spec(given));
    expect(m.table.tools.map((t) => t.name)).toEqual(want.names);
    expect(m.report.renamed).toEqual(want.renamed);
  });

  it('operationIds that differ only in case get distinct names (some clients compare names case-insensitively)', () => {
    const paths = { '/a': { get: { operationId: 'x' } }, '/b': { get: { operationId: 'X' } }, '/c/{id}': { put: {} } };
    const m = model(spec(paths));
    expect(m.table.tools.map((t) => t.name)).toEqual(['x', 'X_2', 'put_c_id']);
    expect(m.report.renamed).toEqual([
      { operation: 'GET /b', name: 'X_2', reason: 'name already taken' },
      { operation: 'PUT /c/{id}', name: 'put_c_id', reason: 'no operationId' },
    ]);
  });
});

// --- parameters ---------------------------------------------------------------------------

describe('parameters', () => {
  it('a parameter example is kept only when asked (--keep-examples)', () => {
    const s = spec(
      op('get', { operationId: 'find', parameters: [{ name: 'q', in: 'query', example: 'dogs', schema: { type: 'string' } }] }),
    );
    expect(props(only(model(s))).q).toEqual({ type: 'string' });
    expect(props(only(model(s, { keepExamples: true }))).q).toEqual({ type: 'string', examples: ['dogs'] });
  });

  it('parameters named like Object.prototype keys: `constructor` kept, `__proto__` (which the MCP SDK drops) renamed, both sent by their names', () => {
    const t = only(
      model(
        spec(
          op('get', {
            operationId: 'find',
            parameters: ['constructor', '__proto__', 'toString'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
            security: [{ constructor: [] }],
          }),
        ),
      ),
    );
    expect(Object.keys(props(t))).toEqual(['constructor', 'proto', 'toString']);
    expect(props(t).proto?.description).toBe('Sent as query parameter "__proto__".');
    expect(t.http.params.map((p) => `${p.arg}=${p.name}`)).toEqual(['constructor=constructor', 'proto=__proto__', 'toString=toString']);
    expect(t.security).toBeUndefined(); // no scheme is named `constructor`
  });

  it('merges path-level parameters; the operation overrides the same name and location', () => {
    const m = model(
      spec({
        '/pets/{petId}': {
          parameters: [
            { name: 'petId', in: 'path', required: true, schema: { type: 'integer' }, description: 'path level' },
            { name: 'verbose', in: 'query', schema: { type: 'boolean' }, description: 'path level' },
            { name: 'trace', in: 'header', schema: { type: 'string' } },
          ],
          get: {
            operationId: 'getPet',
            parameters: [
              { name: 'verbose', in: 'query', schema: { type: 'string', enum: ['yes', 'no'] }, description: 'operation level' },
              { name: 'trace', in: 'query', schema: { type: 'integer' } },
            ],
          },
        },
      }),
    );
    const t = only(m);
    expect(props(t)).toEqual({
      petId: { type: 'integer', description: 'path level' },
      verbose: { type: 'string', enum: ['yes', 'no'], description: 'operation level' },
      trace: { type: 'integer' },
      trace_header: { type: 'string', description: 'Sent as header parameter "trace".' },
    });
    expect(t.http.params.map((p) => `${p.in}:${p.name}→${p.arg}`)).toEqual([
      'path:petId→petId',
      'query:verbose→verbose',
      'query:trace→trace',
      'header:trace→trace_header',
    ]);
    expect(t.inputSchema.required).toEqual(['petId']);
  });

  it('resolves $ref parameters from components', () => {
    const m = model(
      spec(
        {
          '/pets': {
            parameters: [{ $ref: '#/components/parameters/Limit' }],
            get: { operationId: 'list', parameters: [{ $ref: '#/components/parameters/Q' }] },
          },
        },
        {
          components: {
            parameters: {
              Limit: { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } },
              Q: { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
            },
          },
        },
      ),
    );
    const t = only(m);
    expect(props(t)).toEqual({ limit: { type: 'integer', maximum: 100 }, q: { type: 'string' } });
    expect(t.inputSchema.required).toEqual(['q']);
  });

  it('leaves out header parameters the HTTP client owns or that are no header name, and cookie names that are no token, each with one warning at its pointer', () => {
    const m = model(
      spec(
        {
          '/things': {
            parameters: [{ name: 'Transfer-Encoding', in: 'header', schema: { type: 'string' } }],
            get: {
              operationId: 'list',
              responses: {},
              parameters: [
                { $ref: '#/components/parameters/Host' },
                { name: 'X-Bad\r\nX-Evil', in: 'header', schema: { type: 'string' } },
                { name: 'a;b', in: 'cookie', schema: { type: 'string' } },
                { name: 'X-Kept', in: 'header', schema: { type: 'string' } },
              ],
            },
            put: { operationId: 'put', responses: {}, parameters: [{ $ref: '#/components/parameters/Host' }] },
          },
        },
        { components: { parameters: { Host: { name: 'Host', in: 'header', schema: { type: 'string' } } } } },
      ),
    );
    expect(m.table.tools.map((t) => t.http.params.map((p) => p.name))).toEqual([['X-Kept'], []]);
    const owned = 'the HTTP client sets it itself (framing, routing or connection); left out of the arguments';
    expect(m.report.warnings.map(formatWarning)).toEqual([
      `#/paths/~1things/parameters/0: header "Transfer-Encoding" cannot be sent: ${owned}`,
      `#/components/parameters/Host: header "Host" cannot be sent: ${owned}`,
      '#/paths/~1things/get/parameters/1: header "X-Bad\\r\\nX-Evil" cannot be sent: not a valid header name (an RFC 9110 token); left out of the arguments',
      '#/paths/~1things/get/parameters/2: cookie "a;b" cannot be sent: not a valid cookie name (an RFC 6265 token); left out of the arguments',
    ]);
    expect(new Set(m.report.warnings.map((w) => w.code))).toEqual(new Set(['unsendable-header']));
  });

  it('ignores Accept, Content-Type and Authorization header parameters, in any case', () => {
    const t = only(
      model(
        spec(
          op('get', {
            operationId: 'get',
            parameters: [
              { name: 'Accept', in: 'header', schema: { type: 'string' } },
              { name: 'content-type', in: 'header', schema: { type: 'string' } },
              { name: 'AUTHORIZATION', in: 'header', required: true, schema: { type: 'string' } },
              { name: 'X-Request-ID', in: 'header', schema: { type: 'string' } },
              { name: 'accept', in: 'query', schema: { type: 'string' } },
            ],
          }),
        ),
      ),
    );
    expect(Object.keys(props(t))).toEqual(['accept', 'X-Request-ID']);
    expect(t.http.params.map((p) => `${p.in}:${p.name}`)).toEqual(['query:accept', 'header:X-Request-ID']);
    expect(t.inputSchema.required).toBeUndefined();
  });

  const collisions: [string, { given: JsonObject[]; want: { args: string[]; sentAs: Record<string, string> } }][] = [
    [
      'id in path and query → id and id_query (path first, whatever the order)',
      {
        given: [
          { name: 'id', in: 'query', schema: { type: 'string' } },
          { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
        ],
        want: { args: ['path:id→id', 'query:id→id_query'], sentAs: { id_query: 'Sent as query parameter "id".' } },
      },
    ],
    [
      'one name in four locations',
      {
        given: [
          { name: 'id', in: 'cookie', schema: { type: 'string' } },
          { name: 'id', in: 'header', schema: { type: 'string' } },
          { name: 'id', in: 'query', schema: { type: 'string' } },
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        ],
        want: {
          args: ['path:id→id', 'query:id→id_query', 'header:id→id_header', 'cookie:id→id_cookie'],
          sentAs: { id_header: 'Sent as header parameter "id".', id_cookie: 'Sent as cookie parameter "id".' },
        },
      },
    ],
    [
      'names that only collide once sanitised',
      {
        given: [
          { name: 'filter[status]', in: 'query', schema: { type: 'string' } },
          { name: 'filter_status', in: 'header', schema: { type: 'string' } },
        ],
        want: {
          args: ['query:filter[status]→filter_status', 'header:filter_status→filter_status_header'],
          sentAs: { filter_status: 'Sent as query parameter "filter[status]".' },
        },
      },
    ],
    [
      'names that collide case-insensitively',
      {
        given: [
          { name: 'Id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'id', in: 'query', schema: { type: 'string' } },
        ],
        want: { args: ['path:Id→Id', 'query:id→id_query'], sentAs: {} },
      },
    ],
    [
      'a suffixed name that a real parameter already has',
      {
        given: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'id_query', in: 'query', schema: { type: 'string' } },
          { name: 'id', in: 'query', schema: { type: 'string' } },
        ],
        want: { args: ['path:id→id', 'query:id_query→id_query', 'query:id→id_query_2'], sentAs: {} },
      },
    ],
  ];
  it.each(collisions)('collision: %s', (_name, { given, want }) => {
    // the template names exactly the path parameters given (an undeclared one would be added)
    const template =
      '/things' +
      given
        .filter((p) => p.in === 'path')
        .map((p) => `/{${String(p.name)}}`)
        .join('');
    const t = only(model(spec(op('get', { operationId: 'x', parameters: given }, template))));
    expect(t.http.params.map((p) => `${p.in}:${p.name}→${p.arg}`)).toEqual(want.args);
    const args = t.http.params.map((p) => p.arg);
    expect(new Set(args.map((a) => a.toLowerCase())).size).toBe(args.length);
    expect(Object.keys(props(t)).sort()).toEqual([...args].sort());
    for (const [arg, text] of Object.entries(want.sentAs)) expect(props(t)[arg]?.description).toBe(text);
  });

  const specs: [string, { given: JsonObject; want: Record<string, unknown> }][] = [
    [
      'query defaults: form, explode',
      {
        given: { name: 'q', in: 'query', schema: { type: 'string' } },
        want: { style: 'form', explode: true, required: false, type: 'string' },
      },
    ],
    [
      'path defaults: simple, no explode, always required',
      {
        given: { name: 'p', in: 'path', required: false, schema: { type: 'integer' } },
        want: { style: 'simple', explode: false, required: true, type: 'integer' },
      },
    ],
    [
      'header defaults: simple',
      {
        given: { name: 'X-H', in: 'header', schema: { type: 'array', items: { type: 'string' } } },
        want: { style: 'simple', explode: false, required: false, type: 'array' },
      },
    ],
    [
      'cookie defaults: form, explode',
      { given: { name: 'c', in: 'cookie', schema: { type: 'string' } }, want: { style: 'form', explode: true, required: false } },
    ],
    [
      'explicit style and explode kept',
      {
        given: { name: 'f', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object' } },
        want: { style: 'deepObject', explode: true, type: 'object' },
      },
    ],
    [
      'form with explode false',
      {
        given: { name: 'ids', in: 'query', explode: false, schema: { type: 'array' } },
        want: { style: 'form', explode: false, type: 'array' },
      },
    ],
    [
      'allowReserved kept',
      { given: { name: 'u', in: 'query', allowReserved: true, schema: { type: 'string' } }, want: { allowReserved: true } },
    ],
    [
      '3.1 type list: the non-null type',
      { given: { name: 'n', in: 'query', schema: { type: ['null', 'number'] } }, want: { type: 'number' } },
    ],
  ];
  it.each(specs)('wire spec: %s', (_name, { given, want }) => {
    const t = only(model(spec(op('get', { operationId: 'x', parameters: [given] }, given.in === 'path' ? '/things/{p}' : '/things'))));
    expect(t.http.params[0]).toMatchObject(want);
  });

  it('a path variable no parameter declares becomes a required string argument, with a warning', () => {
    const m = model(spec(op('get', { operationId: 'x', parameters: [] }, '/things/{thingId}')));
    const t = only(m);
    expect(t.http.params).toEqual([
      { arg: 'thingId', name: 'thingId', in: 'path', style: 'simple', explode: false, required: true, type: 'string' },
    ]);
    expect(t.inputSchema.required).toEqual(['thingId']);
    expect(m.report.warnings.some((w) => w.code === 'missing-path-parameter' && w.message.includes('{thingId}'))).toBe(true);
  });

  it('a parameter described by content (not schema) takes the media type schema', () => {
    const t = only(
      model(
        spec(
          op('get', {
            operationId: 'x',
            parameters: [
              {
                name: 'filter',
                in: 'query',
                content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } },
              },
            ],
          }),
        ),
      ),
    );
    expect(props(t).filter).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('marks a deprecated parameter in its description', () => {
    const t = only(
      model(
        spec(
          op('get', {
            operationId: 'x',
            parameters: [{ name: 'old', in: 'query', deprecated: true, description: ' Use new. ', schema: { type: 'string' } }],
          }),
        ),
      ),
    );
    expect(props(t).old?.description).toBe('Use new. (deprecated)');
  });
});

// --- request bodies -----------------------------------------------------------------------

const FILE_PART = {
  type: 'object',
  description: 'A file: its bytes as base64, with an optional file name and media type.',
  properties: {
    content: { type: 'string', contentEncoding: 'base64', description: 'File content, base64-encoded.' },
    filename: { type: 'string' },
    contentType: { type: 'string' },
  },
  required: ['content'],
  additionalProperties: false,
};

describe('request bodies', () => {
  it('the body is the argument "body", described and required as the spec says', () => {
    const t = only(
      model(
        spec(
          op('post', {
            operationId: 'create',
            requestBody: {
              required: true,
              description: 'The pet. ',
              content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } },
            },
          }),
        ),
      ),
    );
    expect(props(t).body).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      description: 'The pet. Request body (application/json).',
    });
    expect(t.inputSchema.required).toEqual(['body']);
    expect(t.http.body).toEqual({ arg: 'body', required: true, mediaTypes: ['application/json'] });
  });

  it('is called requestBody when a parameter is already called body', () => {
    const t = only(
      model(
        spec(
          op('put', {
            operationId: 'put',
            parameters: [{ name: 'body', in: 'query', schema: { type: 'string' } }],
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
          }),
        ),
      ),
    );
    expect(t.http.body?.arg).toBe('requestBody');
    expect(Object.keys(props(t))).toEqual(['body', 'requestBody']);
    expect(t.http.params[0]?.arg).toBe('body');
  });

  it('resolves a $ref to components/requestBodies', () => {
    const t = only(
      model(
        spec(op('post', { operationId: 'p', requestBody: { $ref: '#/components/requestBodies/PetBody' } }), {
          components: { requestBodies: { PetBody: { required: true, content: { 'application/json': { schema: { type: 'string' } } } } } },
        }),
      ),
    );
    expect(t.http.body).toEqual({ arg: 'body', required: true, mediaTypes: ['application/json'] });
  });

  it('warns about a requestBody $ref that resolves to nothing, and takes no body', () => {
    const m = model(spec(op('post', { operationId: 'p', requestBody: { $ref: '#/components/requestBodies/Nope' } })));
    expect(only(m).http.body).toBeUndefined();
    expect(m.report.warnings).toEqual([
      {
        code: 'unresolved-request-body',
        message: 'cannot be resolved; the tool takes no body',
        where: '#/paths/~1things/post/requestBody',
      },
    ]);
  });

  const media: [string, { given: string[]; want: string[] }][] = [
    [
      'JSON first',
      { given: ['application/xml', 'text/plain', 'application/json'], want: ['application/json', 'application/xml', 'text/plain'] },
    ],
    [
      'JSON with parameters counts as JSON',
      { given: ['text/plain', 'application/json; charset=utf-8'], want: ['application/json; charset=utf-8', 'text/plain'] },
    ],
    [
      '+json before forms',
      {
        given: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/vnd.api+json'],
        want: ['application/vnd.api+json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      },
    ],
    [
      'forms before text, text before anything else',
      {
        given: ['application/octet-stream', 'text/csv', 'multipart/form-data'],
        want: ['multipart/form-data', 'text/csv', 'application/octet-stream'],
      },
    ],
  ];
  it.each(media)('media type preference: %s', (_name, { given, want }) => {
    const content = Object.fromEntries(given.map((m) => [m, { schema: { type: 'object', properties: { a: { type: 'string' } } } }]));
    const t = only(model(spec(op('post', { operationId: 'p', requestBody: { content } }))));
    expect(t.http.body?.mediaTypes).toEqual(want);
    expect(t.http.body?.contentTypeArg).toBe('contentType');
    expect(props(t).contentType).toEqual({
      type: 'string',
      enum: want,
      description: `Media type to send the body as (default ${want[0]}).`,
    });
  });

  it('no contentType argument for a single media type', () => {
    const t = only(model(spec(op('post', { operationId: 'p', requestBody: { content: { 'application/json': { schema: {} } } } }))));
    expect(t.http.body?.contentTypeArg).toBeUndefined();
    expect(Object.keys(props(t))).toEqual(['body']);
  });

  const bodies: [string, { given: { media: string; schema: JsonObject; components?: JsonObject }; want: JsonSchema }][] = [
    [
      'multipart: a binary property becomes a file part',
      {
        given: {
          media: 'multipart/form-data',
          schema: {
            type: 'object',
            properties: { note: { type: 'string' }, file: { type: 'string', format: 'binary', description: 'The image' } },
          },
        },
        want: {
          type: 'object',
          properties: { note: { type: 'string' }, file: { ...FILE_PART, description: 'The image' } },
          description: 'Request body (multipart/form-data).',
        },
      },
    ],
    [
      'multipart: a base64 property becomes a file part',
      {
        given: { media: 'multipart/form-data', schema: { type: 'object', properties: { file: { type: 'string', format: 'base64' } } } },
        want: { type: 'object', properties: { file: FILE_PART }, description: 'Request body (multipart/form-data).' },
      },
    ],
    [
      'multipart: an array of binaries becomes an array of file parts',
      {
        given: {
          media: 'multipart/form-data',
          schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } } },
        },
        want: {
          type: 'object',
          properties: { files: { type: 'array', items: FILE_PART } },
          description: 'Request body (multipart/form-data).',
        },
      },
    ],
    [
      'octet-stream: base64 text',
      {
        given: { media: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
        want: {
          type: 'string',
          contentEncoding: 'base64',
          contentMediaType: 'application/octet-stream',
          description: 'Request body (application/octet-stream).',
        },
      },
    ],
    [
      'an image: base64 text',
      {
        given: { media: 'image/png', schema: {} },
        want: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png', description: 'Request body (image/png).' },
      },
    ],
    [
      'text/plain: a string',
      { given: { media: 'text/plain', schema: { type: 'string' } }, want: { type: 'string', description: 'Request body (text/plain).' } },
    ],
    [
      'XML: a string',
      {
        given: { media: 'application/xml', schema: { type: 'object' } },
        want: { type: 'string', description: 'Request body (application/xml).' },
      },
    ],
    [
      'YAML is text (the runtime sends it as it is), not base64',
      {
        given: { media: 'application/yaml', schema: { type: 'object' } },
        want: { type: 'string', description: 'Request body (application/yaml).' },
      },
    ],
    [
      'form-urlencoded keeps the object schema',
      {
        given: { media: 'application/x-www-form-urlencoded', schema: { type: 'object', properties: { a: { type: 'integer' } } } },
        want: { type: 'object', properties: { a: { type: 'integer' } }, description: 'Request body (application/x-www-form-urlencoded).' },
      },
    ],
  ];
  it.each(bodies)('body schema: %s', (_name, { given, want }) => {
    const t = only(model(spec(op('post', { operationId: 'p', requestBody: { content: { [given.media]: { schema: given.schema } } } }))));
    expect(props(t).body).toEqual(want);
  });

  it('a range is sent as a concrete type of its family: application/*+json as JSON (ASP.NET lists it beside application/json)', () => {
    const schema = { $ref: '#/components/schemas/Pet' };
    const content = Object.fromEntries(
      ['application/json-patch+json', 'application/json', 'text/json', 'application/*+json'].map((m) => [m, { schema }]),
    );
    const m = model(
      spec(op('post', { operationId: 'p', requestBody: { content } }), {
        components: { schemas: { Pet: { type: 'object', properties: { name: { type: 'string' } } } } },
      }),
    );
    const t = only(m);
    expect(t.http.body?.mediaTypes).toEqual(['application/json', 'application/json-patch+json', 'text/json']);
    expect(props(t).body).toEqual({ $ref: '#/$defs/Pet', description: 'Request body (application/json).' });
  });

  it.each([
    [
      '*/*',
      { type: 'string', format: 'binary' },
      'application/octet-stream',
      { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/octet-stream' },
    ],
    ['*/*', { type: 'string' }, 'text/plain', { type: 'string' }],
    [
      '*/*',
      { type: 'object', properties: { a: { type: 'string' } } },
      'application/json',
      { type: 'object', properties: { a: { type: 'string' } } },
    ],
    [
      'application/*',
      { type: 'string', format: 'binary' },
      'application/octet-stream',
      { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/octet-stream' },
    ],
    ['text/*', { type: 'string' }, 'text/plain', { type: 'string' }],
    ['application/*+xml', { type: 'object' }, 'application/xml', { type: 'string' }],
  ])('a %s body with schema %j is sent as %s', (range, schema, sent, want) => {
    const t = only(model(spec(op('post', { operationId: 'p', requestBody: { content: { [range]: { schema } } } }))));
    expect(t.http.body?.mediaTypes).toEqual([sent]);
    expect(props(t).body).toEqual({ ...want, description: `Request body (${sent}).` });
  });

  describe('media types with different schemas (pdfbroker pdfconcat: JSON fields or multipart files)', () => {
    const Dto = {
      type: 'object',
      additionalProperties: false,
      description: 'The documents.',
      properties: { docs: { type: 'array', items: { type: 'string' } } },
    };
    const files = {
      type: 'object',
      properties: { pdf1: { type: 'string', format: 'binary' }, pdf2: { type: 'string', format: 'binary' } },
    };
    const build = (content: JsonObject) =>
      model(spec(op('post', { operationId: 'concat', requestBody: { content } }), { components: { schemas: { Dto } } }));

    it('the body is one form per schema, each naming its contentType, and variants map each media type to its form', () => {
      const m = build({ 'application/json': { schema: { $ref: '#/components/schemas/Dto' } }, 'multipart/form-data': { schema: files } });
      const t = only(m);
      expect(t.http.body?.variants).toEqual({ 'application/json': 0, 'multipart/form-data': 1 });
      expect(props(t).body).toEqual({
        anyOf: [
          { $ref: '#/$defs/Dto', description: 'When contentType is application/json (the default). The documents.' },
          { type: 'object', properties: { pdf1: FILE_PART, pdf2: FILE_PART }, description: 'When contentType is multipart/form-data.' },
        ],
        description: 'Request body, in the form of its contentType (default application/json).',
      });
      const validate = sdk.getValidator(toolSchema(m, t) as JsonSchemaType);
      expect(validate({ body: { pdf1: { content: 'JVBERg==' } }, contentType: 'multipart/form-data' }).valid).toBe(true);
      expect(validate({ body: { docs: ['JVBERg=='] } }).valid).toBe(true);
    });

    it('media types sharing one schema keep the one body schema, with no variants', () => {
      const t = only(build({ 'application/json': { schema: files }, 'application/x-www-form-urlencoded': { schema: files } }));
      expect(t.http.body?.variants).toBeUndefined();
      expect(props(t).body).toEqual({ ...files, description: 'Request body (application/json).' });
    });

    it('a text type beside them is one more form, a string', () => {
      const t = only(
        build({
          'application/json': { schema: { $ref: '#/components/schemas/Dto' } },
          'multipart/form-data': { schema: files },
          'application/xml': { schema: files },
        }),
      );
      expect(t.http.body?.variants).toEqual({ 'application/json': 0, 'multipart/form-data': 1, 'application/xml': 2 });
      expect((props(t).body?.anyOf as JsonSchema[])[2]).toEqual({
        type: 'string',
        description: 'The body as text (base64 for binary) when contentType is application/xml.',
      });
    });
  });

  it('multipart body given by $ref: the binary property still becomes a file part', () => {
    const m = model(
      spec(
        op('post', {
          operationId: 'upload',
          requestBody: { content: { 'multipart/form-data': { schema: { $ref: '#/components/schemas/Upload' } } } },
        }),
        {
          components: {
            schemas: {
              Upload: {
                type: 'object',
                required: ['file'],
                properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } },
              },
            },
          },
        },
      ),
    );
    const t = only(m);
    const schema = toolSchema(m, t);
    // What the runtime sends as a file (src/runtime/call/request/request.ts, formData) must be what the schema accepts.
    const validate = sdk.getValidator(schema as JsonSchemaType);
    expect(validate({ body: { file: { content: 'aGVsbG8=', filename: 'a.txt' }, note: 'x' } }).valid).toBe(true);
    expect(validate({ body: { file: 'raw bytes as text', note: 'x' } }).valid).toBe(false);
  });
});

// --- annotations and descriptions ---------------------------------------------------------

describe('request serialisation data', () => {
  const multipart = (encoding: JsonObject): JsonObject =>
    op('post', {
      operationId: 'up',
      requestBody: {
        content: {
          'multipart/form-data': {
            schema: { type: 'object', properties: { meta: { type: 'object' }, list: { type: 'array', items: { type: 'string' } } } },
            encoding,
          },
        },
      },
    });
  const encoding = { meta: { contentType: 'application/xml', style: 'form', explode: true }, list: { contentType: 'text/csv' } };

  it('OAS 3.0.3: an Encoding Object\'s style and explode are ignored in multipart ("SHALL be ignored if the media type is not application/x-www-form-urlencoded"), its contentType is kept', () => {
    const t = only(model(spec(multipart(encoding))));
    expect(t.http.body?.encoding).toEqual({
      'multipart/form-data': { meta: { contentType: 'application/xml' }, list: { contentType: 'text/csv' } },
    });
  });

  it('OAS 3.1: style and explode apply to multipart too, and then contentType is ignored', () => {
    const t = only(model(spec(multipart(encoding), {}, '3.1.0')));
    expect(t.http.body?.encoding).toEqual({
      'multipart/form-data': { meta: { style: 'form', explode: true }, list: { contentType: 'text/csv' } },
    });
  });

  it('explode alone means style form; a header with a const value is kept, one without a fixed value is not', () => {
    const t = only(
      model(
        spec(
          multipart({
            list: { explode: false, headers: { 'X-V': { schema: { const: 'v1' } }, 'X-Free': { schema: { type: 'string' } } } },
          }),
          {},
          '3.1.0',
        ),
      ),
    );
    expect(t.http.body?.encoding).toEqual({ 'multipart/form-data': { list: { style: 'form', explode: false, headers: { 'X-V': 'v1' } } } });
  });

  it('a parameter with `content` keeps its media type and takes its schema from there', () => {
    const t = only(
      model(
        spec(
          op('get', {
            operationId: 'q',
            parameters: [
              { name: 'ids', in: 'query', content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } },
            ],
          }),
        ),
      ),
    );
    expect(t.http.params).toEqual([
      {
        arg: 'ids',
        name: 'ids',
        in: 'query',
        style: 'form',
        explode: true,
        required: false,
        type: 'array',
        contentType: 'application/json',
      },
    ]);
    expect(props(t).ids).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('a HEAD requestBody is dropped and reported; a DELETE one is kept', () => {
    const body = { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } };
    const m = model(
      spec({ '/x': { head: { operationId: 'h', ...body, responses: {} }, delete: { operationId: 'd', ...body, responses: {} } } }),
    );
    expect(m.table.tools.map((t) => [t.name, t.http.body !== undefined])).toEqual([
      ['d', true],
      ['h', false],
    ]);
    expect(m.report.droppedBodies).toEqual(['HEAD /x']);
  });
});

describe('annotations', () => {
  const cases: [string, { given: string; want: Record<string, boolean> }][] = [
    ['get', { given: 'get', want: { readOnlyHint: true, openWorldHint: true } }],
    ['head', { given: 'head', want: { readOnlyHint: true, openWorldHint: true } }],
    ['options', { given: 'options', want: { readOnlyHint: true, openWorldHint: true } }],
    ['delete', { given: 'delete', want: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true } }],
    ['put', { given: 'put', want: { readOnlyHint: false, idempotentHint: true, openWorldHint: true } }],
    ['post', { given: 'post', want: { readOnlyHint: false, openWorldHint: true } }],
    ['patch', { given: 'patch', want: { readOnlyHint: false, openWorldHint: true } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const t = only(model(spec(op(given, {}))));
    expect(t.annotations).toEqual(want);
    expect(t.http.method).toBe(given.toUpperCase());
  });

  it('TRACE is left out with a reason: its answer echoes the request, and the server would add credentials to it', () => {
    const m = model(spec(op('trace', {})));
    expect(m.table.tools).toEqual([]);
    expect(m.report.skipped).toEqual([
      { operation: 'TRACE /things', reason: expect.stringContaining('would add credentials to it (RFC 9110 §9.3.8)') },
    ]);
  });

  it('a short summary becomes the title, also in the annotations', () => {
    const t = only(model(spec(op('get', { summary: '  List\n things  ' }))));
    expect(t.title).toBe('List things');
    expect(t.annotations).toEqual({ title: 'List things', readOnlyHint: true, openWorldHint: true });
  });

  it('a summary longer than 120 characters is no title', () => {
    const t = only(model(spec(op('get', { summary: 'x'.repeat(121) }))));
    expect(t.title).toBeUndefined();
    expect(t.annotations.title).toBeUndefined();
  });
});

describe('descriptions', () => {
  const cases: [string, { given: { operation: JsonObject; item?: JsonObject; max?: number }; want: string }][] = [
    ['summary only', { given: { operation: { summary: 'List things' } }, want: 'List things' }],
    [
      'summary and description',
      { given: { operation: { summary: 'List things', description: 'All of them.' } }, want: 'List things\n\nAll of them.' },
    ],
    ['description equal to the summary is said once', { given: { operation: { summary: 'Same', description: 'Same' } }, want: 'Same' }],
    ['description only', { given: { operation: { description: '  Details.  ' } }, want: 'Details.' }],
    ['nothing: the route', { given: { operation: {} }, want: 'GET /things' }],
    [
      'path item summary when the operation has none',
      { given: { operation: {}, item: { summary: 'Things', description: 'Path text' } }, want: 'Things\n\nPath text' },
    ],
    [
      'deprecated',
      { given: { operation: { deprecated: true, summary: 'Old', description: 'Use new.' } }, want: '[DEPRECATED] Old\n\nUse new.' },
    ],
    [
      'deprecated, description only',
      { given: { operation: { deprecated: true, description: 'Use new.' } }, want: '[DEPRECATED] Use new.' },
    ],
    ['deprecated with no text still names the route', { given: { operation: { deprecated: true } }, want: '[DEPRECATED] GET /things' }],
    [
      'cut to the maximum with an ellipsis',
      { given: { operation: { summary: 'abcdefghij klmnopqrst uvwxyz' }, max: 12 }, want: 'abcdefghij…' },
    ],
    ['not cut at exactly the maximum', { given: { operation: { summary: 'abcdefghij' }, max: 10 }, want: 'abcdefghij' }],
    [
      'deprecated stays in front when cut',
      { given: { operation: { deprecated: true, summary: 'x'.repeat(50) }, max: 20 }, want: '[DEPRECATED] xxxxxx…' },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const t = only(
      model(
        spec({ '/things': { ...given.item, get: { responses: {}, ...given.operation } } }),
        given.max ? { maxDescriptionLength: given.max } : {},
      ),
    );
    expect(t.description).toBe(want);
    expect(t.description.length).toBeLessThanOrEqual(given.max ?? 1_000);
  });
});

// --- input schema and defs ----------------------------------------------------------------

describe('inputSchema', () => {
  const m = model(
    spec(
      {
        '/a': { get: { operationId: 'none' } },
        '/b/{id}': {
          post: {
            operationId: 'both',
            parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }],
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } },
            },
          },
        },
        '/c': {
          get: { operationId: 'queryOnly', parameters: [{ name: 'tag', in: 'query', schema: { $ref: '#/components/schemas/Tag' } }] },
        },
      },
      {
        components: {
          schemas: {
            Pet: { type: 'object', properties: { name: { type: 'string' }, tag: { $ref: '#/components/schemas/Tag' } } },
            Tag: { type: 'string' },
            Order: { type: 'object', properties: { id: { type: 'integer' } } },
            Unused: { type: 'object', properties: { u: { $ref: '#/components/schemas/AlsoUnused' } } },
            AlsoUnused: { type: 'string' },
          },
        },
      },
    ),
  );

  it('is always an object that admits no other properties', () => {
    for (const t of m.table.tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(t.inputSchema.properties, t.name).toBeTypeOf('object');
    }
    expect(m.table.tools[0]?.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('keeps the defs each tool reaches (transitively), and only those', () => {
    const graph = defGraph(m.table.defs);
    expect(Object.fromEntries(m.table.tools.map((t) => [t.name, graph.reachedFrom(t.inputSchema)]))).toEqual({
      none: [],
      both: ['Pet', 'Tag'],
      queryOnly: ['Tag'],
    });
    expect(graph.reachedFrom(m.table.tools[1]?.output?.schema ?? {})).toEqual(['Order.out']);
    expect(Object.keys(m.table.defs).sort()).toEqual(['Order.out', 'Pet', 'Tag']);
  });

  it('the table keeps only the defs some tool uses', () => {
    expect(Object.keys(m.table.defs).sort()).toEqual(['Order.out', 'Pet', 'Tag']);
  });

  it('every tool schema, with its defs, compiles in the SDK validators', () => {
    for (const t of m.table.tools) {
      const schema = toolSchema(m, t);
      expect(() => draft07.compile(schema), t.name).not.toThrow();
      expect(() => sdk.getValidator(schema as JsonSchemaType), t.name).not.toThrow();
    }
  });
});

// --- servers and warnings -----------------------------------------------------------------

const NO_SERVER = 'the spec names no absolute server URL: start the server with --base-url or API_BASE_URL';
const NO_OPERATIONS = 'the spec defines no operations: the server will have no tools';

describe('servers', () => {
  it('keeps server variables, with defaults and enums as strings', () => {
    const m = model(
      spec(op('get', {}), {
        servers: [
          {
            url: 'https://{region}.api.example.com/{version}',
            description: 'Regional\n  endpoint',
            variables: {
              region: { default: 'eu', enum: ['eu', 'us'], description: 'Region' },
              version: { enum: [1, 2] },
              port: { default: 443 },
            },
          },
        ],
      }),
    );
    expect(m.table.servers).toEqual([
      {
        url: 'https://{region}.api.example.com/{version}',
        description: 'Regional endpoint',
        variables: {
          region: { default: 'eu', enum: ['eu', 'us'], description: 'Region' },
          version: { default: '1', enum: ['1', '2'] },
          port: { default: '443' },
        },
      },
    ]);
    expect(m.report.warnings).toEqual([]);
  });

  const cases: [
    string,
    { given: { servers?: unknown; source?: string; opServers?: unknown }; want: { servers: string[]; warnings: string[] } },
  ][] = [
    [
      'an absolute URL: no warning',
      { given: { servers: [{ url: 'https://api.example.com' }] }, want: { servers: ['https://api.example.com'], warnings: [] } },
    ],
    ['a relative URL: warning', { given: { servers: [{ url: '/api/v3' }] }, want: { servers: ['/api/v3'], warnings: [NO_SERVER] } }],
    ['no servers: warning', { given: { servers: [] }, want: { servers: [], warnings: [NO_SERVER] } }],
    [
      'a relative URL in a spec loaded from a URL is resolved against it',
      {
        given: { servers: [{ url: '/api/v3' }], source: 'https://petstore3.swagger.io/api/openapi.json' },
        want: { servers: ['https://petstore3.swagger.io/api/v3'], warnings: [] },
      },
    ],
    [
      'operation servers make up for missing root servers',
      { given: { servers: [], opServers: [{ url: 'https://ops.example.com' }] }, want: { servers: [], warnings: [] } },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const s = spec(
      op('get', given.opServers ? { servers: given.opServers as JsonObject[] } : {}),
      { servers: given.servers as JsonObject[] },
      '3.0.3',
      given.source,
    );
    const m = model(s);
    expect(m.table.servers.map((x) => x.url)).toEqual(want.servers);
    expect(m.report.warnings.map(formatWarning)).toEqual(want.warnings);
  });

  it('operation servers are kept on the tool', () => {
    const t = only(model(spec(op('get', { servers: [{ url: 'https://ops.example.com' }] }))));
    expect(t.http.servers).toEqual([{ url: 'https://ops.example.com' }]);
  });
});

describe('response links (OpenAPI Link Objects)', () => {
  it("a tool's then: the tools its 2xx links lead to, by operationId or operationRef, never itself", () => {
    const links = {
      a: { operationId: 'getPet' },
      b: { operationRef: '#/paths/~1pets~1{id}/delete' },
      c: { operationId: 'addPet' },
      d: { operationId: 'nope' },
    };
    const m = model(
      spec({
        '/pets': { post: { operationId: 'addPet', responses: { '201': { description: 'made', links } } } },
        '/pets/{id}': {
          get: {
            operationId: 'getPet',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: {},
          },
          delete: {
            operationId: 'removePet',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: {},
          },
        },
      }),
    );
    expect(m.table.tools.find((t) => t.name === 'addPet')?.then).toEqual(['getPet', 'removePet']);
    expect(m.table.tools.find((t) => t.name === 'getPet')?.then).toBeUndefined();
  });
});

describe('report warnings', () => {
  it('a toolOverrides key that names no operation is reported by the model itself, with its code', () => {
    const m = model(spec(op('get', { operationId: 'real' })), { toolOverrides: { real: { name: 'renamed' }, typo: { exclude: true } } });
    expect(m.table.tools.map((t) => t.name)).toEqual(['renamed']);
    expect(m.report.warnings).toEqual([
      { code: 'unmatched-override', message: 'config "toolOverrides"."typo" matches no operation (use an operationId or "METHOD /path")' },
    ]);
  });

  it('a toolOverrides key that is a typo of an operationId: the warning suggests it', () => {
    const m = model(spec(op('get', { operationId: 'getPetById' })), { toolOverrides: { getPetByIdd: { name: 'x' } } });
    expect(m.report.warnings.map((w) => w.message)).toEqual([
      'config "toolOverrides"."getPetByIdd" matches no operation (did you mean "getPetById"?) (use an operationId or "METHOD /path")',
    ]);
  });

  const cases: [string, { given: LoadedSpec; want: string[] }][] = [
    ['no operations', { given: spec({}), want: [NO_OPERATIONS] }],
    [
      'no paths at all',
      { given: { ...spec({}), doc: { openapi: '3.0.3', info: { title: 'x', version: '1' }, servers: SERVERS } }, want: [NO_OPERATIONS] },
    ],
    ['path items without operations', { given: spec({ '/a': { parameters: [], summary: 'nothing' } }), want: [NO_OPERATIONS] }],
    [
      'the loader warnings come first',
      { given: { ...spec({}), warnings: [{ code: 'no-info', message: 'from the loader' }] }, want: ['from the loader', NO_OPERATIONS] },
    ],
    [
      'an unsupported security scheme',
      {
        given: spec(op('get', {}), { components: { securitySchemes: { weird: { type: 'mutualTLS' } } } }),
        want: [
          '#/components/securitySchemes/weird: type "mutualTLS" is not supported; operations that need it must be authenticated in src/hooks.ts',
        ],
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const m = model(given);
    expect(m.report.warnings.map(formatWarning)).toEqual(want);
  });

  // 10 operations whose own arguments hold a 1 MB enum each: no shared schema to list in part
  const huge = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [
      `/things${i}`,
      {
        get: {
          operationId: `get${i}`,
          parameters: [
            { name: 'kind', in: 'query', schema: { type: 'string', enum: Array.from({ length: 50_000 }, (_, k) => `kind-${k}-of-many`) } },
          ],
          responses: {},
        },
      },
    ]),
  );
  it('a tools/list over the budget: dynamic mode when no toolset fits either, unless direct was asked for, and said so', () => {
    const unasked = model(spec(huge));
    expect(unasked.table.serve).toEqual({ mode: 'dynamic', pinned: [] });
    expect(unasked.report.serving?.reason).toMatch(
      /^10 tools in \d+ KB are over the budget of 128 tools and 100 KB, and 10 toolsets \(things0: 1 tools, \d+ KB; .*\) would not fit on their own/,
    );
    expect(unasked.report.warnings).toEqual([]);
    const asked = model(spec(huge), { toolMode: 'direct' });
    expect(asked.table.serve).toBeUndefined();
    expect(asked.report.serving?.reason).toMatch(/^chosen with --tools direct \(its tools\/list, 10 tools in \d+ KB, is over the budget/);
    expect(asked.report.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(/^with --client-profile full and --tools direct, tools\/list is 9\.\d MB/),
    ]);
  });
});

describe('--tools auto chooses code mode', () => {
  // 150 operations with nothing to group them by (one toolset): over the budget by count alone
  const json: JsonObject = {
    description: 'ok',
    content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
  };
  const png: JsonObject = { description: 'ok', content: { 'image/png': {} } };
  const paths = (typed: number): JsonObject =>
    Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => [
        `/items/${i}`,
        {
          get: {
            operationId: `getItem${i}`,
            tags: ['items'],
            responses: { '200': i < typed ? json : png },
          },
        },
      ]),
    );
  it('where no toolset fits and most operations answer typed JSON, saying why', () => {
    const m = model(spec(paths(75)));
    expect(m.table.serve).toEqual({ mode: 'code', pinned: [] });
    expect(m.report.serving?.reason).toMatch(
      /^150 tools in \d+ KB are over the budget of 128 tools and 100 KB, and the API has a single toolset; 75 of 150 operations answer typed JSON, so the agent searches the API's types and runs one program/,
    );
    expect(m.report.serving?.listed.tools).toBe(2);
  });
  it('but dynamic mode when most answers are not JSON a program could filter', () => {
    const m = model(spec(paths(74)));
    expect(m.table.serve).toEqual({ mode: 'dynamic', pinned: [] });
    expect(m.report.serving?.reason).toMatch(/; only 74 of 150 operations answer typed JSON \(too few for programs to filter\)/);
  });
});

describe('table identity', () => {
  const cases: [string, { given: JsonObject; want: { name: string; version: string; title?: string } }][] = [
    [
      'name from the title',
      {
        given: { title: 'Swagger Petstore - OpenAPI 3.0', version: '1.0.19' },
        want: { name: 'swagger-petstore-mcp', version: '1.0.19', title: 'Swagger Petstore - OpenAPI 3.0' },
      },
    ],
    ['accents folded', { given: { title: 'Météo API', version: '2' }, want: { name: 'meteo-mcp', version: '2', title: 'Météo API' } }],
    ['a numeric version becomes a string', { given: { title: 'X', version: 2 }, want: { name: 'x-mcp', version: '2', title: 'X' } }],
    ['no title: from the server host', { given: { version: '1' }, want: { name: 'example-mcp', version: '1' } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const m = model(spec({}, { info: given }));
    expect({ name: m.table.name, version: m.table.version, ...(m.table.title !== undefined ? { title: m.table.title } : {}) }).toEqual(
      want,
    );
  });
});

describe('schema objects the spec shares', () => {
  // One object reached from two operations (as a $ref'd component is) is converted once: what
  // one tool makes of it must not show in the other.
  const limit = { type: 'integer', description: 'How many.' };
  const thing = { type: 'object', properties: { name: { type: 'string' } } };
  const operation = (operationId: string, words: string) => ({
    operationId,
    parameters: [{ name: 'limit', in: 'query', schema: limit }],
    requestBody: { description: words, content: { 'application/json': { schema: thing } } },
    responses: { '200': { description: 'OK', summary: words, content: { 'application/json': { schema: thing } } } },
  });
  const m = model(spec({ '/a': { post: operation('a', 'First.') }, '/b': { put: operation('b', 'Second.') } }), {
    toolOverrides: { a: { arguments: { limit: { description: 'Changed.' } } } },
  });
  const [a, b] = m.table.tools as [ToolSpec, ToolSpec];
  const properties = (tool: ToolSpec) => tool.inputSchema.properties as Record<string, JsonSchema>;

  it('an argument override changes its own tool only', () => {
    expect(properties(a).limit).toEqual({ type: 'integer', description: 'Changed.' });
    expect(properties(b).limit).toEqual({ type: 'integer', description: 'How many.' });
  });

  it("a body's and an answer's descriptions are their own operation's", () => {
    expect(properties(a).body?.description).toBe('First. Request body (application/json).');
    expect(properties(b).body?.description).toBe('Second. Request body (application/json).');
    expect([a.output?.schema.description, b.output?.schema.description]).toEqual(['First.', 'Second.']);
  });

  it('the schema converted once is left as converted', () => {
    expect(limit).toEqual({ type: 'integer', description: 'How many.' });
    expect(properties(b).body).toEqual({ ...properties(a).body, description: 'Second. Request body (application/json).' });
  });
});

// --- the real Petstore --------------------------------------------------------------------

describe('samples/petstore/openapi.json', () => {
  const file = new URL('../../../samples/petstore/openapi.json', import.meta.url).pathname;
  const OPERATION_IDS = [
    'addPet',
    'updatePet',
    'findPetsByStatus',
    'findPetsByTags',
    'getPetById',
    'updatePetWithForm',
    'deletePet',
    'uploadFile',
    'getInventory',
    'placeOrder',
    'getOrderById',
    'deleteOrder',
    'createUser',
    'createUsersWithArrayInput',
    'createUsersWithListInput',
    'loginUser',
    'logoutUser',
    'getUserByName',
    'updateUser',
    'deleteUser',
  ];

  it('gives 20 tools named after their operationIds, nothing renamed or skipped', async () => {
    const m = model(await loadSpec(file));
    expect(m.table.tools).toHaveLength(20);
    expect(m.table.tools.map((t) => t.name).sort()).toEqual([...OPERATION_IDS].sort());
    for (const t of m.table.tools) expect(t.http.method, t.name).toMatch(/^(GET|PUT|POST|DELETE)$/);
    expect(m.report.renamed).toEqual([]);
    expect(m.report.skipped).toEqual([]);
    expect(m.report.warnings).toEqual([]);
    expect(m.table.servers).toEqual([{ url: 'http://petstore.swagger.io/v2' }]);
  });

  it('maps arguments, bodies and defs as the spec says', async () => {
    const m = model(await loadSpec(file));
    const byName = new Map(m.table.tools.map((t) => [t.name, t]));
    const getPet = byName.get('getPetById') as ToolSpec;
    expect(getPet.http).toMatchObject({
      method: 'GET',
      path: '/pet/{petId}',
      params: [{ arg: 'petId', in: 'path', required: true, type: 'integer' }],
    });
    expect(getPet.inputSchema.required).toEqual(['petId']);
    expect(getPet.annotations.readOnlyHint).toBe(true);
    const upload = byName.get('uploadFile') as ToolSpec;
    expect(upload.http.body?.mediaTypes).toEqual(['multipart/form-data']);
    expect((props(upload).body?.properties as Record<string, JsonSchema>).file).toMatchObject({ type: 'object', required: ['content'] });
    const deleted = m.table.tools.filter((t) => t.annotations.destructiveHint).map((t) => t.name);
    expect(deleted).toEqual(['deletePet', 'deleteOrder', 'deleteUser']);
    const graph = defGraph(m.table.defs);
    for (const t of m.table.tools) {
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      for (const key of [...graph.reachedFrom(t.inputSchema), ...graph.reachedFrom(t.output?.schema ?? {})])
        expect(m.table.defs[key], `${t.name} → ${key}`).toBeDefined();
      const schema = toolSchema(m, t);
      expect(() => sdk.getValidator(schema as JsonSchemaType), t.name).not.toThrow();
    }
  });
});

describe('tools/list bytes the serving mode is chosen by', () => {
  // the lister lists schemas of the same text as one object, measured once: the bytes must be
  // those of each tool's own text, non-ASCII descriptions and a tool without output included
  const item = { type: 'object', properties: { name: { type: 'string', description: 'Nom — à écrire' } } };
  const json = (schema: JsonObject): JsonObject => ({ description: 'ok', content: { 'application/json': { schema } } });
  const paths: JsonObject = {
    '/a': { get: { operationId: 'getA', summary: 'Lire A ✓', responses: { '200': json(item) } } },
    '/b': { get: { operationId: 'getB', responses: { '200': json(structuredClone(item)) } } },
    '/c': { post: { operationId: 'postC', requestBody: { content: { 'application/json': { schema: item } } }, responses: {} } },
    '/d': { post: { operationId: 'postD', requestBody: { content: { 'application/json': { schema: item } } }, responses: {} } },
  };
  it('are those of the listed tools, each measured whole', () => {
    const m = model(spec(paths));
    const listed = m.table.tools.map((t) => m.lister?.tool(t));
    expect(listed[0]?.outputSchema).toBe(listed[1]?.outputSchema);
    expect(m.report.serving?.direct.bytes).toBe(Buffer.byteLength(JSON.stringify({ tools: listed })));
  });
});
