// Responses → outputSchema, and Link Objects → the tools an agent may call next (src/model/responses.ts).
import { describe, expect, it } from 'vitest';
import {
  buildOutput,
  buildSequence,
  isObjectRoot,
  linkedOperations,
  linkSequences,
  sequenceOutput,
  streamingOutput,
} from '../../../src/model/responses.js';
import { SchemaConverter } from '../../../src/model/schema.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { JsonSchema, OutputSpec, ToolSpec } from '../../../src/contract/table.js';

const docWith = (components: JsonObject = {}): JsonObject => ({ openapi: '3.0.3', paths: {}, components });

describe('buildOutput: the first 2xx JSON answer, wrapped unless it is an object', () => {
  const cases: [
    string,
    { given: { responses: JsonObject; components?: JsonObject }; want: (Partial<OutputSpec> & { refs?: string[] }) | undefined },
  ][] = [
    ['no responses: no output', { given: { responses: {} }, want: undefined }],
    [
      'a 4xx answer alone: no output',
      { given: { responses: { '404': { content: { 'application/json': { schema: { type: 'object' } } } } } }, want: undefined },
    ],
    [
      'an object answer is the schema itself, loosened',
      {
        given: {
          responses: {
            '200': { content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } } } },
          },
        },
        want: { wrap: false, schema: { type: 'object', properties: { id: { type: ['number', 'null'] } } }, refs: [] },
      },
    ],
    [
      'an array answer is wrapped as { result }',
      {
        given: { responses: { '201': { content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } } } },
        want: {
          wrap: true,
          schema: { type: 'object', properties: { result: { type: ['array', 'null'], items: { type: ['string', 'null'] } } } },
        },
      },
    ],
    [
      'the lowest 2xx code with JSON wins, through $refs; a text answer is passed over',
      {
        given: {
          responses: {
            '202': { content: { 'text/plain': { schema: { type: 'string' } } } },
            '200': { $ref: '#/components/responses/Ok' },
          },
          components: {
            responses: { Ok: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
            schemas: { Pet: { type: 'object' } },
          },
        },
        want: { wrap: false, schema: { $ref: '#/$defs/Pet.out', type: 'object' }, refs: ['Pet.out'] },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const doc = docWith(given.components);
    const named = new Set<string>();
    const got = buildOutput(doc, new SchemaConverter(doc, '3.0'), { responses: given.responses }, named);
    if (want === undefined) return expect(got).toBeUndefined();
    const { refs, ...shape } = want;
    expect(got).toMatchObject(shape);
    if (refs) expect([...named]).toEqual(refs);
  });
});

describe('isObjectRoot: every value allowed, besides null, is an object', () => {
  const cases: [string, { given: { schema: JsonSchema; defs?: Record<string, JsonSchema> }; want: boolean }][] = [
    ['type object', { given: { schema: { type: 'object' } }, want: true }],
    ['object or null', { given: { schema: { type: ['object', 'null'] } }, want: true }],
    ['object or string', { given: { schema: { type: ['object', 'string'] } }, want: false }],
    ['properties without a type', { given: { schema: { properties: {} } }, want: true }],
    ['anything', { given: { schema: {} }, want: false }],
    ['anyOf objects and null', { given: { schema: { anyOf: [{ type: 'object' }, { type: 'null' }] } }, want: true }],
    ['a $ref to an object', { given: { schema: { $ref: '#/$defs/A' }, defs: { A: { type: 'object' } } }, want: true }],
    ['a $ref to nothing', { given: { schema: { $ref: '#/$defs/B' } }, want: false }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(isObjectRoot(given.schema, { defs: given.defs ?? {} })).toBe(want);
  });
});

describe('Link Objects', () => {
  it('names the targets of 2xx links, by operationId or operationRef, through $refs', () => {
    const doc = docWith({ links: { Next: { operationId: 'listPets' } } });
    const op = {
      responses: {
        '200': {
          links: {
            a: { $ref: '#/components/links/Next' },
            b: { operationRef: '#/paths/~1pets~1{id}/get' },
            c: { operationRef: 'other.yaml#/x' },
          },
        },
        '404': { links: { d: { operationId: 'never' } } },
      },
    };
    expect(linkedOperations(doc, op)).toEqual(['listPets', 'GET /pets/{id}']);
  });

  it('linkSequences: each tool then names the tools its links lead to, not itself, not resources only', () => {
    const tool = (name: string, path: string, more: Partial<ToolSpec> = {}) =>
      ({ name, http: { method: 'GET', path, params: [] }, ...more }) as unknown as ToolSpec;
    const a = tool('a', '/a', { operationId: 'opA' });
    const b = tool('b', '/b');
    const hidden = tool('hidden', '/h', { asTool: false });
    linkSequences(
      [a, b, hidden],
      new Map([
        [a, ['GET /b', 'opA', 'GET /h', 'GET /b']],
        [b, ['opA']],
      ]),
    );
    expect(a.then).toEqual(['b']);
    expect(b.then).toEqual(['a']);
  });
});

