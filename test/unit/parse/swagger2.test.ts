// Swagger 2.0 → OpenAPI 3.0 shape (src/parse/swagger2.ts, through loadSpec): everything that
// changes a request on the wire must survive — servers, bodies, forms, array formats, auth.
import { formatWarning, type GenerationWarning } from '../../../src/warnings.js';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/model/build.js';
import { loadSpec, type LoadedSpec } from '../../../src/parse/load.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import { convertSwagger2 } from '../../../src/parse/swagger2.js';
import type { JsonSchema } from '../../../src/contract/table.js';
import { defGraph } from '../../../src/contract/def-refs.js';

const fixture = (name: string) => new URL(`../../fixtures/swagger2/${name}`, import.meta.url).pathname;
const PETSTORE = new URL('../../../node_modules/@readme/oas-examples/2.0/yaml/petstore.yaml', import.meta.url).pathname;

/** The operation object at `paths[path][method]` of a converted document. */
function operation(doc: JsonObject, path: string, method: string): JsonObject {
  const item = (doc.paths as JsonObject)[path] as JsonObject | undefined;
  const op = item?.[method] as JsonObject | undefined;
  if (!op) throw new Error(`no ${method} ${path}`);
  return op;
}
const params = (op: JsonObject) => op.parameters as JsonObject[];
const param = (op: JsonObject, name: string, where?: string) => params(op).find((p) => p.name === name && (!where || p.in === where));

/** A minimal 2.0 document around the given parts. */
function swagger(more: JsonObject): JsonObject {
  return { swagger: '2.0', info: { title: 't', version: '1' }, host: 'api.example.com', paths: {}, ...more };
}
/** Converts a document with one `POST /x` operation and returns that operation. */
function convertOne(opParts: JsonObject, root: JsonObject = {}): JsonObject {
  const doc = convertSwagger2(
    swagger({ ...root, paths: { '/x': { post: { responses: { '200': { description: 'ok' } }, ...opParts } } } }),
    [],
  );
  return operation(doc, '/x', 'post');
}

// --- the Swagger Petstore (2.0) -----------------------------------------------------------

