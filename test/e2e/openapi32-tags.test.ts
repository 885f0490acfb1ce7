// OAS 3.2 hierarchical tags (`parent`): the Petstore fixture's `store` tag has no operation of its
// own, only the tags nested in it (store ⊃ pets ⊃ adoptions). The generation summary names it as a
// toolset with the tools enabling it lists, and a server from `mcp-gen serve` in toolsets mode
// lets the official SDK client enable it, which lists its children's tools.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { runCli } from '../harness/cli.js';
import { textOf } from '../harness/wire.js';
import type { CallToolResult } from '@modelcontextprotocol/client';

const BIN = join(REPO, 'bin/mcp-gen.js');
const SPEC = join(REPO, 'test/fixtures/openapi-3.2/petstore.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-tags-e2e-'));

beforeAll(() => buildCli(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a parent tag with no operations of its own', () => {
  it('is a toolset in the generation summary, counting the tools of the toolsets nested in it', () => {
    const run = runCli([SPEC, '--dry-run', '-o', join(scratch, 'out')], scratch);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').filter((line) => line.includes('toolsets:'))).toEqual([
      '  toolsets: 3: pets (7), store (7), adoptions (2)',
    ]);
  });

  it('is listed and enabled by list_toolsets and enable_toolset, which list its children', async () => {
    const client = await connect('stdio', REPO, {
      argv: [BIN, 'serve', SPEC, '--log-level', 'warn', '--tools', 'toolsets', '--base-url', 'http://127.0.0.1:9'],
      env: { PETSTORE_AUTH_TOKEN: 'token' },
    });
    try {
      const listed = textOf((await client.callTool({ name: 'list_toolsets', arguments: {} })) as CallToolResult);
      expect(listed).toMatch(/store/);
      const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'store' } });
      expect(enabled.isError).toBeFalsy();
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['listPets', 'copyPet', 'adoptPet', 'adoptionEvents']));
    } finally {
      await client.close();
    }
  });
});