describe('streamingOutput: the streamed items, or either shape when the operation also answers JSON', () => {
  const sequence = { mediaType: 'text/event-stream' };
  const json = { schema: { type: 'object', properties: { id: { type: 'string' } } }, wrap: false };

  it('the items alone, without a JSON answer', () => {
    expect(streamingOutput(sequence, undefined)).toEqual(sequenceOutput(sequence));
  });

  it("either shape beside a JSON object answer (a chat API's stream: false)", () => {
    expect(streamingOutput(sequence, json)).toEqual({
      schema: { type: 'object', anyOf: [sequenceOutput(sequence).schema, json.schema] },
      wrap: false,
    });
  });

  it('no promise beside a JSON answer wrapped as { result }', () => {
    expect(streamingOutput(sequence, { ...json, wrap: true })).toBeUndefined();
  });
});

describe('buildSequence: a sequential answer marks the tool as streaming', () => {
  const sequenceOf = (content: JsonObject, components: JsonObject = {}) => {
    const doc = { ...docWith(components), openapi: '3.2.0' };
    return buildSequence(doc, new SchemaConverter(doc, '3.1'), { responses: { '200': { content } } }, new Set());
  };

  it.each(['text/event-stream', 'application/jsonl', 'application/x-ndjson', 'application/json-seq'])(
    '%s marks it even without an itemSchema',
    (mediaType) => {
      expect(sequenceOf({ [mediaType]: { schema: { type: 'string' } } })).toEqual({ mediaType });
    },
  );

  it('a JSON answer alone is no stream', () => {
    expect(sequenceOf({ 'application/json': { schema: { type: 'object' } } })).toBeUndefined();
  });

  it("JSON Lines items take the itemSchema; an event's item schema is its data's contentSchema", () => {
    expect(sequenceOf({ 'application/jsonl': { itemSchema: { type: 'object', properties: { n: { type: 'integer' } } } } })).toEqual({
      mediaType: 'application/jsonl',
      itemSchema: { type: ['object', 'null'], properties: { n: { type: ['number', 'null'] } } },
    });
    const event = {
      type: 'object',
      properties: {
        event: { type: 'string' },
        data: {
          type: 'string',
          contentMediaType: 'application/json',
          contentSchema: { type: 'object', properties: { delta: { type: 'string' } } },
        },
      },
    };
    expect(sequenceOf({ 'text/event-stream': { itemSchema: event } })).toEqual({
      mediaType: 'text/event-stream',
      itemSchema: { type: ['object', 'null'], properties: { delta: { type: ['string', 'null'] } } },
    });
  });

  it('x-mcp-stream-end names the events that end a stream of events; a mark naming neither event nor data is warned of', () => {
    const warned: string[] = [];
    const doc = { ...docWith(), openapi: '3.1.0' };
    const of = (entry: JsonObject, op: JsonObject = {}) =>
      buildSequence(
        doc,
        new SchemaConverter(doc, '3.1'),
        { ...op, responses: { '200': { content: { 'text/event-stream': entry } } } },
        new Set(),
        (m) => warned.push(m),
      );
    expect(of({ 'x-mcp-stream-end': { event: 'message_stop' } })).toEqual({
      mediaType: 'text/event-stream',
      ends: [{ event: 'message_stop' }],
    });
    expect(of({}, { 'x-mcp-stream-end': [{ data: '[END]' }, { event: 'done', data: 'ok' }] })?.ends).toEqual([
      { data: '[END]' },
      { event: 'done', data: 'ok' },
    ]);
    expect(warned).toEqual([]);
    expect(of({ 'x-mcp-stream-end': { name: 'stop' } })).toEqual({ mediaType: 'text/event-stream' });
    expect(warned).toEqual(['x-mcp-stream-end: {"name":"stop"} names no "event" or "data" string; left out']);
  });

  it('before 3.2, a JSON Lines or json-seq schema that is an object describes one record: the item schema', () => {
    const record = { type: 'object', properties: { id: { type: 'integer' } } };
    const doc = { ...docWith({ schemas: { Record: record } }), openapi: '3.1.0' };
    const of = (content: JsonObject) =>
      buildSequence(doc, new SchemaConverter(doc, '3.1'), { responses: { '200': { content } } }, new Set());
    const converted = { type: ['object', 'null'], properties: { id: { type: ['number', 'null'] } } };
    expect(of({ 'application/jsonl': { schema: record } })).toEqual({ mediaType: 'application/jsonl', itemSchema: converted });
    expect(of({ 'application/json-seq': { schema: { $ref: '#/components/schemas/Record' } } })).toMatchObject({
      mediaType: 'application/json-seq',
      itemSchema: { $ref: '#/$defs/Record.out' },
    });
    // a schema that is no object describes no record (a string, as specs write for "some text")
    expect(of({ 'application/x-ndjson': { schema: { type: 'string' } } })).toEqual({ mediaType: 'application/x-ndjson' });
    // 3.2 gives `schema` to the whole sequence: only itemSchema describes an item
    expect(sequenceOf({ 'application/jsonl': { schema: record } })).toEqual({ mediaType: 'application/jsonl' });
  });

  it('the outputSchema is the items, the count left out, the records that were not JSON and why the reading ended', () => {
    const lines = sequenceOutput({ mediaType: 'application/jsonl', itemSchema: { type: 'integer' } });
    expect(lines.wrap).toBe(false);
    expect(lines.schema).toMatchObject({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'integer' } }, omitted: { type: 'integer' }, ended: { type: 'string' } },
      required: ['items', 'ended'],
    });
    const events = sequenceOutput({ mediaType: 'text/event-stream' });
    expect(events.schema).toMatchObject({
      properties: { items: { items: { type: 'object', properties: { data: {}, event: { type: 'string' } }, required: ['data'] } } },
    });
  });
});