describe('the Swagger 2.0 Petstore', () => {
  let spec: LoadedSpec;
  const load = async () => (spec ??= await loadSpec(PETSTORE));

  it('loads as a 3.0-shaped document with the declared version', async () => {
    const { doc, specVersion, warnings } = await load();
    expect(specVersion).toBe('2.0');
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.swagger).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(doc.info).toMatchObject({ title: 'Swagger Petstore', version: '1.0.0' });
  });

  it('host + basePath + schemes → servers', async () => {
    expect((await load()).doc.servers).toEqual([{ url: 'http://petstore.swagger.io/v2' }]);
  });

  it('a body parameter → requestBody with the consumes media types', async () => {
    const addPet = operation((await load()).doc, '/pet', 'post');
    expect(addPet.requestBody).toEqual({
      description: 'Pet object that needs to be added to the store',
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/definitions/Pet' } },
        'application/xml': { schema: { $ref: '#/definitions/Pet' } },
      },
    });
    expect(params(addPet)).toEqual([]);
    expect(addPet.consumes).toBeUndefined();
    expect(addPet.produces).toBeUndefined();
  });

  it('a body parameter without consumes → application/json', async () => {
    const createUser = operation((await load()).doc, '/user', 'post');
    expect(Object.keys((createUser.requestBody as JsonObject).content as JsonObject)).toEqual(['application/json']);
  });

  it('formData with a file → multipart/form-data with a binary property', async () => {
    const upload = operation((await load()).doc, '/pet/{petId}/uploadImage', 'post');
    expect(upload.requestBody).toEqual({
      required: false,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              additionalMetadata: { type: 'string', description: 'Additional data to pass to server' },
              file: { type: 'string', format: 'binary', description: 'file to upload' },
            },
          },
        },
      },
    });
    expect(params(upload).map((p) => `${p.in}:${p.name}`)).toEqual(['path:petId']);
  });

  it('formData without a file → application/x-www-form-urlencoded', async () => {
    const form = operation((await load()).doc, '/pet/{petId}', 'post');
    const content = (form.requestBody as JsonObject).content as JsonObject;
    expect(Object.keys(content)).toEqual(['application/x-www-form-urlencoded']);
    expect(((content['application/x-www-form-urlencoded'] as JsonObject).schema as JsonObject).properties).toEqual({
      name: { type: 'string', description: 'Updated name of the pet' },
      status: { type: 'string', description: 'Updated status of the pet' },
    });
  });

  it('collectionFormat multi → style form, explode', async () => {
    const find = operation((await load()).doc, '/pet/findByStatus', 'get');
    expect(param(find, 'status')).toEqual({
      name: 'status',
      in: 'query',
      required: true,
      description: 'Status values that need to be considered for filter',
      schema: { type: 'array', items: { type: 'string', enum: ['available', 'pending', 'sold'], default: 'available' } },
      style: 'form',
      explode: true,
    });
  });

  it('non-body parameters get a schema from their type keywords', async () => {
    const order = operation((await load()).doc, '/store/order/{orderId}', 'get');
    expect(param(order, 'orderId')).toEqual({
      name: 'orderId',
      in: 'path',
      required: true,
      description: 'ID of pet that needs to be fetched',
      schema: { type: 'integer', format: 'int64', maximum: 10, minimum: 1 },
    });
  });

  it('response schemas → content for each produces media type', async () => {
    const get = operation((await load()).doc, '/pet/{petId}', 'get');
    expect(get.responses).toEqual({
      '200': {
        description: 'successful operation',
        content: {
          'application/xml': { schema: { $ref: '#/definitions/Pet' } },
          'application/json': { schema: { $ref: '#/definitions/Pet' } },
        },
      },
      '400': { description: 'Invalid ID supplied' },
      '404': { description: 'Pet not found' },
    });
  });

  it('securityDefinitions → components.securitySchemes', async () => {
    expect(((await load()).doc.components as JsonObject).securitySchemes).toEqual({
      petstore_auth: {
        type: 'oauth2',
        flows: {
          implicit: {
            authorizationUrl: 'http://petstore.swagger.io/oauth/dialog',
            scopes: { 'write:pets': 'modify pets in your account', 'read:pets': 'read your pets' },
          },
        },
      },
      api_key: { type: 'apiKey', name: 'api_key', in: 'header' },
    });
  });

  it('builds the same 20 tools as its 3.0 sibling, named after the operationIds', async () => {
    const m = buildModel(await load(), { maxDescriptionLength: 1_000 });
    expect(m.table.tools.map((t) => t.name).sort()).toEqual(
      [
        'addPet',
        'createUser',
        'createUsersWithArrayInput',
        'createUsersWithListInput',
        'deleteOrder',
        'deletePet',
        'deleteUser',
        'findPetsByStatus',
        'findPetsByTags',
        'getInventory',
        'getOrderById',
        'getPetById',
        'getUserByName',
        'loginUser',
        'logoutUser',
        'placeOrder',
        'updatePet',
        'updatePetWithForm',
        'updateUser',
        'uploadFile',
      ].sort(),
    );
    expect([m.report.skipped, m.report.renamed, m.report.warnings]).toEqual([[], [], []]);
    expect(m.table.servers).toEqual([{ url: 'http://petstore.swagger.io/v2' }]);
    const byName = new Map(m.table.tools.map((t) => [t.name, t]));
    expect(byName.get('findPetsByStatus')?.http.params).toEqual([
      { arg: 'status', name: 'status', in: 'query', style: 'form', explode: true, required: true, type: 'array' },
    ]);
    expect(byName.get('addPet')?.http.body).toEqual({
      arg: 'body',
      required: true,
      mediaTypes: ['application/json', 'application/xml'],
      contentTypeArg: 'contentType',
    });
    expect(defGraph(m.table.defs).reachedFrom(byName.get('addPet')?.inputSchema ?? {})).toEqual(['Category', 'Pet', 'Tag']);
    const upload = (byName.get('uploadFile')?.inputSchema.properties as Record<string, JsonSchema>).body;
    expect((upload?.properties as Record<string, JsonSchema>).file).toMatchObject({ type: 'object', required: ['content'] });
    expect(byName.get('updatePetWithForm')?.http.body?.mediaTypes).toEqual(['application/x-www-form-urlencoded']);
    expect(m.table.auth).toMatchObject({ api_key: { type: 'apiKey', in: 'header', name: 'api_key' }, petstore_auth: { type: 'oauth2' } });
    expect(byName.get('getPetById')?.security).toEqual([{ api_key: [] }]);
  });
});

// --- a fixture with every feature ---------------------------------------------------------

