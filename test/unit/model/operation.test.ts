// Operation Objects → tools: names, descriptions, annotations, toolsets, arguments (src/model/operation.ts).
import { describe, expect, it } from 'vitest';
import {
  annotationsFor,
  buildArguments,
  descriptionOf,
  isPoorDescription,
  operationsOf,
  titleOf,
  toolName,
  toolsetFor,
  type Operation,
} from '../../../src/model/operation.js';
import { NameScope } from '../../../src/model/naming.js';
import { SchemaConverter } from '../../../src/model/schema.js';
import type { SpecContext } from '../../../src/model/context.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { ToolsetRule } from '../../../src/model/model-options.js';

describe('operationsOf: every operation, in path then method order, with its pointer', () => {
  it('follows path item $refs, skips what is not an operation, keeps string tags', () => {
    const doc: JsonObject = {
      paths: {
        '/a/{id}': { post: { operationId: ' ', tags: ['x', 3] }, get: { operationId: 'getA' }, parameters: [] },
        '/b': { $ref: '#/components/pathItems/B' },
        '/c': 'not a path item',
      },
      components: { pathItems: { B: { delete: {} } } },
    };
    const got = [...operationsOf(doc)].map(({ method, path, operationId, tags, label, where }) => ({
      method,
      path,
      operationId,
      tags,
      label,
      where,
    }));
    expect(got).toEqual([
      { method: 'get', path: '/a/{id}', operationId: 'getA', tags: [], label: 'GET /a/{id}', where: '#/paths/~1a~1{id}/get' },
      { method: 'post', path: '/a/{id}', operationId: undefined, tags: ['x'], label: 'POST /a/{id}', where: '#/paths/~1a~1{id}/post' },
      { method: 'delete', path: '/b', operationId: undefined, tags: [], label: 'DELETE /b', where: '#/paths/~1b/delete' },
    ]);
  });
});

const operation = (method: string, path: string, operationId?: string): Operation => ({
  method,
  path,
  ...(operationId ? { operationId } : {}),
  tags: [],
  op: {},
  item: {},
  doc: {},
  label: `${method.toUpperCase()} ${path}`,
  where: '#',
});

