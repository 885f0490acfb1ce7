// OAS 3.2 `additionalOperations` served by `mcp-gen serve` and called by the official SDK client:
// each method goes out exactly as its key spells it (RFC 9110 §9.1: methods are case-sensitive),
// the upstream recording the request line itself; the tools' annotations say what HTTP says of
// the method; a key that repeats a fixed field's method in another case is left out with a warning.
// 3.0 and 3.1 documents' x-oai-additionalOperations, the extension 3.2 standardised, the same way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildCli, connect, REPO } from '../../harness/project.js';
import { startRequestLineUpstream } from '../harness/upstream.js';
import { runCli } from '../harness/cli.js';

const BIN = join(REPO, 'bin/mcp-gen.js');
const SPEC = join(REPO, 'test/fixtures/openapi-3.2/additional-methods.yaml');
const FIXED_KEY_SPEC = join(REPO, 'test/fixtures/openapi-3.2/additional-methods-fixed-key.yaml');
const EXTENSION_SPEC = join(REPO, 'test/fixtures/openapi-3.2/x-oai-additional-methods.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-methods-e2e-'));

let upstream: Awaited<ReturnType<typeof startRequestLineUpstream>>;
let client: Client;
let extensionClient: Client;
const serve = (spec: string) =>
  connect('stdio', REPO, { argv: [BIN, 'serve', spec, '--base-url', upstream.url, '--log-level', 'warn', '--tools', 'direct'] });
beforeAll(async () => {
  buildCli();
  upstream = await startRequestLineUpstream();
  client = await serve(SPEC);
  extensionClient = await serve(EXTENSION_SPEC);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await extensionClient?.close();
  await upstream?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('additionalOperations', () => {
  it('sends each method exactly as its key spells it', async () => {
    for (const name of ['purgePage', 'linkPage', 'pageProperties', 'refreshPage']) {
      const result = await client.callTool({ name, arguments: { page: 'home' } });
      expect(result.isError, name).toBeFalsy();
    }
    expect(upstream.lines).toEqual([
      'PURGE /pages/home HTTP/1.1',
      'LINK /pages/home HTTP/1.1',
      'PROPFIND /pages/home HTTP/1.1',
      'Refresh /pages/home HTTP/1.1',
    ]);
  });

  it("annotates a method as IANA's registry does, and an unregistered one as neither safe nor idempotent", async () => {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t.annotations]));
    expect(tools.get('pageProperties')).toMatchObject({ readOnlyHint: true });
    expect(tools.get('linkPage')).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    for (const unknown of ['purgePage', 'refreshPage']) {
      expect(tools.get(unknown)?.readOnlyHint, unknown).toBe(false);
      expect(tools.get(unknown)?.idempotentHint, unknown).toBeUndefined();
    }
  });

  it("leaves out a key that repeats a fixed field's method in another case, with a one-line warning at its pointer", async () => {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).not.toContain('lowerCaseGet');
    const run = runCli([SPEC, '--dry-run', '-o', join(scratch, 'out')], scratch);
    expect(run.code).toBe(0);
    const lines = (run.stdout + run.stderr).split('\n').filter((line) => line.includes('additionalOperations/get'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/#\/paths\/~1pages~1\{page\}\/additionalOperations\/get/);
    expect(lines[0]).toMatch(/GET/);
  });

  it("refuses a key that is a fixed field's method, in one line at its pointer", () => {
    const run = runCli([FIXED_KEY_SPEC, '--dry-run', '-o', join(scratch, 'fixed')], scratch);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `mcp-gen: error: ${FIXED_KEY_SPEC}#/paths/~1pages~1{page}/additionalOperations/POST: not a valid OpenAPI 3.2 document: the name "POST" is a method with a field of its own: describe the operation under "post"`,
    ]);
  });
});

describe('x-oai-additionalOperations in a 3.1 document', () => {
  it('sends each method exactly as its key spells it, annotated as the registry says', async () => {
    upstream.lines.length = 0;
    for (const name of ['pageProperties', 'queryPage']) {
      const result = await extensionClient.callTool({ name, arguments: { page: 'home' } });
      expect(result.isError, name).toBeFalsy();
    }
    expect(upstream.lines).toEqual(['PROPFIND /pages/home HTTP/1.1', 'QUERY /pages/home HTTP/1.1']);
    const tools = new Map((await extensionClient.listTools()).tools.map((t) => [t.name, t.annotations]));
    expect(tools.get('pageProperties')).toMatchObject({ readOnlyHint: true });
    expect([...tools.keys()].sort()).toEqual(['getPage', 'pageProperties', 'queryPage']);
  });

  it("leaves out a fixed field's method in another case and CONNECT, each with a one-line warning at its pointer", () => {
    const run = runCli([EXTENSION_SPEC, '--dry-run', '-o', join(scratch, 'extension')], scratch);
    expect(run.code).toBe(0);
    const at = (key: string) => (run.stdout + run.stderr).split('\n').filter((line) => line.includes(`x-oai-additionalOperations/${key}`));
    expect(at('get')).toHaveLength(1);
    expect(at('get')[0]).toMatch(/#\/paths\/~1pages~1\{page\}\/x-oai-additionalOperations\/get.*left out/);
    expect(at('CONNECT')).toHaveLength(1);
    expect(at('CONNECT')[0]).toMatch(/#\/paths\/~1pages~1\{page\}\/x-oai-additionalOperations\/CONNECT.*tunnel.*left out/);
  });

  it("refuses a key that is a fixed field's method, in one line at its pointer", () => {
    const spec = join(scratch, 'extension-fixed-key.json');
    const operation = { operationId: 'shadow', responses: { '200': { description: 'ok' } } };
    const doc = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/pages': { 'x-oai-additionalOperations': { POST: operation } } },
    };
    writeFileSync(spec, JSON.stringify(doc));
    const run = runCli([spec, '--dry-run', '-o', join(scratch, 'extension-fixed')], scratch);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `mcp-gen: error: ${spec}#/paths/~1pages/x-oai-additionalOperations/POST: the name "POST" is a method with a field of its own: describe the operation under "post"`,
    ]);
  });
});
