// An upstream on a public address may not lead the server into the internal network: an open
// redirect on the API (or a hostile answer) pointing at the cloud's metadata service or an admin
// port beside the server is refused, for a spec the user reviewed too. The "public" upstream is
// this machine's own address outside the internal ranges; the internal one listens on 127.0.0.1
// and must see no request. An upstream on an internal address redirecting to another internal
// origin is still followed (upstream-security.test.ts, "a redirect to another origin").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO, startNode, TMP, type RunningServer } from '../../harness/project.js';
import { publicAddress, startUpstream, type Upstream } from '../harness/upstream.js';
import { textOf } from '../harness/wire.js';

const CLI = join(REPO, 'bin/mcp-gen.js');
const op = (id: string) => ({ get: { operationId: id, responses: { '200': { description: 'ok' } } } });

const TITLE = 'redirects from a public upstream into the internal network';
const SKIPPED = ' (skipped: this machine has no address outside the internal ranges to stand for a public upstream)';

describe.skipIf(publicAddress === undefined)(publicAddress === undefined ? TITLE + SKIPPED : TITLE, () => {
  let internal: Upstream; // the metadata service: must see nothing
  let elsewhere: Upstream; // another public origin
  let api: Upstream;
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    buildCli();
    const host = publicAddress as string;
    internal = await startUpstream(() => ({ body: '{"AccessKeyId":"ASIA-internal"}' }));
    elsewhere = await startUpstream(
      (req) =>
        req.path === '/bounce' ? { status: 302, headers: { location: `${internal.url}/latest/meta-data` } } : { body: '{"ok":true}' },
      host,
    );
    api = await startUpstream((req) => {
      if (req.path === '/api/to-internal') return { status: 302, headers: { location: `${internal.url}/latest/meta-data` } };
      if (req.path === '/api/to-public') return { status: 302, headers: { location: `${elsewhere.url}/landing` } };
      if (req.path === '/api/via-public') return { status: 307, headers: { location: `${elsewhere.url}/bounce` } };
      if (req.path === '/api/same') return { status: 302, headers: { location: '/api/landing' } };
      return { body: '{"ok":true}' };
    }, host);
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Public API', version: '1' },
      servers: [{ url: `${api.url}/api` }],
      paths: { '/to-internal': op('toInternal'), '/to-public': op('toPublic'), '/via-public': op('viaPublic'), '/same': op('same') },
    };
    const specDir = join(TMP, 'redirect-into-internal');
    mkdirSync(specDir, { recursive: true });
    writeFileSync(join(specDir, 'openapi.json'), JSON.stringify(spec));
    server = await startNode([CLI, 'serve', join(specDir, 'openapi.json'), '--transport', 'http', '--port', '0'], specDir);
    client = await connect('http', server.url);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    await Promise.all([internal?.close(), elsewhere?.close(), api?.close()]);
  });

  it('a redirect straight to an internal address is refused, naming the rule, and the internal host sees nothing', async () => {
    internal.clear();
    const result = await client.callTool({ name: 'toInternal', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toMatch(
      new RegExp(
        `not followed: a redirect from the public ${api.url.replace(/[.]/g, '\\.')} into the internal network: 127\\.0\\.0\\.1 is an internal address`,
      ),
    );
    expect(internal.requests).toHaveLength(0);
  });

  it('nor through another public origin first', async () => {
    internal.clear();
    elsewhere.clear();
    const result = await client.callTool({ name: 'viaPublic', arguments: {} });
    expect(result.isError).toBe(true);
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/bounce']);
    expect(internal.requests).toHaveLength(0);
  });

  it('a redirect to another public origin, or within the API, is followed', async () => {
    elsewhere.clear();
    const toPublic = await client.callTool({ name: 'toPublic', arguments: {} });
    expect(toPublic.isError).toBeFalsy();
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/landing']);
    api.clear();
    const same = await client.callTool({ name: 'same', arguments: {} });
    expect(same.isError).toBeFalsy();
    expect(api.requests.map((r) => r.path)).toEqual(['/api/same', '/api/landing']);
  });
});
