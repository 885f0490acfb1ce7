// The last step of a call (src/runtime/call/answer/shape.ts): the structure a good answer goes back
// with, a refused resources/read, and every text without the credentials in use.
import { describe, expect, it } from 'vitest';
import { StructureProblem, type OutputCheck } from '../../../../../src/runtime/mcp/output.js';
import type { UpstreamAnswer } from '../../../../../src/runtime/call/answer/response.js';
import { refusal, structureFor } from '../../../../../src/runtime/call/answer/shape.js';
import { createRedactor } from '../../../../../src/runtime/call/answer/redact.js';
import type { ToolSpec, ToolTable } from '../../../../../src/contract/table.js';

const base = {
  name: 't',
  description: '',
  inputSchema: { type: 'object' },
  defs: [],
  annotations: {},
  http: { method: 'GET', path: '/', params: [] },
};
const plain = base as ToolSpec;
const documented = { ...base, output: { schema: { type: 'object' }, defs: [], wrap: false } } as ToolSpec;
const wrapped = { ...base, output: { schema: { type: 'object' }, defs: [], wrap: true } } as ToolSpec;
/** A check that takes objects with a string `name`, or a wrapped `result`. */
const named = (): OutputCheck =>
  Object.assign((value: unknown) => typeof (value as { name?: unknown }).name === 'string' || Object.hasOwn(value as object, 'result'), {
    describe: () => 'field "name": must be string',
  });

describe('structureFor', () => {
  it.each([
    ['no outputSchema: objects as they are', plain, true, { name: 1 }, { name: 1 }],
    ['no outputSchema: other values wrapped', plain, true, [1], { result: [1] }],
    ['not advertised: as if there were none', documented, false, { name: 1 }, { name: 1 }],
    ['advertised and fitting', documented, true, { name: 'Rex' }, { name: 'Rex' }],
    ['advertised and wrapped', wrapped, true, 'Rex', { result: 'Rex' }],
    [
      'advertised, not fitting: why',
      documented,
      true,
      { name: 1 },
      new StructureProblem('the answer does not match the spec\'s response schema (field "name": must be string)'),
    ],
  ])('%s', (_name, tool, advertised, json, want) => {
    expect(structureFor(tool, advertised, named)(json)).toEqual(want);
  });
});

describe('createRedactor', () => {
  const table = {
    auth: { key: { type: 'apiKey', in: 'header', name: 'X-Key', env: { key: 'API_KEY' } } },
    tools: [{ hidden: { tenant: { env: 'TENANT_TOKEN' }, region: { env: 'TENANT_REGION' }, org: { value: 'acme' } } }],
  } as unknown as ToolTable;
  const redactor = createRedactor(table, { API_KEY: 'env-secret', TENANT_TOKEN: 'tenant-secret', TENANT_REGION: 'eu-west' }, [
    ['X-Static', 'static-secret'],
  ]);
  it('takes out the values of hidden arguments read from variables named as secrets, and only those', () => {
    expect(redactor.text('tenant-secret eu-west acme', new Map())).toBe('*** eu-west acme');
  });
  it('takes out the environment’s secrets, the static headers and the call’s own credentials', () => {
    const text = 'env-secret static-secret client-secret abc https://user:pw@host/';
    expect(redactor.text(text, new Map([['key', 'client-secret']]))).toBe('*** *** *** abc https://***@host/');
  });
  it('redacts the texts of a result and leaves the rest', () => {
    const result = {
      isError: true,
      content: [
        { type: 'text' as const, text: 'sent env-secret' },
        { type: 'image' as const, data: 'env-secret', mimeType: 'image/png' },
      ],
    };
    expect(redactor.result(result, new Map())).toEqual({
      isError: true,
      content: [
        { type: 'text', text: 'sent ***' },
        { type: 'image', data: 'env-secret', mimeType: 'image/png' },
      ],
    });
  });
});

describe('refusal', () => {
  it('keeps status and request, and a bounded excerpt passed through the redaction', () => {
    const answer: UpstreamAnswer = {
      status: 403,
      statusText: 'Forbidden',
      contentType: 'text/plain',
      bytes: new TextEncoder().encode(`key k-1 refused ${'x'.repeat(5000)}`),
      truncated: false,
      label: 'GET https://api.example/x',
      uri: 'https://api.example/x',
    };
    const got = refusal(answer, (text) => text.replace('k-1', '***'));
    expect({ ...got, excerpt: got.excerpt.slice(0, 20) }).toEqual({
      status: 403,
      statusText: 'Forbidden',
      label: 'GET https://api.example/x',
      excerpt: 'key *** refused xxxx',
    });
    expect(got.excerpt.endsWith(' […]')).toBe(true);
  });
});
