// What OpenAPI 3.2 adds, through the real loader and model (test/fixtures/openapi-3.2/petstore.yaml,
// built from the 3.2.0 specification's own examples): each addition as the tool table has it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildModel, type ServerModel } from '../../../src/model/build.js';
import { loadSpec, type LoadedSpec } from '../../../src/parse/load.js';
import type { ToolSpec } from '../../../src/contract/table.js';
import type { JsonObject } from '../../../src/parse/pointer.js';

const PETSTORE = new URL('../../fixtures/openapi-3.2/petstore.yaml', import.meta.url).pathname;

let spec: LoadedSpec;
let built: ServerModel;
const tool = (name: string): ToolSpec => {
  const found = built.table.tools.find((t) => t.name === name);
  expect(found, name).toBeDefined();
  return found as ToolSpec;
};

beforeAll(async () => {
  spec = await loadSpec(PETSTORE);
  built = buildModel(spec, {});
});

describe('QUERY and additionalOperations become tools', () => {
  it("the path item's `query` is a QUERY tool: read-only, with its body as an argument", () => {
    const search = tool('searchPets');
    expect(search.http.method).toBe('QUERY');
    expect(search.annotations).toMatchObject({ readOnlyHint: true });
    expect(search.annotations.destructiveHint).toBeUndefined();
    expect(search.http.body).toMatchObject({ arg: 'body', required: true, mediaTypes: ['application/json'] });
    expect(search.inputSchema.required).toEqual(['body']);
  });

  it('an additionalOperations entry is a tool sent with its own method', () => {
    const copy = tool('copyPet');
    expect(copy.http).toMatchObject({ method: 'COPY', path: '/pets/{petId}' });
    expect(copy.annotations).toEqual({ title: "Copy a pet's record", readOnlyHint: false, idempotentHint: true, openWorldHint: true });
    expect(copy.inputSchema.required).toEqual(['petId']);
  });

  it('--read-only keeps QUERY (safe) and drops COPY; --methods names an additional method', () => {
    const readOnly = buildModel(spec, { readOnly: true }).table.tools.map((t) => t.name);
    expect(readOnly).toContain('searchPets');
    expect(readOnly).not.toContain('copyPet');
    expect(buildModel(spec, { methods: ['copy'] }).table.tools.map((t) => t.name)).toEqual(['copyPet']);
  });

  it('a QUERY is a resource where a GET would be: --resources get makes a body-less QUERY one, not one with a body', async () => {
    const doc = structuredClone(spec.doc);
    (doc.paths as JsonObject)['/pets/count'] = { query: { operationId: 'countPets', responses: { '200': { description: 'how many' } } } };
    const m = buildModel({ ...spec, doc }, { resources: 'get' });
    expect(m.table.tools.find((t) => t.name === 'countPets')?.resource).toEqual({ uri: 'petstore://pets/count' });
    expect(m.table.tools.find((t) => t.name === 'searchPets')?.resource).toBeUndefined();
  });

  it('a method that is no HTTP token, or one a fixed field names, is not an operation', () => {
    const doc = structuredClone(spec.doc);
    (doc.paths as JsonObject)['/odd'] = {
      additionalOperations: { 'NOT A TOKEN': { responses: {} }, Post: { operationId: 'shadow', responses: {} } },
    };
    expect(buildModel({ ...spec, doc }, {}).table.tools.filter((t) => t.http.path === '/odd')).toEqual([]);
  });
});