describe('test/fixtures/swagger2/features.yaml', () => {
  let spec: LoadedSpec;
  const load = async () => (spec ??= await loadSpec(fixture('features.yaml')));

  it('servers: https first, basePath without its trailing slash', async () => {
    const { doc, warnings } = await load();
    expect(doc.servers).toEqual([{ url: 'https://api.example.com/v1' }, { url: 'http://api.example.com/v1' }]);
    expect(warnings).toEqual([]);
  });

  const styles: [string, { given: string; want: { in: string; style?: string; explode?: boolean } }][] = [
    ['no collectionFormat (csv) in query', { given: 'csv', want: { in: 'query', style: 'form', explode: false } }],
    ['ssv', { given: 'ssv', want: { in: 'query', style: 'spaceDelimited', explode: false } }],
    ['tsv', { given: 'tsv', want: { in: 'query', style: 'tabDelimited', explode: false } }],
    ['pipes', { given: 'pipes', want: { in: 'query', style: 'pipeDelimited', explode: false } }],
    ['multi', { given: 'multi', want: { in: 'query', style: 'form', explode: true } }],
    ['csv in a header', { given: 'X-Tags', want: { in: 'header', style: 'simple', explode: false } }],
    ['not an array: no style', { given: 'limit', want: { in: 'query', style: undefined, explode: undefined } }],
  ];
  it.each(styles)('collectionFormat: %s', async (_name, { given, want }) => {
    const p = param(operation((await load()).doc, '/items/{id}', 'get'), given);
    expect(p).toBeDefined();
    expect({ in: p?.in, style: p?.style, explode: p?.explode }).toEqual(want);
  });

  it('collectionFormat csv on a path parameter → simple', async () => {
    expect(param(operation((await load()).doc, '/tags/{tags}', 'get'), 'tags')).toMatchObject({
      in: 'path',
      required: true,
      style: 'simple',
      explode: false,
    });
  });

  it('path-level parameters apply to every operation; the operation overrides by name and location', async () => {
    const { doc } = await load();
    const get = operation(doc, '/items/{id}', 'get');
    const put = operation(doc, '/items/{id}', 'put');
    for (const op of [get, put]) {
      expect(param(op, 'id', 'path')).toEqual({ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } });
      // a $ref to #/parameters is followed
      expect(param(op, 'verbose', 'query')).toEqual({
        name: 'verbose',
        in: 'query',
        required: false,
        description: 'shared verbose flag',
        schema: { type: 'boolean' },
      });
    }
    expect(param(get, 'trace', 'header')?.description).toBe('operation level');
    expect(param(put, 'trace', 'header')?.description).toBe('path level');
    expect(params(get).filter((p) => p.name === 'trace')).toHaveLength(1);
    expect(doc.paths && ((doc.paths as JsonObject)['/items/{id}'] as JsonObject).parameters).toBeUndefined();
  });

  it('type keywords and x-nullable move into the schema', async () => {
    const get = operation((await load()).doc, '/items/{id}', 'get');
    expect(param(get, 'limit')?.schema).toEqual({ type: 'integer', default: 10, maximum: 100, exclusiveMaximum: true, minimum: 1 });
    expect(param(get, 'maybe')?.schema).toEqual({ type: 'string', nullable: true });
  });

  it('a body parameter with operation consumes → one content entry per media type', async () => {
    const put = operation((await load()).doc, '/items/{id}', 'put');
    expect(put.requestBody).toEqual({
      description: 'the new item',
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/definitions/Item' } },
        'application/xml': { schema: { $ref: '#/definitions/Item' } },
      },
    });
  });

  const forms: [string, { given: string; want: { media: string; required: boolean; schema: JsonObject } }][] = [
    [
      'formData with a file → multipart',
      {
        given: '/upload',
        want: {
          media: 'multipart/form-data',
          required: true,
          schema: {
            type: 'object',
            properties: { file: { type: 'string', format: 'binary', description: 'the file' }, note: { type: 'string' } },
            required: ['file'],
          },
        },
      },
    ],
    [
      'formData with consumes x-www-form-urlencoded',
      {
        given: '/form',
        want: {
          media: 'application/x-www-form-urlencoded',
          required: true,
          schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] },
        },
      },
    ],
    [
      'formData with only the global JSON consumes → x-www-form-urlencoded',
      {
        given: '/form-default',
        want: {
          media: 'application/x-www-form-urlencoded',
          required: false,
          schema: { type: 'object', properties: { q: { type: 'string' } } },
        },
      },
    ],
  ];
  it.each(forms)('%s', async (_name, { given, want }) => {
    const op = operation((await load()).doc, given, 'post');
    expect(op.requestBody).toEqual({ required: want.required, content: { [want.media]: { schema: want.schema } } });
    expect(params(op)).toEqual([]);
  });

  it('responses: schema → content, $ref to #/responses followed, no schema → no content', async () => {
    const { doc } = await load();
    expect(operation(doc, '/items/{id}', 'get').responses).toEqual({
      '200': { description: 'the item', content: { 'application/json': { schema: { $ref: '#/definitions/Item' } } } },
      '404': { description: 'not found', content: { 'application/json': { schema: { $ref: '#/definitions/Error' } } } },
    });
    expect(operation(doc, '/raw', 'post').responses).toEqual({ default: { description: 'anything' } });
  });

  it('keeps definitions, global security and the 2.0 parameter/response maps for $refs', async () => {
    const { doc } = await load();
    expect(Object.keys(doc.definitions as JsonObject)).toEqual(['Item', 'Error']);
    expect(doc.security).toEqual([{ basicAuth: [] }]);
    expect(doc.parameters).toBeDefined();
    expect(doc.responses).toBeDefined();
  });

  it('securityDefinitions → securitySchemes for basic, apiKey and every oauth2 flow', async () => {
    const schemes = ((await load()).doc.components as JsonObject).securitySchemes as JsonObject;
    expect(schemes).toMatchObject({
      basicAuth: { type: 'http', scheme: 'basic' },
      queryKey: { type: 'apiKey', name: 'key', in: 'query' },
      implicitAuth: {
        type: 'oauth2',
        flows: { implicit: { authorizationUrl: 'https://auth.example.com/authorize', scopes: { read: 'read things' } } },
      },
      codeAuth: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://auth.example.com/authorize',
            tokenUrl: 'https://auth.example.com/token',
            scopes: {},
          },
        },
      },
      appAuth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { admin: 'everything' } } },
      },
      passwordAuth: { type: 'oauth2', flows: { password: { tokenUrl: 'https://auth.example.com/token', scopes: {} } } },
    });
  });

  it('builds tools whose wire mapping matches the 2.0 spec', async () => {
    const m = buildModel(await load(), { maxDescriptionLength: 1_000 });
    const byName = new Map(m.table.tools.map((t) => [t.name, t]));
    const get = byName.get('getItem');
    const styleOf = (name: string) => get?.http.params.find((p) => p.name === name);
    expect(styleOf('ssv')).toMatchObject({ style: 'spaceDelimited', explode: false, type: 'array' });
    expect(styleOf('tsv')).toMatchObject({ style: 'tabDelimited', explode: false });
    expect(styleOf('pipes')).toMatchObject({ style: 'pipeDelimited', explode: false });
    expect(styleOf('csv')).toMatchObject({ style: 'form', explode: false });
    expect(styleOf('multi')).toMatchObject({ style: 'form', explode: true });
    expect((get?.inputSchema.properties as Record<string, JsonSchema>).limit).toEqual({
      type: 'integer',
      default: 10,
      minimum: 1,
      exclusiveMaximum: 100,
    });
    expect(byName.get('upload')?.http.body?.mediaTypes).toEqual(['multipart/form-data']);
    expect(byName.get('sendRaw')?.http.body?.arg).toBe('body');
    expect(m.table.auth.appAuth).toMatchObject({ type: 'oauth2', clientCredentials: { tokenUrl: 'https://auth.example.com/token' } });
    expect(m.table.auth.basicAuth).toMatchObject({ type: 'basic' });
    expect(m.report.warnings).toEqual([]);
  });
});

