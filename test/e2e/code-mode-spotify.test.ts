// Code mode (--tools code) on Spotify's real spec, served by `mcp-gen serve` over Streamable
// HTTP on 127.0.0.1 and reached through the official SDK client, as an agent meets it: it asks
// search_api in its own words ("my playlists"), reads the declaration of GET /me/playlists (its
// items' fields, and those of the objects in them, in TypeScript that compiles), and runs a
// program on those fields against a recording upstream.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connect, REPO, startNode, type RunningServer } from '../../harness/project.js';
import { SPOTIFY_SPEC } from '../../harness/corpora.js';
import { typeCheckProblem } from '../../harness/typescript.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const CLI = join(REPO, 'bin/mcp-gen.js');
const SPOTIFY = SPOTIFY_SPEC;
const PLAYLISTS = {
  href: 'https://api.spotify.com/v1/me/playlists',
  total: 2,
  items: [
    { id: 'p1', name: 'Morning', owner: { id: 'u1', display_name: 'Ada' }, tracks: { total: 12 } },
    { id: 'p2', name: 'Evening', owner: { id: 'u2', display_name: 'Bob' }, tracks: { total: 3 } },
  ],
};

let upstream: Upstream;
let server: RunningServer;
let client: Client;

beforeAll(async () => {
  upstream = await startUpstream(() => ({ body: JSON.stringify(PLAYLISTS) }));
  const argv = [CLI, 'serve', SPOTIFY, '--tools', 'code', '--base-url', upstream.url, '--transport', 'http', '--port', '0'];
  // serve reads credentials in mcp-gen's own namespace; a user token of the spec's OAuth scheme.
  server = await startNode([...argv, '--log-level', 'warn'], REPO, { MCPGEN_OAUTH_2_0_TOKEN: 'token-1' });
  client = await connect('http', server.url);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await upstream?.close();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('Spotify in code mode', () => {
  let declared: string;
  beforeAll(async () => {
    declared = text(await client.callTool({ name: 'search_api', arguments: { query: 'my playlists' } }));
  });

  it('"my playlists" finds GET /me/playlists first', () => {
    const [, firstDoc] =
      declared
        .split('\n')
        .filter((line) => line.startsWith('/**'))[0]
        ?.match(/\(([^)]*)\) \*\/$/) ?? [];
    expect(firstDoc).toBe('read-only; GET /me/playlists');
  });

  it("its declaration compiles, and a program reading the items' names and owners type-checks against it", () => {
    const program = `${declared}
declare const api: Api;
type Answer<Name extends keyof Api> = Api[Name] extends (args: never) => Promise<infer R> ? R : never;
declare const page: NonNullable<Answer<"get-a-list-of-current-users-playlists">>;
const playlist = page.items?.[0];
type Text = string | null | undefined;
export const read: Text[] = [playlist?.name, playlist?.id, playlist?.owner?.id, playlist?.owner?.display_name];
export const total: number | null | undefined = playlist?.tracks?.total;
`;
    expect(typeCheckProblem(program)).toBeUndefined();
  });

  it('a program written from it reads those fields from the answer', async () => {
    upstream.clear();
    const result = await client.callTool({
      name: 'execute',
      arguments: {
        code: `const page = await api["get-a-list-of-current-users-playlists"]({ limit: 50 });
return page.items.map((p) => \`\${p.name} by \${p.owner.display_name} (\${p.owner.id})\`);`,
      },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ result: ['Morning by Ada (u1)', 'Evening by Bob (u2)'], calls: 1 });
    expect(upstream.requests.map((r) => `${r.method} ${r.url} ${String(r.headers.authorization)}`)).toEqual([
      'GET /me/playlists?limit=50 Bearer token-1',
    ]);
  });
});
