// One decision of what a media type carries (src/contract/media.ts), shared by the request
// side, the answer side and the generator. Cases follow the registrations they cite.
import { describe, expect, it } from 'vitest';
import { bodyKindOf, concreteMediaType, essence, isTextual, mediaKind, type MediaKind } from '../../../src/contract/media.js';
import { toToolResult } from '../../../src/runtime/call/answer/response.js';
import { buildRequest } from '../../../src/runtime/call/request/request.js';

describe('mediaKind', () => {
  const cases: [string, MediaKind][] = [
    ['application/json', 'json'],
    ['Application/JSON; charset=utf-8', 'json'], // RFC 9110 §8.3.1: type and subtype are case-insensitive
    ['application/problem+json', 'json'], // RFC 6839 §3.1 structured syntax suffix
    ['application/vnd.api+json', 'json'],
    ['application/merge-patch+json', 'json'],
    ['text/json', 'json'],
    ['application/x-ndjson', 'ndjson'],
    ['application/jsonl', 'ndjson'],
    ['application/json-seq', 'ndjson'], // RFC 7464: records, not one JSON text
    ['application/x-www-form-urlencoded', 'form'],
    ['multipart/form-data', 'multipart'],
    ['text/plain', 'text'],
    ['text/csv', 'text'],
    ['application/xml', 'text'],
    ['application/atom+xml', 'text'], // RFC 7303 §4.2
    ['application/problem+xml', 'text'], // RFC 9457 §6.2
    ['application/sql', 'text'], // RFC 6922: SQL text; was text when sent but base64 when received
    ['application/graphql', 'text'],
    ['application/yaml', 'text'],
    ['application/vnd.custom+yaml', 'text'],
    ['application/x-custom; charset=utf-8', 'text'], // a charset only makes sense for characters
    ['application/octet-stream', 'binary'],
    ['application/pdf', 'binary'],
    ['image/png', 'binary'],
    ['application/zip', 'binary'],
  ];
  it.each(cases)('%s is %s', (type, kind) => {
    expect(mediaKind(type)).toBe(kind);
  });

  it('textual kinds are those shown as characters', () => {
    expect((['json', 'form', 'multipart', 'ndjson', 'text', 'binary'] as MediaKind[]).filter(isTextual)).toEqual([
      'json',
      'form',
      'ndjson',
      'text',
    ]);
  });
});

describe('essence and concreteMediaType', () => {
  it('essence drops parameters and lower-cases', () => {
    expect(essence(' Text/HTML ; charset=UTF-8')).toBe('text/html');
  });
  it.each([
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['text/*', 'text/plain'],
    ['image/*', 'application/octet-stream'],
    ['application/*+json', 'application/json'], // RFC 6839 §3.1: the suffix names the base type
    ['*/*+json', 'application/json'],
    ['application/*+xml', 'application/xml'], // RFC 7303 §4.2
    ['text/*+xml', 'text/xml'],
    ['application/*+yaml', 'application/yaml'], // RFC 9512 §2.2
    ['application/*+unknown', 'application/octet-stream'],
    ['image/png, image/jpeg', 'image/png'], // an Encoding Object's contentType list: the first
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
  ])('a range or list %s is sent as %s', (given, want) => {
    expect(concreteMediaType(given)).toBe(want);
  });
  it.each([
    ['*/*', 'bytes', 'application/octet-stream'],
    ['*/*', 'string', 'text/plain'],
    ['*/*', 'value', 'application/json'],
    ['application/*', 'bytes', 'application/octet-stream'],
    ['application/*', 'string', 'application/json'],
    ['text/*', 'bytes', 'text/plain'],
    ['application/*+json', 'bytes', 'application/json'],
  ] as const)('%s with a %s schema is sent as %s', (range, shape, want) => {
    expect(concreteMediaType(range, shape)).toBe(want);
  });
  it('bodyKindOf judges the type actually sent: application/*+json is JSON, not bytes', () => {
    expect(bodyKindOf('application/*+json')).toBe('json');
    expect(bodyKindOf('application/*+xml')).toBe('text');
    expect(bodyKindOf('*/*', 'bytes')).toBe('binary');
  });
  it('bodyKindOf judges the type actually sent: */* goes as JSON, image/* as bytes', () => {
    expect(bodyKindOf('*/*')).toBe('json');
    expect(bodyKindOf('image/*')).toBe('binary');
  });
});

describe('request and answer sides agree', () => {
  const answer = (contentType: string, text: string) =>
    toToolResult({
      status: 200,
      statusText: 'OK',
      contentType,
      bytes: new TextEncoder().encode(text),
      truncated: false,
      label: 'GET /x',
      uri: 'http://api/x',
    });

  it.each(['application/sql', 'application/x-ndjson', 'application/atom+xml', 'text/csv'])(
    '%s: sent as text, and its answer is text content, not base64',
    (type) => {
      const request = buildRequest(
        { method: 'post', path: '/x', params: [], body: { arg: 'body', required: true, mediaTypes: [type] } },
        { body: 'select 1' },
        'http://api',
      );
      expect(request.body).toBe('select 1');
      expect(answer(type, 'select 1').content).toEqual([{ type: 'text', text: 'select 1' }]);
    },
  );

  it('application/octet-stream: sent from base64, answered as a base64 blob', () => {
    const request = buildRequest(
      { method: 'post', path: '/x', params: [], body: { arg: 'body', required: true, mediaTypes: ['application/octet-stream'] } },
      { body: 'AAE=' },
      'http://api',
    );
    expect([...(request.body as Uint8Array)]).toEqual([0, 1]);
    expect(answer('application/octet-stream', 'ab').content).toEqual([
      { type: 'resource', resource: { uri: 'http://api/x', mimeType: 'application/octet-stream', blob: 'YWI=' } },
    ]);
  });
});