describe('test/fixtures/swagger2/no-host.yaml', () => {
  it('a spec without host: the basePath as a relative server, and a warning', async () => {
    const spec = await loadSpec(fixture('no-host.yaml'));
    expect(spec.doc.servers).toEqual([{ url: '/api' }]);
    expect(spec.warnings).toEqual([
      { code: 'no-base-url', message: 'Swagger 2.0 spec has no "host": the server needs --base-url or API_BASE_URL' },
    ]);
    const m = buildModel(spec, { maxDescriptionLength: 1_000 });
    expect(m.report.warnings.map(formatWarning)).toContain('Swagger 2.0 spec has no "host": the server needs --base-url or API_BASE_URL');
    expect(m.table.tools.map((t) => t.name)).toEqual(['ping']);
  });
});

// --- convertSwagger2 tables ---------------------------------------------------------------

describe('convertSwagger2: servers', () => {
  const NO_HOST = 'Swagger 2.0 spec has no "host": the server needs --base-url or API_BASE_URL';
  // `host: null` stands for "no host field" (it is deleted before conversion)
  const cases: [string, { given: JsonObject; want: { urls: string[]; warnings: string[] } }][] = [
    ['host only: https', { given: { host: 'api.example.com' }, want: { urls: ['https://api.example.com'], warnings: [] } }],
    ['host with a port', { given: { host: 'localhost:8080', schemes: ['http'] }, want: { urls: ['http://localhost:8080'], warnings: [] } }],
    ['basePath "/" adds nothing', { given: { host: 'h.example', basePath: '/' }, want: { urls: ['https://h.example'], warnings: [] } }],
    [
      'basePath trailing slashes dropped',
      { given: { host: 'h.example', basePath: '/v2//' }, want: { urls: ['https://h.example/v2'], warnings: [] } },
    ],
    [
      'http then https → https first',
      { given: { host: 'h.example', schemes: ['http', 'https'] }, want: { urls: ['https://h.example', 'http://h.example'], warnings: [] } },
    ],
    [
      'https then http stays',
      { given: { host: 'h.example', schemes: ['https', 'http'] }, want: { urls: ['https://h.example', 'http://h.example'], warnings: [] } },
    ],
    ['no host, basePath', { given: { host: null, basePath: '/api' }, want: { urls: ['/api'], warnings: [NO_HOST] } }],
    ['no host, no basePath', { given: { host: null }, want: { urls: [], warnings: [NO_HOST] } }],
    ['empty host', { given: { host: '' }, want: { urls: [], warnings: [NO_HOST] } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const warnings: GenerationWarning[] = [];
    const input = swagger(given);
    if (input.host === null) delete input.host;
    const doc = convertSwagger2(input, warnings);
    expect((doc.servers as JsonObject[]).map((s) => s.url)).toEqual(want.urls);
    expect(warnings.map(formatWarning)).toEqual(want.warnings);
  });
});

describe('convertSwagger2: shared parameters', () => {
  it("a path item's parameter and a $ref'd one are one converted object in every operation, as in a 3.x document", () => {
    const id = { name: 'id', in: 'path', required: true, type: 'string' };
    const limit = { name: 'limit', in: 'query', type: 'integer' };
    const item = {
      parameters: [id],
      get: { parameters: [{ $ref: '#/parameters/limit' }] },
      delete: { parameters: [{ $ref: '#/parameters/limit' }] },
    };
    const doc = convertSwagger2(swagger({ parameters: { limit }, paths: { '/x/{id}': item } }), []);
    const [get, del] = [operation(doc, '/x/{id}', 'get'), operation(doc, '/x/{id}', 'delete')];
    expect(param(get, 'id')).toBe(param(del, 'id'));
    expect(param(get, 'limit')).toBe(param(del, 'limit'));
    expect(param(get, 'limit')).toEqual({ name: 'limit', in: 'query', required: false, schema: { type: 'integer' } });
  });
});

describe('convertSwagger2: collectionFormat', () => {
  const cases: [string, { given: { in: string; collectionFormat?: string }; want: { style: string; explode: boolean } }][] = [
    ['query, default csv', { given: { in: 'query' }, want: { style: 'form', explode: false } }],
    ['query csv', { given: { in: 'query', collectionFormat: 'csv' }, want: { style: 'form', explode: false } }],
    ['query ssv', { given: { in: 'query', collectionFormat: 'ssv' }, want: { style: 'spaceDelimited', explode: false } }],
    ['query tsv', { given: { in: 'query', collectionFormat: 'tsv' }, want: { style: 'tabDelimited', explode: false } }],
    ['query pipes', { given: { in: 'query', collectionFormat: 'pipes' }, want: { style: 'pipeDelimited', explode: false } }],
    ['query multi', { given: { in: 'query', collectionFormat: 'multi' }, want: { style: 'form', explode: true } }],
    ['path csv', { given: { in: 'path', collectionFormat: 'csv' }, want: { style: 'simple', explode: false } }],
    ['header default csv', { given: { in: 'header' }, want: { style: 'simple', explode: false } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const op = convertOne({ parameters: [{ name: 'list', type: 'array', items: { type: 'string' }, required: true, ...given }] });
    expect(param(op, 'list')).toMatchObject({ in: given.in, schema: { type: 'array', items: { type: 'string' } }, ...want });
  });
});

describe('convertSwagger2: bodies', () => {
  const cases: [string, { given: { op: JsonObject; root?: JsonObject }; want: string[] }][] = [
    ['no consumes anywhere → application/json', { given: { op: {} }, want: ['application/json'] }],
    ['global consumes', { given: { op: {}, root: { consumes: ['application/vnd.api+json'] } }, want: ['application/vnd.api+json'] }],
    [
      'operation consumes replace the global ones',
      { given: { op: { consumes: ['text/plain'] }, root: { consumes: ['application/xml'] } }, want: ['text/plain'] },
    ],
    [
      'form media types are not body media types',
      { given: { op: { consumes: ['application/x-www-form-urlencoded', 'application/json'] } }, want: ['application/json'] },
    ],
    ['only form media types → application/json', { given: { op: { consumes: ['multipart/form-data'] } }, want: ['application/json'] }],
  ];
  it.each(cases)('body: %s', (_name, { given, want }) => {
    const op = convertOne({ ...given.op, parameters: [{ name: 'payload', in: 'body', schema: { type: 'object' } }] }, given.root);
    expect(Object.keys((op.requestBody as JsonObject).content as JsonObject)).toEqual(want);
    expect((op.requestBody as JsonObject).required).toBe(false);
  });

  const formCases: [string, { given: { op: JsonObject }; want: string }][] = [
    ['a file → multipart', { given: { op: { parameters: [{ name: 'f', in: 'formData', type: 'file' }] } }, want: 'multipart/form-data' }],
    [
      'no file, multipart consumes → multipart',
      {
        given: { op: { consumes: ['multipart/form-data'], parameters: [{ name: 'a', in: 'formData', type: 'string' }] } },
        want: 'multipart/form-data',
      },
    ],
    [
      'no file, no consumes → urlencoded',
      { given: { op: { parameters: [{ name: 'a', in: 'formData', type: 'string' }] } }, want: 'application/x-www-form-urlencoded' },
    ],
  ];
  it.each(formCases)('formData: %s', (_name, { given, want }) => {
    const op = convertOne(given.op);
    expect(Object.keys((op.requestBody as JsonObject).content as JsonObject)).toEqual([want]);
  });

  it('an array of files in formData → an array of binary strings', () => {
    const op = convertOne({ parameters: [{ name: 'files', in: 'formData', type: 'array', items: { type: 'file' } }] });
    expect(op.requestBody).toEqual({
      required: false,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } } },
        },
      },
    });
  });
});

