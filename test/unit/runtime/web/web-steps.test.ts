// The web core's steps (web-steps.ts), each served alone through the Node adapter on a real
// listener: the readiness probe, Host and Origin (DNS-rebinding protection), CORS, the shared
// bearer token (RFC 6750), and the JSON body within its size and depth.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerAuth, cors, health, hostOriginGuard, jsonBody, withHeaders, type WebStep } from '../../../../src/runtime/web/web-steps.js';
import { hostnameOf } from '../../../../src/runtime/http/host-names.js';
import { MAX_JSON_DEPTH } from '../../../../src/contract/limits.js';
import { send, serveWebSteps, type StepServer } from '../../../harness/http-steps.js';

let server: StepServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// GET /healthz: 200 while serving, 503 once draining; every other request goes on.
describe('health', () => {
  it.each([
    ['serving', false, 'GET', '/healthz', 200, { status: 'ok' }],
    ['draining', true, 'GET', '/healthz', 503, { status: 'draining' }],
    ['with a query', false, 'GET', '/healthz?probe=1', 200, { status: 'ok' }],
    ['another method goes on', false, 'POST', '/healthz', 200, { passed: true }],
    ['another path goes on', true, 'GET', '/mcp', 200, { passed: true }],
  ])('%s', async (_name, draining, method, path, want, json) => {
    server = await serveWebSteps((request, url) => health(request, url, () => draining));
    expect(await send(server.port, { method, path })).toMatchObject({ status: want, json });
  });
});

// Host and Origin must name this server: loopback names always, other names only when the operator lists them.
describe('hostOriginGuard', () => {
  const NONE = { allowedHosts: [], allowedOrigins: [], corsOrigins: [] };

  it.each([
    ['loopback Host, no Origin', NONE, { host: '127.0.0.1:1' }, 200],
    ['localhost Host', NONE, { host: 'localhost:1' }, 200],
    ['IPv6 loopback Host', NONE, { host: '[::1]:1' }, 200],
    ['a foreign Host', NONE, { host: 'evil.example' }, 403],
    ['a listed Host', { ...NONE, allowedHosts: ['api.example.com'] }, { host: 'api.example.com' }, 200],
    [
      'a listed Host given with scheme and port',
      { ...NONE, allowedHosts: ['https://api.example.com:8443'] },
      { host: 'api.example.com:8443' },
      200,
    ],
    ['a loopback Origin', NONE, { host: 'localhost', origin: 'http://localhost:5173' }, 200],
    ['a foreign Origin', NONE, { host: 'localhost', origin: 'http://evil.example' }, 403],
    [
      'a listed Origin',
      { ...NONE, allowedOrigins: ['https://app.example.com'] },
      { host: 'localhost', origin: 'https://app.example.com' },
      200,
    ],
    [
      'an Origin on a listed Host',
      { ...NONE, allowedHosts: ['app.example.com'] },
      { host: 'localhost', origin: 'https://app.example.com' },
      200,
    ],
    ['a CORS origin', { ...NONE, corsOrigins: ['https://web.example'] }, { host: 'localhost', origin: 'https://web.example' }, 200],
    ['any Origin with CORS *', { ...NONE, corsOrigins: ['*'] }, { host: 'localhost', origin: 'http://evil.example' }, 200],
    ['CORS * still checks the Host', { ...NONE, corsOrigins: ['*'] }, { host: 'evil.example', origin: 'http://evil.example' }, 403],
    [
      "the OAuth public URL's host and origin",
      { ...NONE, oauth: { publicUrl: 'https://mcp.example.com' } as never },
      { host: 'mcp.example.com', origin: 'https://mcp.example.com' },
      200,
    ],
    ['only that host', { ...NONE, oauth: { publicUrl: 'https://mcp.example.com' } as never }, { host: 'evil.example' }, 403],
  ])('%s', async (_name, config, headers, want) => {
    server = await serveWebSteps(hostOriginGuard(config));
    const answer = await send(server.port, { headers });
    expect(answer.status).toBe(want);
    if (want === 403) expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });
});

describe('hostnameOf', () => {
  it.each([
    ['https://app.example.com:8443', 'app.example.com'],
    ['app.example.com:8443', 'app.example.com'],
    ['app.example.com', 'app.example.com'],
    ['http://[::1]:3000', '[::1]'],
    ['http://exa mple', 'http://exa mple'],
  ])('%s → %s', (given, want) => {
    expect(hostnameOf(given)).toBe(want);
  });
});

/** CORS as the core applies it: a preflight answered, the headers added to whatever answers next. */
function corsStep(origins: string[]): WebStep {
  const rule = cors(origins);
  return (request) => {
    const allowed = rule(request);
    return allowed.preflight ?? withHeaders(Response.json({ passed: true }), allowed.headers);
  };
}