describe('other methods in 3.0 and 3.1 documents, and methods that cannot be sent', () => {
  const pathsOf = (m: ServerModel, path: string) => m.table.tools.filter((t) => t.http.path === path);

  it("a 3.0 document's x-oai-additionalOperations are tools sent with their own method, read like 3.2's field", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-gen-x-oai-'));
    try {
      const doc = {
        openapi: '3.0.3',
        info: { title: 'WebDAV', version: '1' },
        servers: [{ url: 'https://dav.example.com' }],
        paths: {
          '/files/{name}': {
            parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
            get: { operationId: 'readFile', responses: { '200': { description: 'ok' } } },
            'x-oai-additionalOperations': {
              PROPFIND: { operationId: 'fileProperties', responses: { '207': { description: 'multi-status' } } },
              Post: { operationId: 'shadow', responses: { '200': { description: 'ok' } } },
            },
          },
        },
      };
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      const m = buildModel(await loadSpec(join(dir, 'openapi.json')), {});
      expect(pathsOf(m, '/files/{name}').map((t) => `${t.name} ${t.http.method}`)).toEqual(['readFile GET', 'fileProperties PROPFIND']);
      expect(m.table.tools.find((t) => t.name === 'fileProperties')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(m.report.warnings.find((w) => w.code === 'fixed-method-key')).toMatchObject({
        where: '#/paths/~1files~1{name}/x-oai-additionalOperations/Post',
        message: expect.stringMatching(/key "Post" is the method of the path item's "post" field in other capitals.*left out/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--read-only keeps every method the registry marks safe (PROPFIND, REPORT), spelled as sent', () => {
    const doc = structuredClone(spec.doc);
    (doc.paths as JsonObject)['/dav'] = {
      additionalOperations: {
        PROPFIND: { operationId: 'props', responses: {} },
        REPORT: { operationId: 'report', responses: {} },
        propfind: { operationId: 'lowerProps', responses: {} },
        MKCOL: { operationId: 'makeCollection', responses: {} },
      },
    };
    expect(pathsOf(buildModel({ ...spec, doc }, { readOnly: true }), '/dav').map((t) => t.name)).toEqual(['props', 'report']);
  });

  it('CONNECT is left out at generation, with a warning at its place', () => {
    const doc = structuredClone(spec.doc);
    (doc.paths as JsonObject)['/tunnel'] = { additionalOperations: { CONNECT: { operationId: 'tunnel', responses: {} } } };
    const m = buildModel({ ...spec, doc }, {});
    expect(pathsOf(m, '/tunnel')).toEqual([]);
    expect(m.report.warnings.find((w) => w.code === 'unsendable-method')).toMatchObject({
      where: '#/paths/~1tunnel/additionalOperations/CONNECT',
      message: expect.stringMatching(/"CONNECT" asks a proxy for a tunnel.*left out/),
    });
  });
});

describe('an `in: querystring` parameter', () => {
  it("is one argument, described by its content's schema, sent as the whole query string in its media type", () => {
    const find = tool('findPets');
    expect(find.http.params).toEqual([
      {
        arg: 'filter',
        name: 'filter',
        in: 'querystring',
        style: 'simple',
        explode: false,
        required: false,
        contentType: 'application/x-www-form-urlencoded',
        type: 'object',
      },
    ]);
    expect(find.inputSchema.properties).toEqual({
      filter: {
        type: 'object',
        properties: { name: { type: 'string' }, vaccinated: { type: 'boolean' } },
        description: 'The whole query string, as a form.',
      },
    });
  });
});

describe('the other 3.2 additions, as the table records them', () => {
  it('a Media Type Object referenced from components.mediaTypes is read as if written in place', () => {
    const adopt = tool('adoptPet');
    expect(adopt.http.body).toEqual({ arg: 'body', required: true, mediaTypes: ['application/json'] });
    expect(adopt.inputSchema.properties).toEqual({ body: { $ref: '#/$defs/Adoption', description: 'Request body (application/json).' } });
    expect(built.table.defs.Adoption).toMatchObject({ required: ['petId', 'adopter'] });
  });

  it('the device authorization flow and oauth2MetadataUrl are recorded; a deprecated scheme is marked and says so', () => {
    expect(built.table.auth.petstore_auth).toEqual({
      type: 'oauth2',
      env: { token: 'MCPGEN_PETSTORE_AUTH_TOKEN' },
      description: 'Sign in on a TV or a CLI with a device code.',
      deviceAuthorization: {
        deviceAuthorizationUrl: 'https://auth.petstore.example.com/device',
        tokenUrl: 'https://auth.petstore.example.com/token',
        scopes: ['pets:read', 'pets:write'],
      },
      metadataUrl: 'https://auth.petstore.example.com/.well-known/oauth-authorization-server',
    });
    expect(built.table.auth.legacy_key).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Legacy-Key',
      env: { key: 'MCPGEN_LEGACY_KEY' },
      description: '(Deprecated by the API: prefer another scheme where an operation offers one.)',
      deprecated: true,
    });
  });

  it("a server's name is kept beside its description", () => {
    expect(built.table.servers).toEqual([{ url: 'https://petstore.example.com/v2', name: 'production', description: 'The live store' }]);
  });

  it("a response's summary describes the output when its schema does not", () => {
    expect(tool('listPets').output?.schema.description).toBe('The pets');
    expect(tool('getPet').output?.schema.description).toBe('The pet');
  });

  it("an example's dataValue is offered by completions; its serializedValue (the wire form) is not", () => {
    const withResources = buildModel(spec, { resources: 'get' });
    const getPet = withResources.table.tools.find((t) => t.name === 'getPet');
    expect(getPet?.resource).toMatchObject({ uriTemplate: 'petstore://pets/{petId}', examples: { petId: ['1'] } });
  });

  it("an itemSchema on a sequential media type is the streamed answer's items, and the description says it streams", () => {
    const events = tool('adoptionEvents');
    expect(events.sequence).toEqual({ mediaType: 'application/jsonl', itemSchema: { $ref: '#/$defs/Adoption.out' } });
    expect(events.output?.schema).toMatchObject({ properties: { items: { type: 'array', items: { $ref: '#/$defs/Adoption.out' } } } });
    expect(events.description).toMatch(/may answer with a stream/);
    expect(built.table.defs['Adoption.out']).toBeDefined();
  });
});

describe("a querystring parameter's Encoding Objects", () => {
  it('are kept with the parameter, as a form body keeps its own', () => {
    const doc = structuredClone(spec.doc);
    const find = ((doc.paths as JsonObject)['/pets/find'] as JsonObject).get as JsonObject;
    const form = ((find.parameters as JsonObject[])[0]?.content as JsonObject)['application/x-www-form-urlencoded'] as JsonObject;
    form.encoding = { near: { style: 'deepObject', explode: true } };
    const findPets = buildModel({ ...spec, doc }, {}).table.tools.find((t) => t.name === 'findPets');
    expect(findPets?.http.params[0]?.encoding).toEqual({ near: { style: 'deepObject', explode: true } });
  });
});