describe('toolName: the override, else the operationId, else method and path', () => {
  const cases: [string, { given: { op: Operation; override?: string; taken?: string[] }; want: { name: string; renamed?: string } }][] = [
    ['the operationId as it is', { given: { op: operation('get', '/pets', 'listPets') }, want: { name: 'listPets' } }],
    ['no operationId', { given: { op: operation('get', '/pets/{id}') }, want: { name: 'get_pets_id', renamed: 'no operationId' } }],
    [
      'an operationId that is no valid name',
      { given: { op: operation('get', '/pets', 'list pets') }, want: { name: 'list_pets', renamed: 'not a valid MCP tool name' } },
    ],
    ['an override wins', { given: { op: operation('get', '/pets', 'listPets'), override: 'pets' }, want: { name: 'pets' } }],
    [
      'a taken name',
      {
        given: { op: operation('get', '/pets', 'listPets'), taken: ['listPets'] },
        want: { name: 'listPets_2', renamed: 'name already taken' },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const names = new NameScope(given.taken ?? []);
    expect(toolName(names, given.op, given.override)).toEqual(want);
  });
});

describe('descriptions and titles', () => {
  const cases: [string, { given: { override?: string; op: JsonObject; item?: JsonObject; max?: number }; want: string }][] = [
    [
      'summary and description, as two paragraphs',
      { given: { op: { summary: 'List pets.', description: 'All of them.' } }, want: 'List pets.\n\nAll of them.' },
    ],
    ['the path item summary when the operation has none', { given: { op: {}, item: { summary: 'Pets.' } }, want: 'Pets.' }],
    ['nothing: the route', { given: { op: {} }, want: 'GET /pets' }],
    ['deprecated', { given: { op: { deprecated: true, summary: 'Old.' } }, want: '[DEPRECATED] Old.' }],
    ['cut to the most characters', { given: { op: { summary: 'abcdefghij' }, max: 5 }, want: 'abcd…' }],
    ['an override, trimmed', { given: { override: '  Mine. ', op: { summary: 'Theirs.' } }, want: 'Mine.' }],
    ['an empty override: the route', { given: { override: ' ', op: { summary: 'Theirs.' } }, want: 'GET /pets' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(descriptionOf(given.override, given.op, given.item ?? {}, 'GET /pets', given.max ?? 1000)).toBe(want);
  });

  it.each([
    ['GET /pets', true],
    ['List pets', true],
    ['[DEPRECATED] List pets', true],
    ['List all pets', false],
  ])('isPoorDescription(%j) is %s', (description, want) => {
    expect(isPoorDescription(description, 'GET /pets')).toBe(want);
  });

  it.each([
    [{ summary: 'List\n  pets' }, 'List pets'],
    [{ summary: 'x'.repeat(121) }, undefined],
    [{}, undefined],
  ])('titleOf(%j) is %j', (op, want) => {
    expect(titleOf(op)).toBe(want);
  });
});

describe('annotationsFor: what HTTP says of the method as sent', () => {
  it.each([
    ['GET', { readOnlyHint: true, openWorldHint: true }],
    ['DELETE', { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true }],
    ['PUT', { readOnlyHint: false, idempotentHint: true, openWorldHint: true }],
    ['POST', { readOnlyHint: false, openWorldHint: true }],
    ['PROPFIND', { readOnlyHint: true, openWorldHint: true }],
    ['LINK', { readOnlyHint: false, idempotentHint: true, openWorldHint: true }],
    ['PURGE', { readOnlyHint: false, openWorldHint: true }],
    ['propfind', { readOnlyHint: false, openWorldHint: true }],
  ])('%s', (method, want) => {
    expect(annotationsFor(method)).toEqual(want);
  });
});

describe('toolsetFor: config per operation, then config rules (any criterion), then x-mcp, then the default', () => {
  const rules: Record<string, ToolsetRule> = { Admin: { paths: ['/admin/**'] }, Pets: { tags: ['pets'], operations: ['*Pet'] } };
  const cases: [
    string,
    { given: { verdict?: { toolset?: string; specToolset?: string }; tags?: string[]; path?: string; operationId?: string }; want: string },
  ][] = [
    ['the config file names it', { given: { verdict: { toolset: 'My Set' }, path: '/admin/x' }, want: 'my-set' }],
    ['a rule by path', { given: { path: '/admin/users/1' }, want: 'admin' }],
    ['a rule by operationId alone', { given: { path: '/x', operationId: 'addPet' }, want: 'pets' }],
    ['x-mcp when no rule matches', { given: { verdict: { specToolset: 'Spec Set' }, path: '/x' }, want: 'spec-set' }],
    ['the default: the first tag', { given: { tags: ['store'], path: '/x' }, want: 'store' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const op = {
      method: 'get',
      path: given.path ?? '/',
      tags: given.tags ?? [],
      ...(given.operationId ? { operationId: given.operationId } : {}),
    };
    expect(toolsetFor(given.verdict ?? {}, rules, op)).toBe(want);
  });
});

describe('buildArguments: parameters, then the body, in one closed inputSchema', () => {
  const argumentsOf = (method: string, op: JsonObject) => {
    const doc: JsonObject = { openapi: '3.0.3', paths: { '/t/{id}': { [method]: op } } };
    const ctx: SpecContext = { doc, converter: new SchemaConverter(doc, '3.0'), warnings: [] };
    const place = {
      path: '/t/{id}',
      method,
      label: `${method.toUpperCase()} /t/{id}`,
      where: `#/paths/~1t~1{id}/${method}`,
      styledMultipart: false,
    };
    return buildArguments(ctx, place, {}, op, new Set());
  };
  const idParam = { name: 'id', in: 'path', schema: { type: 'string' } };

  it('a path parameter and a required body', () => {
    const got = argumentsOf('post', {
      parameters: [idParam],
      requestBody: { required: true, content: { 'text/plain': { schema: { type: 'string' } } } },
    });
    expect(got).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, body: { type: 'string', description: 'Request body (text/plain).' } },
        required: ['id', 'body'],
        additionalProperties: false,
      },
      body: { arg: 'body', required: true, mediaTypes: ['text/plain'] },
      ignoredBody: false,
    });
  });

  it('a GET body is left out and said so', () => {
    const got = argumentsOf('get', { parameters: [idParam], requestBody: { content: { 'application/json': { schema: {} } } } });
    expect(got).toMatchObject({ inputSchema: { required: ['id'] }, ignoredBody: true });
    expect(got).not.toHaveProperty('body');
  });

  it('an unusable body makes the operation unusable', () => {
    const got = argumentsOf('post', {
      parameters: [idParam],
      requestBody: { content: { 'multipart/form-data': { schema: { type: 'string' } } } },
    });
    expect(got).toEqual({ skip: 'its multipart/form-data request body is not an object, so it has no form fields to send' });
  });
});
