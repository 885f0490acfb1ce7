// Upstream answers → MCP tool results (src/runtime/call/answer/response.ts and output.ts), on their
// own: status ≥ 400 is a tool error (MCP: tool failures are results with isError, not JSON-RPC
// errors), JSON is text plus structuredContent, binary is image/audio/resource content in
// base64, and what the advertised outputSchema promises is held to.
import { describe, expect, it } from 'vitest';
import { toToolResult, type UpstreamAnswer } from '../../../../../src/runtime/call/answer/response.js';
import {
  advertisedStructure,
  NO_JSON,
  NOTHING,
  plainStructure,
  StructureProblem,
  toolError,
} from '../../../../../src/runtime/mcp/output.js';

const answer = (status: number, contentType: string, body: string | Uint8Array, more: Partial<UpstreamAnswer> = {}): UpstreamAnswer => ({
  status,
  statusText: status === 200 ? 'OK' : status === 404 ? 'Not Found' : '',
  contentType,
  bytes: typeof body === 'string' ? new TextEncoder().encode(body) : body,
  truncated: false,
  label: 'GET https://api.example.com/pets/1',
  uri: 'https://api.example.com/pets/1',
  ...more,
});

describe('toToolResult', () => {
  it('an error status: isError, the status line, the method and URL, and the body', () => {
    expect(toToolResult(answer(404, 'application/json', '{"message":"no pet"}'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 404 Not Found from GET https://api.example.com/pets/1\n{"message":"no pet"}' }],
    });
  });

  it('a long error body is cut to an excerpt that says so', () => {
    const result = toToolResult(answer(500, 'text/plain', 'e'.repeat(10_000)));
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    expect(result.isError).toBe(true);
    expect(text.endsWith(' […]')).toBe(true);
    expect(text.length).toBeLessThan(4_200);
  });

  it('a JSON object: the text as received, and the object as structuredContent', () => {
    expect(toToolResult(answer(200, 'application/json; charset=utf-8', '{"id":1}'))).toEqual({
      content: [{ type: 'text', text: '{"id":1}' }],
      structuredContent: { id: 1 },
    });
  });

  it('a JSON array, and JSON without a Content-Type: wrapped as { result }', () => {
    expect(toToolResult(answer(200, 'application/vnd.api+json', '[1,2]')).structuredContent).toEqual({ result: [1, 2] });
    expect(toToolResult(answer(200, '', '{"a":true}')).structuredContent).toEqual({ a: true });
  });

  it('text that says it is JSON but is not: text, no structure', () => {
    expect(toToolResult(answer(200, 'application/json', 'not json'))).toEqual({ content: [{ type: 'text', text: 'not json' }] });
  });

  it('an empty body: a short success text', () => {
    expect(toToolResult(answer(204, '', ''))).toEqual({ content: [{ type: 'text', text: 'HTTP 204: success, empty body' }] });
  });

  it('a truncated text body carries a note naming the option to raise', () => {
    const result = toToolResult(answer(200, 'text/plain', 'abc', { truncated: true, declaredLength: 999 }));
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'abc\n\n[response truncated: showing the first 3 bytes of 999 bytes; raise --max-response-bytes to see more]',
      },
    ]);
  });

  it.each([
    ['image/png', { type: 'image', data: 'AAH/', mimeType: 'image/png' }],
    ['audio/mpeg', { type: 'audio', data: 'AAH/', mimeType: 'audio/mpeg' }],
    [
      'application/pdf',
      { type: 'resource', resource: { uri: 'https://api.example.com/pets/1', mimeType: 'application/pdf', blob: 'AAH/' } },
    ],
  ])('binary %s: base64 content of the right kind', (type, content) => {
    expect(toToolResult(answer(200, type, new Uint8Array([0, 1, 255])))).toEqual({ content: [content] });
  });

  it('a truncated binary body is not returned in part: a sentence says why', () => {
    const result = toToolResult(answer(200, 'image/png', new Uint8Array(10), { truncated: true, declaredLength: 5_000_000 }));
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'GET https://api.example.com/pets/1 answered image/png of 5000000 bytes, above --max-response-bytes; not returned.',
      },
    ]);
  });
});

describe('structure', () => {
  const schemaCheck = (fits: boolean) => () => Object.assign(() => fits, { describe: () => 'field "id" must be integer' });

  it('plainStructure: objects as they are, other JSON wrapped, nothing for no JSON', () => {
    expect(plainStructure({ a: 1 })).toEqual({ a: 1 });
    expect(plainStructure('x')).toEqual({ result: 'x' });
    expect(plainStructure(NO_JSON)).toBeUndefined();
    expect(plainStructure(NOTHING)).toBeUndefined();
  });

  it("advertised: wrapped when the spec's answer is not an object, and checked", () => {
    expect(advertisedStructure({ schema: {}, wrap: true }, schemaCheck(true))([1])).toEqual({ result: [1] });
    expect(advertisedStructure({ schema: {}, wrap: false }, schemaCheck(true))(NOTHING)).toEqual({});
    expect(advertisedStructure({ schema: {}, wrap: true }, schemaCheck(true))(NOTHING)).toEqual({ result: null });
  });

  it('advertised, but the answer does not keep the promise: a tool error that says which part and shows the answer', () => {
    const structure = advertisedStructure({ schema: {}, wrap: false }, schemaCheck(false));
    expect(structure({ id: 'x' })).toEqual(
      new StructureProblem('the answer does not match the spec\'s response schema (field "id" must be integer)'),
    );
    expect(toToolResult(answer(200, 'application/json', '{"id":"x"}'), structure)).toEqual(
      toolError(
        'HTTP 200 OK from GET https://api.example.com/pets/1, but the answer does not match the spec\'s response schema (field "id" must be integer):\n{"id":"x"}',
      ),
    );
    expect(toToolResult(answer(200, 'text/html', '<p>'), structure).isError).toBe(true); // not the JSON documented
  });
});
