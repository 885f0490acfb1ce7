// `--overlay` and the config file's `overlays`, run as a user runs them: the built CLI on the
// Petstore sample with an overlay that renames and describes an operation, removes one, marks
// the deletes with the x-mcp extension mcp-gen honours and points the servers at a recording
// upstream. generate, --check, diff and serve (through the official SDK client) all see it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';
import { runCli, type CliRun } from '../harness/cli.js';
import type { ToolTable } from '../../src/contract/table.js';

const BIN = join(REPO, 'bin/mcp-gen.js');
const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-overlay-e2e-'));

/** What a team writes to adapt the vendor's Petstore (Overlay 1.1). */
const overlayText = (upstreamUrl: string, description = 'Pets that are available, pending or sold, by status.') => `overlay: 1.1.0
info:
  title: Petstore for our agents
  version: 1.0.0
actions:
  - target: $.paths['/pet/findByStatus'].get
    description: a name and a description an agent understands
    update:
      summary: Search pets by status
      description: ${description}
      x-mcp: { name: search_pets_by_status }
  - target: $.paths['/pet/{petId}'].delete
    description: agents never delete pets
    remove: true
  - target: $.paths.*.delete
    description: every other delete waits for the user's yes
    update:
      x-mcp: { confirm: true }
  - target: $.servers
    remove: true
  - target: $
    update:
      servers: [{ url: '${upstreamUrl}/v2' }]
  - target: $.paths['/pets'].get
    description: an operation of another version of the API
    update: { summary: List pets }
`;

const cli = (args: string[], cwd = scratch) => runCli(args, cwd);

const toolsOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable).tools;

let upstream: Upstream;
let overlay: string;
beforeAll(async () => {
  buildCli();
  upstream = await startUpstream(() => ({ body: '[{"id":1,"name":"doggie","status":"sold"}]' }));
  overlay = join(scratch, 'agents.overlay.yaml');
  writeFileSync(overlay, overlayText(upstream.url));
});
afterAll(async () => {
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('mcp-gen <spec> --overlay', () => {
  const out = join(scratch, 'petstore-mcp');
  let generated: CliRun;
  beforeAll(() => {
    generated = cli([PETSTORE, '--overlay', overlay, '--out', out]);
  });

  it('generates the tools the overlaid spec describes', () => {
    expect(generated.code, generated.stderr).toBe(0);
    const tools = toolsOf(out);
    const search = tools.find((t) => t.operationId === 'findPetsByStatus');
    expect(search?.name).toBe('search_pets_by_status');
    expect(search?.description).toMatch(/^Search pets by status\n\nPets that are available, pending or sold, by status\./);
    expect(tools.map((t) => t.operationId)).not.toContain('deletePet');
    expect(tools.filter((t) => t.http.method === 'DELETE').map((t) => [t.operationId, t.confirm])).toEqual([
      ['deleteOrder', true],
      ['deleteUser', true],
    ]);
    expect(tools).toHaveLength(19);
  });

  it('says which action matched nothing, naming the overlay file and the action', () => {
    expect(generated.stdout).toContain(
      `  warning: ${overlay}#/actions/5: overlay action 5: target "$.paths['/pets'].get" matches nothing, so it changes nothing`,
    );
  });

  it('--check with the same overlay is clean; with a changed overlay it lists tools.json', () => {
    const clean = cli([PETSTORE, '--overlay', overlay, '--out', out, '--check']);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/is up to date \(19 tools\)/);
    const changed = join(scratch, 'changed.overlay.yaml');
    writeFileSync(changed, overlayText(upstream.url, 'Pets by status, newest first.'));
    const drift = cli([PETSTORE, '--overlay', changed, '--out', out, '--check']);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toMatch(/is out of date; \d+ files? would change:/);
    expect(drift.stdout).toContain('  ~ tools.json');
    const without = cli([PETSTORE, '--out', out, '--check']);
    expect(without.code).toBe(1);
  });

  it('the config file\'s "overlays", relative to the file, give the same project', () => {
    const folder = join(scratch, 'config');
    mkdirSync(join(folder, 'overlays'), { recursive: true });
    writeFileSync(join(folder, 'overlays', 'agents.yaml'), overlayText(upstream.url));
    writeFileSync(
      join(folder, 'mcp-gen.config.json'),
      JSON.stringify({ spec: PETSTORE, overlays: ['overlays/agents.yaml'], out: 'server' }),
    );
    const r = cli(['--quiet'], folder);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(folder, 'server', 'tools.json'), 'utf8')).toBe(readFileSync(join(out, 'tools.json'), 'utf8'));
  });

  it('a malformed overlay is one line naming the file and the action, exit 1', () => {
    const bad = join(scratch, 'bad.overlay.yaml');
    writeFileSync(bad, overlayText(upstream.url).replace("$.paths['/pet/{petId}'].delete", '$.paths[/pet].delete'));
    const r = cli([PETSTORE, '--overlay', bad, '--out', join(scratch, 'never')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^mcp-gen: error: .*bad\.overlay\.yaml#\/actions\/1\/target: "target" "\$\.paths\[\/pet\]\.delete" is not an RFC 9535 JSONPath query: /,
      ),
    ]);
  });
});

describe('mcp-gen diff --overlay', () => {
  it('applies the overlay to both specs: only the real change shows, under the overlaid names', () => {
    const doc = JSON.parse(readFileSync(PETSTORE, 'utf8')) as { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
    doc.paths['/pet/findByStatus']!.get!.parameters!.push({ name: 'limit', in: 'query', required: true, schema: { type: 'integer' } });
    const after = join(scratch, 'petstore-after.json');
    writeFileSync(after, JSON.stringify(doc));
    const r = cli(['diff', PETSTORE, after, '--overlay', overlay]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'BREAKING  search_pets_by_status: argument "limit" added as required',
      '1 change, 1 breaking',
    ]);
  });
});

describe('mcp-gen serve --overlay', () => {
  it('serves the overlaid tools, and a call reaches the server the overlay named', async () => {
    const client = await connect('stdio', REPO, {
      argv: [BIN, 'serve', PETSTORE, '--overlay', overlay, '--log-level', 'warn'],
      env: { MCPGEN_API_KEY: 'key-1', MCPGEN_PETSTORE_AUTH_TOKEN: 'token-1' },
    });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('search_pets_by_status');
      expect(names).not.toContain('findPetsByStatus');
      expect(names).not.toContain('deletePet');
      upstream.clear();
      const result = await client.callTool({ name: 'search_pets_by_status', arguments: { status: ['sold'] } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v2/pet/findByStatus?status=sold']);
    } finally {
      await client.close();
    }
  });
});
