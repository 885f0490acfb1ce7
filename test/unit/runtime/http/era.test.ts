import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { obviousEra } from '../../../../src/runtime/http/streamable.js';

const CLAIM = 'io.modelcontextprotocol/protocolVersion';
const modernMeta = {
  [CLAIM]: '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (params: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...extra });
const args = { name: 'getPetById', arguments: { petId: 1 } };

/** [what, protocol version header, body]: the common shapes, and the edges where a shortcut could go wrong. */
const CASES: [string, string | undefined, unknown][] = [
  ['a 2025 call', '2025-11-25', call(args)],
  ['a 2025 call without a version header', undefined, call(args)],
  ['a 2025 notification', '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['initialize', undefined, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } }],
  ['a 2026-07-28 call', '2026-07-28', call({ ...args, _meta: modernMeta })],
  ['a 2026-07-28 call without its header', undefined, call({ ...args, _meta: modernMeta })],
  ['a claim with an invalid envelope', '2026-07-28', call({ ...args, _meta: { [CLAIM]: 7 } })],
  ['a claim naming a 2025 version', '2025-11-25', call({ ...args, _meta: { [CLAIM]: '2025-11-25' } })],
  ['initialize with a claim', undefined, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { _meta: modernMeta } }],
  [
    'initialize with a 2025 claim',
    undefined,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { _meta: { [CLAIM]: '2025-11-25' } } },
  ],
  ['a modern header without a claim', '2026-07-28', call(args)],
  ['a header with spaces', ' 2025-11-25 ', call(args)],
  ['an unknown header version', '2024-01-01', call(args)],
  ['_meta without a claim', '2025-11-25', call({ ...args, _meta: { progressToken: 1 } })],
  ['_meta with a bad progress token', '2025-11-25', call({ ...args, _meta: { progressToken: 1.5 } })],
  ['a null _meta', '2025-11-25', call({ ...args, _meta: null })],
  ['params that are not an object', '2025-11-25', call([1])],
  ['null params', '2025-11-25', call(null)],
  ['an extra member', '2025-11-25', call(args, { extra: true })],
  ['a result member', '2025-11-25', call(args, { result: {} })],
  ['a fractional id', '2025-11-25', call(args, { id: 1.5 })],
  ['a null id', '2025-11-25', call(args, { id: null })],
  ['an unsafe id', '2025-11-25', call(args, { id: 2 ** 60 })],
  ['a wrong jsonrpc', '2025-11-25', call(args, { jsonrpc: '1.0' })],
  ['a response', '2025-11-25', { jsonrpc: '2.0', id: 1, result: {} }],
  ['a batch', '2025-11-25', [call(args)]],
  ['a method that is not a string', '2025-11-25', { jsonrpc: '2.0', id: 1, method: 5 }],
];

const request = (version: string | undefined) =>
  ({ method: 'POST', headers: version === undefined ? {} : { 'mcp-protocol-version': version } }) as unknown as IncomingMessage;
const sdkSaysLegacy = (version: string | undefined, body: unknown) =>
  classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, body }).kind === 'legacy';

describe('the era of a POST without the classifier', () => {
  it.each(CASES)('%s: the classifier’s answer, or none', (_what, version, body) => {
    const quick = obviousEra(request(version), body);
    if (quick !== undefined) expect(quick).toBe(sdkSaysLegacy(version, body));
  });

  it.each([
    ['a 2025 call', '2025-11-25', call(args), true],
    ['a 2025 notification', '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' }, true],
    ['initialize', undefined, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } }, true],
    ['a 2026-07-28 call', '2026-07-28', call({ ...args, _meta: modernMeta }), false],
  ])('decides %s itself', (_what, version, body, legacy) => {
    expect(obviousEra(request(version), body)).toBe(legacy);
  });
});