// CORS headers only for listed origins; their preflight is answered without going further.
describe('cors', () => {
  it.each([
    ['off: no header', [], 'GET', 'https://web.example', 200, undefined],
    ['off: a preflight goes on', [], 'OPTIONS', 'https://web.example', 200, undefined],
    ['a listed origin', ['https://web.example'], 'GET', 'https://web.example', 200, 'https://web.example'],
    ['an unlisted origin', ['https://web.example'], 'GET', 'https://other.example', 200, undefined],
    ['no Origin', ['https://web.example'], 'POST', undefined, 200, undefined],
    ['a listed preflight', ['https://web.example'], 'OPTIONS', 'https://web.example', 204, 'https://web.example'],
    ['an unlisted preflight goes on', ['https://web.example'], 'OPTIONS', 'https://other.example', 200, undefined],
    ['any origin', ['*'], 'GET', 'https://any.example', 200, '*'],
  ])('%s', async (_name, origins, method, origin, want, allowOrigin) => {
    server = await serveWebSteps(corsStep(origins));
    const answer = await send(server.port, { method, headers: origin === undefined ? {} : { origin } });
    expect(answer.status).toBe(want);
    expect(answer.headers['access-control-allow-origin']).toBe(allowOrigin);
    if (allowOrigin !== undefined) {
      expect(answer.headers.vary).toBe('Origin');
      expect(answer.headers['access-control-expose-headers']).toBe('Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
    }
  });

  it('the preflight names the methods and headers an MCP client sends', async () => {
    server = await serveWebSteps(corsStep(['https://web.example']));
    const answer = await send(server.port, { method: 'OPTIONS', headers: { origin: 'https://web.example' } });
    expect(answer.headers).toMatchObject({
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': 'Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept',
      'access-control-max-age': '600',
    });
    expect(answer.text).toBe('');
  });
});

// Exactly "Bearer " and the token's bytes, nothing trimmed; a missing and a wrong token are told apart in WWW-Authenticate.
describe('bearerAuth', () => {
  const MISSING = 'Bearer realm="mcp"';
  const INVALID = 'Bearer realm="mcp", error="invalid_token"';

  it.each([
    ['no token configured, no header', undefined, undefined, 200, undefined],
    ['no token configured, any header', undefined, 'Bearer whatever', 200, undefined],
    ['the token', 's3cret', 'Bearer s3cret', 200, undefined],
    ['the scheme in any case', 's3cret', 'bEARER s3cret', 200, undefined],
    ['no header', 's3cret', undefined, 401, MISSING],
    ['another scheme', 's3cret', 'Basic czNjcmV0', 401, MISSING],
    ['a wrong token', 's3cret', 'Bearer secret', 401, INVALID],
    ['a prefix of the token', 's3cret', 'Bearer s3cre', 401, INVALID],
    ['two spaces', 's3cret', 'Bearer  s3cret', 401, INVALID],
    ['a latin1 token, byte for byte', 'p\u00e4ss', 'Bearer p\u00e4ss', 200, undefined],
  ])('%s', async (_name, token, authorization, want, challenge) => {
    server = await serveWebSteps(bearerAuth(token));
    const answer = await send(server.port, { headers: authorization === undefined ? {} : { authorization } });
    expect(answer.status).toBe(want);
    expect(answer.headers['www-authenticate']).toBe(challenge);
    if (want === 401) expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
  });
});

// A POST body is JSON, within MCP_MAX_REQUEST_BYTES and MAX_JSON_DEPTH, before the MCP handler sees it.
describe('jsonBody', () => {
  const JSON_TYPE = { 'content-type': 'application/json' };
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

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
    server = await serveWebSteps(jsonBody(1000));
    const answer = await send(server.port, { method, headers, body });
    expect(answer.status).toBe(want);
    expect(answer.json).toMatchObject(json);
  });

  it('refuses a body announced too large before reading it', async () => {
    server = await serveWebSteps(jsonBody(10));
    const answer = await send(server.port, { method: 'POST', headers: { ...JSON_TYPE, 'content-length': '11' }, body: '"123456789"' });
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ error: { code: -32000, message: 'Request body too large (more than 10 bytes)' } });
  });

  it('refuses a chunked body once it grows too large', async () => {
    server = await serveWebSteps(jsonBody(10));
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
    server = await serveWebSteps(jsonBody(10));
    const answer = await send(server.port, { method: 'POST', headers: JSON_TYPE, body: '"12345678"' });
    expect(answer).toMatchObject({ status: 200, json: { body: '12345678' } });
  });
});