describe('convertSwagger2: securityDefinitions', () => {
  const cases: [string, { given: JsonObject; want: JsonObject }][] = [
    ['basic', { given: { type: 'basic' }, want: { type: 'http', scheme: 'basic' } }],
    [
      'apiKey in a header',
      { given: { type: 'apiKey', name: 'X-API-Key', in: 'header' }, want: { type: 'apiKey', name: 'X-API-Key', in: 'header' } },
    ],
    ['apiKey in the query', { given: { type: 'apiKey', name: 'key', in: 'query' }, want: { type: 'apiKey', name: 'key', in: 'query' } }],
    [
      'oauth2 implicit',
      {
        given: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'https://a/authorize', scopes: { r: 'read' } },
        want: { type: 'oauth2', flows: { implicit: { authorizationUrl: 'https://a/authorize', scopes: { r: 'read' } } } },
      },
    ],
    [
      'oauth2 accessCode → authorizationCode',
      {
        given: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'https://a/authorize', tokenUrl: 'https://a/token', scopes: {} },
        want: {
          type: 'oauth2',
          flows: { authorizationCode: { authorizationUrl: 'https://a/authorize', tokenUrl: 'https://a/token', scopes: {} } },
        },
      },
    ],
    [
      'oauth2 application → clientCredentials',
      {
        given: { type: 'oauth2', flow: 'application', tokenUrl: 'https://a/token', scopes: {} },
        want: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://a/token', scopes: {} } } },
      },
    ],
    [
      'oauth2 password',
      {
        given: { type: 'oauth2', flow: 'password', tokenUrl: 'https://a/token' },
        want: { type: 'oauth2', flows: { password: { tokenUrl: 'https://a/token', scopes: {} } } },
      },
    ],
    [
      'the description is carried over',
      {
        given: { type: 'apiKey', name: 'k', in: 'header', description: 'Get a key at https://example.com/keys' },
        want: { type: 'apiKey', name: 'k', in: 'header', description: 'Get a key at https://example.com/keys' },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const doc = convertSwagger2(swagger({ securityDefinitions: { scheme: given } }), []);
    expect(((doc.components as JsonObject).securitySchemes as JsonObject).scheme).toEqual(want);
  });
});
