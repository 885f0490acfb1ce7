// A POST body is JSON, within --max-request-bytes and MAX_JSON_DEPTH, before any endpoint sees it.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonBody } from '../../../../src/runtime/http/body.js';
import { MAX_JSON_DEPTH } from '../../../../src/contract/limits.js';
import { send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('jsonBody', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it.each([
    ['a GET passes without a body', 'GET', {}, undefined, 200, { passed: true }],
    ['a JSON POST is parsed', 'POST', JSON_TYPE, '{"id":1}', 200, { passed: true, body: { id: 1 } }],
    ['with a charset', 'POST', { 'content-type': 'application/json; charset=utf-8' }, '[1]', 200, { body: [1] }],
    ['a +json type', 'POST', { 'content-type': 'application/vnd.api+json' }, '"x"', 200, { body: 'x' }],
    ['as deep as allowed', 'POST', JSON_TYPE, nested(MAX_JSON_DEPTH), 200, { passed: true }],
    ['not JSON by its type', 'POST', { 'content-type': 'text/plain' }, '{}', 415, { error: { code: -32000 } }],
    ['no type', 'POST', {}, '{}', 415, { error: { code: -32000 } }],
    ['a look-alike type', 'POST', { 'content-type': 'application/jsonx' }, '{}', 415, { error: { code: -32000 } }],
    ['not valid JSON', 'POST', JSON_TYPE, '{"id":', 400, { error: { code: -32700 } }],
    ['nested too deep', 'POST', JSON_TYPE, nested(MAX_JSON_DEPTH + 1), 400, { error: { code: -32600 } }],
  ])('%s', async (_name, method, headers, body, want, json) => {
    server = await serveSteps(jsonBody(1000));
    const answer = await send(server.port, { method, headers, body });
    expect(answer.status).toBe(want);
    expect(answer.json).toMatchObject(json);
  });

  it('refuses a body announced too large before reading it, and closes the connection', async () => {
    server = await serveSteps(jsonBody(10));
    const answer = await send(server.port, { method: 'POST', headers: { ...JSON_TYPE, 'content-length': '11' }, body: '"123456789"' });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(answer.json).toMatchObject({ error: { code: -32000, message: 'Request body too large (more than 10 bytes)' } });
  });

  it('refuses a chunked body once it grows too large', async () => {
    server = await serveSteps(jsonBody(10));
    const port = server.port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', headers: JSON_TYPE }, (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
      });
      req.on('error', reject);
      req.write('"12345');
      setTimeout(() => req.end('67890"'), 20);
    });
    expect(status).toBe(413);
  });

  it('a body of exactly the limit is read', async () => {
    server = await serveSteps(jsonBody(10));
    const answer = await send(server.port, { method: 'POST', headers: JSON_TYPE, body: '"12345678"' });
    expect(answer).toMatchObject({ status: 200, json: { body: '12345678' } });
  });
});
