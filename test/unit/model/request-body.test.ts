// Request Body Objects → the body argument and how it is sent (src/model/request-body.ts).
import { describe, expect, it } from 'vitest';
import { buildRequestBody, type RequestBodyArgument } from '../../../src/model/request-body.js';
import { NameScope } from '../../../src/model/naming.js';
import { SchemaConverter } from '../../../src/model/schema.js';
import type { OperationPlace, SpecContext } from '../../../src/model/context.js';
import type { JsonObject } from '../../../src/parse/pointer.js';

/** buildRequestBody for `method /things` whose requestBody is `requestBody`, with `taken` argument names already claimed. */
function bodyOf(given: { method?: string; requestBody: unknown; components?: JsonObject; taken?: string[]; dialect?: '3.0' | '3.1' }) {
  const method = given.method ?? 'post';
  const op = { requestBody: given.requestBody } as JsonObject;
  const doc: JsonObject = { openapi: '3.0.3', paths: { '/things': { [method]: op } }, components: given.components ?? {} };
  const ctx: SpecContext = { doc, converter: new SchemaConverter(doc, given.dialect ?? '3.0'), warnings: [] };
  const place: OperationPlace = {
    path: '/things',
    method,
    label: `${method.toUpperCase()} /things`,
    where: `#/paths/~1things/${method}`,
    styledMultipart: given.dialect === '3.1',
  };
  const scope = new NameScope();
  for (const name of given.taken ?? []) scope.claim(name);
  return { got: buildRequestBody(ctx, place, op, scope, new Set()), warnings: ctx.warnings.map((w) => w.code) };
}

const json = (schema: JsonObject) => ({ 'application/json': { schema } });
/** A multipart/form-data requestBody with these properties and Encoding Objects. */
const multipart = (properties: JsonObject, encoding: JsonObject) => ({
  content: { 'multipart/form-data': { schema: { type: 'object', properties }, encoding } },
});

describe('buildRequestBody', () => {
  const cases: [string, { given: Parameters<typeof bodyOf>[0]; want: { got: RequestBodyArgument | JsonObject; warnings?: string[] } }][] = [
    ['no requestBody: no body', { given: { requestBody: undefined }, want: { got: { kind: 'none' } } }],
    [
      'a GET body is ignored (OAS 3.0.3: SHALL be ignored)',
      { given: { method: 'get', requestBody: { content: json({ type: 'object' }) } }, want: { got: { kind: 'ignored' } } },
    ],
    [
      'a requestBody $ref that leads nowhere: no body, with a warning',
      {
        given: { requestBody: { $ref: '#/components/requestBodies/Missing' } },
        want: { got: { kind: 'none' }, warnings: ['unresolved-request-body'] },
      },
    ],
    [
      'a form body that is an array has no fields to send: the operation is unusable',
      {
        given: { requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'array' } } } } },
        want: {
          got: {
            kind: 'unusable',
            reason: 'its application/x-www-form-urlencoded request body is not an object, so it has no form fields to send',
          },
        },
      },
    ],
    [
      'one JSON media type: the body argument is its schema',
      {
        given: { requestBody: { required: true, content: json({ type: 'object', properties: { a: { type: 'string' } } }) } },
        want: {
          got: {
            kind: 'body',
            body: { arg: 'body', required: true, mediaTypes: ['application/json'] },
            properties: {
              body: { type: 'object', properties: { a: { type: 'string' } }, description: 'Request body (application/json).' },
            },
            required: ['body'],
          },
        },
      },
    ],
    [
      'a parameter named body: the argument is requestBody',
      {
        given: { taken: ['body'], requestBody: { content: json({ type: 'string' }) } },
        want: { got: { kind: 'body', body: { arg: 'requestBody', required: false, mediaTypes: ['application/json'] }, required: [] } },
      },
    ],
    [
      'two media types with one schema: a contentType argument chooses, JSON first',
      {
        given: {
          requestBody: {
            content: {
              'application/x-www-form-urlencoded': { schema: { type: 'object' } },
              'application/json': { schema: { type: 'object' } },
            },
          },
        },
        want: {
          got: {
            kind: 'body',
            body: {
              arg: 'body',
              required: false,
              mediaTypes: ['application/json', 'application/x-www-form-urlencoded'],
              contentTypeArg: 'contentType',
            },
            properties: {
              body: { type: 'object', description: 'Request body (application/json).' },
              contentType: {
                type: 'string',
                enum: ['application/json', 'application/x-www-form-urlencoded'],
                description: 'Media type to send the body as (default application/json).',
              },
            },
          },
        },
      },
    ],
    [
      'a multipart binary field is a file part; 3.1 applies the Encoding Object style',
      {
        given: {
          dialect: '3.1',
          requestBody: multipart(
            { file: { type: 'string', format: 'binary' }, tags: { type: 'array', items: { type: 'string' } } },
            { tags: { style: 'form', explode: false } },
          ),
        },
        want: {
          got: {
            kind: 'body',
            body: {
              arg: 'body',
              mediaTypes: ['multipart/form-data'],
              encoding: { 'multipart/form-data': { tags: { style: 'form', explode: false } } },
            },
            properties: { body: { properties: { file: { type: 'object', required: ['content'] } } } },
          },
        },
      },
    ],
    [
      'multipart bytes without format binary: a 3.1 contentMediaType that is not text is a file part, a string an Encoding contentType makes bytes says base64',
      {
        given: {
          dialect: '3.1',
          requestBody: multipart(
            {
              picture: { type: 'string', contentMediaType: 'image/png' },
              raw: { type: 'string', description: 'Raw.' },
              caption: { type: 'string', contentMediaType: 'text/plain' },
            },
            { raw: { contentType: 'application/octet-stream' } },
          ),
        },
        want: {
          got: {
            kind: 'body',
            properties: {
              body: {
                properties: {
                  picture: { type: 'object', required: ['content'] },
                  raw: {
                    type: 'string',
                    contentEncoding: 'base64',
                    description: 'Raw. Base64-encoded bytes (sent as application/octet-stream).',
                  },
                  caption: { type: 'string', contentMediaType: 'text/plain' },
                },
              },
            },
          },
        },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const { got, warnings } = bodyOf(given);
    expect(got).toMatchObject(want.got);
    expect(warnings).toEqual(want.warnings ?? []);
  });
});
