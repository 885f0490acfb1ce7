// The MCP Registry entry of a generated project (#43): server.json beside package.json, in the
// form of the registry's published schema (2025-12-11: name pattern, description limit, an npm
// package run over stdio), named by --mcp-name as package.json's mcpName, its version package.json's,
// its environment variables the settings table's with the credentials secret. A version bumped
// in package.json and not regenerated makes --check fail; the CLI run as a user runs it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/contract/settings.js';
import { buildCli, REPO } from '../../harness/project.js';
import { runCli } from '../harness/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-registry-'));
const SPEC = join(REPO, 'samples/petstore/openapi.json');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    environmentVariables: { name: string; isSecret?: boolean; isRequired?: boolean }[];
  }[];
}
const read = <T>(dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;

describe('server.json for the MCP Registry', () => {
  it('names the server as --mcp-name says, in package.json too, within the schema, with the settings and secret credentials', () => {
    buildCli();
    const out = join(scratch, 'named');
    const run = runCli([SPEC, '--out', out, '--mcp-name', 'io.github.acme/petstore-mcp'], scratch);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('warning: server.json');
    const server = read<ServerJson>(out, 'server.json');
    const pkg = read<{ name: string; version: string; mcpName: string }>(out, 'package.json');
    expect(server.$schema).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(server.name).toBe('io.github.acme/petstore-mcp');
    expect(pkg.mcpName).toBe(server.name);
    // the schema's limits: one slash, a description of at most 100 characters
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.description.length).toBeGreaterThan(0);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.version).toBe(pkg.version);
    const [npm] = server.packages;
    expect(npm).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } });
    const variables = new Map(npm?.environmentVariables.map((v) => [v.name, v]));
    for (const credential of ['SWAGGER_PETSTORE_API_KEY', 'SWAGGER_PETSTORE_AUTH_TOKEN'])
      expect(variables.get(credential)).toMatchObject({ isSecret: true });
    for (const setting of SETTINGS) expect(variables.get(setting.env)?.isSecret, setting.env).toBeFalsy();
    expect(variables.size).toBe(2 + new Set(SETTINGS.map((s) => s.env)).size);
  });

  it('follows package.json: a version bumped there fails --check until regenerated, then both say it', () => {
    const out = join(scratch, 'bumped');
    expect(runCli([SPEC, '--out', out, '--mcp-name', 'io.github.acme/petstore-mcp'], scratch).code).toBe(0);
    // the line edited as a person edits it
    const text = readFileSync(join(out, 'package.json'), 'utf8');
    writeFileSync(join(out, 'package.json'), text.replace('"version": "1.0.0"', '"version": "1.2.0"'));
    const check = runCli([SPEC, '--out', out, '--mcp-name', 'io.github.acme/petstore-mcp', '--check'], scratch);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('server.json');
    expect(check.stdout).not.toMatch(/^\s*package\.json/m);
    expect(runCli([SPEC, '--out', out, '--mcp-name', 'io.github.acme/petstore-mcp'], scratch).code).toBe(0);
    expect(read<ServerJson>(out, 'server.json').version).toBe('1.2.0');
    expect(read<ServerJson>(out, 'server.json').packages[0]?.version).toBe('1.2.0');
    expect(read<{ version: string }>(out, 'package.json').version).toBe('1.2.0');
    expect(runCli([SPEC, '--out', out, '--mcp-name', 'io.github.acme/petstore-mcp', '--check'], scratch).code).toBe(0);
  });

  it('without --mcp-name, a placeholder name and a warning; a name the registry refuses is a one-line error', () => {
    const run = runCli([SPEC, '--out', join(scratch, 'unnamed')], scratch);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('warning: server.json names the server io.github.your-github-user/swagger-petstore-mcp');
    const bad = runCli([SPEC, '--out', join(scratch, 'bad'), '--mcp-name', 'no slash here'], scratch);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringContaining('--mcp-name "no slash here"')]);
  });
});
