// Parameter Objects → arguments and their HTTP mapping (src/model/parameters.ts).
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/model/build.js';
import { buildParameters, type ParameterArguments } from '../../../src/model/parameters.js';
import { SchemaConverter } from '../../../src/model/schema.js';
import type { OperationPlace, SpecContext } from '../../../src/model/context.js';
import type { LoadedSpec } from '../../../src/parse/load.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { ParamSpec } from '../../../src/contract/table.js';
import type { GenerationWarning } from '../../../src/warnings.js';

const spec = (paths: JsonObject, components: JsonObject = {}): LoadedSpec => ({
  doc: { openapi: '3.0.3', info: { title: 'T', version: '1' }, servers: [{ url: 'https://api.example.com' }], paths, components },
  specVersion: '3.0.3',
  source: 'test.yaml',
  warnings: [],
});

/** buildParameters on GET `path` of a document with these parameters and components. */
function parametersOf(given: {
  path?: string;
  parameters: unknown[];
  itemParameters?: unknown[];
  components?: JsonObject;
}): ParameterArguments & { warnings: GenerationWarning[] } {
  const path = given.path ?? '/things';
  const op = { parameters: given.parameters } as JsonObject;
  const item = { ...(given.itemParameters ? { parameters: given.itemParameters } : {}), get: op } as JsonObject;
  const doc: JsonObject = { openapi: '3.0.3', paths: { [path]: item }, components: given.components ?? {} };
  const ctx: SpecContext = { doc, converter: new SchemaConverter(doc, '3.0'), warnings: [] };
  const place: OperationPlace = {
    path,
    method: 'get',
    label: `GET ${path}`,
    where: `#/paths/${path.replace(/\//g, '~1')}/get`,
    styledMultipart: false,
  };
  return { ...buildParameters(ctx, place, item, op, new Set()), warnings: ctx.warnings };
}

describe('buildParameters: each parameter as an argument, and where it goes', () => {
  const cases: [
    string,
    { given: Parameters<typeof parametersOf>[0]; want: { params: Partial<ParamSpec>[]; required: string[]; warnings?: string[] } },
  ][] = [
    [
      'each location gets its default style; explode follows form',
      {
        given: {
          path: '/things/{id}',
          parameters: [
            { name: 'id', in: 'path', schema: { type: 'integer' } },
            { name: 'q', in: 'query', schema: { type: 'string' } },
            { name: 'X-Tag', in: 'header', schema: { type: 'string' } },
            { name: 'session', in: 'cookie', schema: { type: 'string' } },
          ],
        },
        want: {
          params: [
            { arg: 'id', in: 'path', style: 'simple', explode: false, required: true, type: 'integer' },
            { arg: 'q', in: 'query', style: 'form', explode: true, required: false, type: 'string' },
            { arg: 'X-Tag', in: 'header', style: 'simple', explode: false, required: false },
            { arg: 'session', in: 'cookie', style: 'form', explode: true, required: false },
          ],
          required: ['id'],
        },
      },
    ],
    [
      'the operation redefines a path-level parameter of the same name and location',
      {
        given: {
          itemParameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
          parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'integer' } }],
        },
        want: { params: [{ arg: 'q', type: 'integer', required: true }], required: ['q'] },
      },
    ],
    [
      'a name taken by an earlier location is suffixed with the location',
      {
        given: {
          path: '/things/{id}',
          parameters: [
            { name: 'id', in: 'query', schema: { type: 'string' } },
            { name: 'id', in: 'path', schema: { type: 'string' } },
          ],
        },
        want: {
          params: [
            { arg: 'id', in: 'path' },
            { arg: 'id_query', in: 'query' },
          ],
          required: ['id'],
        },
      },
    ],
    [
      'Accept, Content-Type and Authorization headers are ignored (OAS 3.0.3 §4.7.12)',
      {
        given: {
          parameters: ['Accept', 'content-type', 'Authorization'].map((name) => ({ name, in: 'header', schema: { type: 'string' } })),
        },
        want: { params: [], required: [] },
      },
    ],
    [
      'a path variable nobody declares becomes a required string, with a warning',
      {
        given: { path: '/things/{id}', parameters: [] },
        want: {
          params: [{ arg: 'id', in: 'path', required: true, type: 'string' }],
          required: ['id'],
          warnings: ['missing-path-parameter'],
        },
      },
    ],
    [
      'a header that can never be sent is left out, with a warning',
      {
        given: { parameters: [{ name: 'Host', in: 'header', schema: { type: 'string' } }] },
        want: { params: [], required: [], warnings: ['unsendable-header'] },
      },
    ],
    [
      'a content parameter is sent as its media type',
      {
        given: { parameters: [{ name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } }] },
        want: { params: [{ arg: 'filter', contentType: 'application/json', type: 'object' }], required: [] },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const got = parametersOf(given);
    expect(got.params).toHaveLength(want.params.length);
    want.params.forEach((p, i) => expect(got.params[i]).toMatchObject(p));
    expect(got.required).toEqual(want.required);
    expect(got.warnings.map((w) => w.code)).toEqual(want.warnings ?? []);
  });

  it('describes an argument sent under another name', () => {
    const got = parametersOf({
      path: '/things/{id}',
      parameters: [
        { name: 'id', in: 'path', schema: { type: 'string' } },
        { name: 'id', in: 'query', description: 'Filter.', schema: { type: 'string' } },
      ],
    });
    expect(got.properties.id_query).toEqual({ type: 'string', description: 'Filter. Sent as query parameter "id".' });
  });
});

