// The last step: the first endpoint set that owns a request answers it; 404 names them all.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson } from '../../../../src/runtime/http/answer.js';
import { routeTo, type HttpEndpoints } from '../../../../src/runtime/http/endpoints.js';
import { send, serveSteps, type StepServer } from '../../../harness/http-steps.js';

/** Endpoints owning some paths, answering with their name. */
function owning(name: string, ...paths: string[]): HttpEndpoints {
  return {
    describe: `${name} at ${paths.join(', ')}`,
    async handle(_req, res: ServerResponse, url) {
      if (!paths.includes(url.pathname)) return false;
      sendJson(res, 200, { by: name });
      return true;
    },
    close: async () => {},
  };
}

describe('routeTo', () => {
  let server: StepServer | undefined;
  afterEach(() => server?.close());

  it.each([
    ['the first owner', '/mcp', 200, { by: 'streamable' }],
    ['the second owner', '/sse', 200, { by: 'legacy' }],
    ['the first of two owners', '/both', 200, { by: 'streamable' }],
    [
      'no owner',
      '/nowhere',
      404,
      { error: { code: -32601, message: 'Not found: GET /nowhere (streamable at /mcp, /both; legacy at /sse, /both)' } },
    ],
  ])('%s', async (_name, path, want, json) => {
    server = await serveSteps(routeTo([owning('streamable', '/mcp', '/both'), owning('legacy', '/sse', '/both')]));
    expect(await send(server.port, { path })).toMatchObject({ status: want, json });
  });
});
