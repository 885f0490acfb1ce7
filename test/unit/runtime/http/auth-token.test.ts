// The endpoint's bearer token (RFC 6750): exactly "Bearer " and the token's bytes, nothing
// trimmed; a missing and a wrong token are told apart in WWW-Authenticate.
import { afterEach, describe, expect, it } from 'vitest';
import { bearerAuth, warnIfOpen } from '../../../../src/runtime/http/auth-token.js';
import { recordingLogger, send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

const MISSING = 'Bearer realm="mcp"';
const INVALID = 'Bearer realm="mcp", error="invalid_token"';

describe('bearerAuth', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

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
    server = await serveSteps(bearerAuth(token));
    const answer = await send(server.port, { headers: authorization === undefined ? {} : { authorization } });
    expect(answer.status).toBe(want);
    expect(answer.headers['www-authenticate']).toBe(challenge);
    if (want === 401) expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
  });
});

describe('warnIfOpen', () => {
  it.each([
    ['loopback without a token', { host: '127.0.0.1', authToken: undefined }, false],
    ['localhost without a token', { host: 'localhost', authToken: undefined }, false],
    ['all interfaces with a token', { host: '0.0.0.0', authToken: 't' }, false],
    ['all interfaces without a token', { host: '0.0.0.0', authToken: undefined }, true],
  ])('%s', (_name, config, warned) => {
    const log = recordingLogger();
    warnIfOpen(config, log);
    expect(log.lines.some((line) => line.startsWith('warn: serving on 0.0.0.0 without MCP_AUTH_TOKEN'))).toBe(warned);
  });
});