describe('unknown parameter styles', () => {
  const cases: [
    string,
    { given: { paths: JsonObject; components?: JsonObject }; want: { style: Partial<ParamSpec>; warnings: GenerationWarning[] } },
  ][] = [
    [
      'a query parameter with a made-up style is sent as form, and the warning names the style',
      {
        given: {
          paths: {
            '/pets': { get: { parameters: [{ name: 'q', in: 'query', style: 'comma', schema: { type: 'array' } }], responses: {} } },
          },
        },
        want: {
          style: { style: 'form', explode: true },
          warnings: [
            {
              code: 'unknown-style',
              message: 'style "comma" is not a parameter style; sent in the query default style, form',
              where: '#/paths/~1pets/get/parameters/0/style',
            },
          ],
        },
      },
    ],
    [
      'a shared header parameter is reported once, where it is defined',
      {
        given: {
          paths: {
            '/a': { get: { parameters: [{ $ref: '#/components/parameters/H' }], responses: {} } },
            '/b': { get: { parameters: [{ $ref: '#/components/parameters/H' }], responses: {} } },
          },
          components: { parameters: { H: { name: 'X-H', in: 'header', style: 'csv', schema: { type: 'string' } } } },
        },
        want: {
          style: { style: 'simple', explode: false },
          warnings: [
            {
              code: 'unknown-style',
              message: 'style "csv" is not a parameter style; sent in the header default style, simple',
              where: '#/components/parameters/H/style',
            },
          ],
        },
      },
    ],
    [
      'a known style, even one unusual for its location, is kept without a warning',
      {
        given: {
          paths: {
            '/p/{id}': { get: { parameters: [{ name: 'id', in: 'path', style: 'matrix', schema: { type: 'string' } }], responses: {} } },
          },
        },
        want: { style: { style: 'matrix', explode: false }, warnings: [] },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const m = buildModel(spec(given.paths, given.components), { maxDescriptionLength: 1000 });
    const params = m.table.tools.flatMap((t) => t.http.params);
    expect(params.length).toBeGreaterThan(0);
    for (const p of params) expect(p).toMatchObject(want.style);
    expect(m.report.warnings.filter((w) => w.code === 'unknown-style')).toEqual(want.warnings);
  });
});

describe('the Idempotency-Key header (retried POSTs and PATCHes)', () => {
  const key = (name: string, method = 'post') => ({
    [method]: { operationId: `${method}Thing`, parameters: [{ name, in: 'header', schema: { type: 'string' } }], responses: {} },
  });
  it('is marked on the tool by its name as the spec spells it, whatever its case', () => {
    const m = buildModel(
      spec({
        '/charges': key('Idempotency-Key'),
        '/messages': key('idempotency-key'),
        '/items': key('X-Idempotency-Token', 'patch'),
      }),
      { maxDescriptionLength: 1000 },
    );
    const marks = Object.fromEntries(m.table.tools.map((t) => [t.http.path, t.http.idempotencyKey]));
    expect(marks).toEqual({ '/charges': 'Idempotency-Key', '/messages': 'idempotency-key', '/items': undefined });
    // still an argument the agent may give
    expect(m.table.tools[0]?.http.params).toMatchObject([{ name: 'Idempotency-Key', in: 'header' }]);
  });
});
