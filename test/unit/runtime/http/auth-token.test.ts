// The Node server warns when it serves a reachable interface without a token (the token itself
// is the web core's step: test/unit/runtime/web/web-steps.test.ts).
import { describe, expect, it } from 'vitest';
import { warnIfOpen } from '../../../../src/runtime/http/auth-token.js';
import { recordingLogger } from '../../../harness/http-steps.js';

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
