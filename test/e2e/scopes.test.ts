// The config file's OAuth scope rules, as a user runs them: the built CLI generates the Petstore
// sample with a config file, and the written tools.json carries each tool's scopes; the tools no
// rule matches carry none, and are otherwise what a generation without rules writes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPO, TMP } from '../../harness/project.js';
import type { ToolSpec, ToolTable } from '../../src/contract/table.js';

const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
const DIR = join(TMP, 'e2e-scopes');

/** `mcp-gen <spec> --out <DIR>/<out> --config <DIR>/<name>.json` with `config` as the file; its tools.json and stdout. */
function generateWith(name: string, config: object): { table: ToolTable; stdout: string } {
  const file = join(DIR, `${name}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  const out = join(DIR, name);
  const r = spawnSync(process.execPath, [join(REPO, 'bin/mcp-gen.js'), PETSTORE, '--out', out, '--force', '--config', file], {
    cwd: DIR,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.status, r.stderr).toBe(0);
  return { table: JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as ToolTable, stdout: r.stdout };
}

const toolsets = { admin: { tags: ['user'] } };
let withRules: { table: ToolTable; stdout: string };
let without: ToolTable;

beforeAll(() => {
  buildCli();
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  withRules = generateWith('with-rules', {
    toolsets,
    scopes: [
      { toolsets: ['admin'], scopes: ['petstore:admin'] },
      { methods: ['DELETE'], scopes: ['pets:delete', 'pets:write', 'pets:delete'] },
      { tags: ['store'], operations: ['get*'], scopes: ['store:read'] },
      { operations: ['findPetsByStatus'], scopes: [] },
      { paths: ['/nowhere/**'], scopes: ['never'] },
    ],
  });
  without = generateWith('without-rules', { toolsets }).table;
});

describe('scopes rules in the config file → tools.json', () => {
  it('each tool carries the scopes of the first rule it matches, once each; the others no scopes field', () => {
    const scopes = Object.fromEntries(withRules.table.tools.map((t) => [t.name, 'scopes' in t ? t.scopes : 'absent']));
    const admin = ['petstore:admin'];
    expect(scopes).toEqual({
      addPet: 'absent',
      updatePet: 'absent',
      findPetsByStatus: [],
      findPetsByTags: 'absent',
      getPetById: 'absent',
      updatePetWithForm: 'absent',
      deletePet: ['pets:delete', 'pets:write'],
      uploadFile: 'absent',
      getInventory: ['store:read'],
      placeOrder: 'absent',
      getOrderById: ['store:read'],
      deleteOrder: ['pets:delete', 'pets:write'],
      // the toolset rule made the user operations `admin`; deleteUser is a DELETE, but the admin rule comes first
      createUser: admin,
      createUsersWithArrayInput: admin,
      createUsersWithListInput: admin,
      loginUser: admin,
      logoutUser: admin,
      getUserByName: admin,
      updateUser: admin,
      deleteUser: admin,
    });
  });

  it('the scopes are the only difference from a generation without rules', () => {
    const unscoped = withRules.table.tools.map(({ scopes: _scopes, ...tool }: ToolSpec) => tool);
    expect({ ...withRules.table, tools: unscoped }).toEqual(without);
    expect(without.tools.some((t) => 'scopes' in t)).toBe(false);
  });

  it('the rule that matches nothing is a warning naming its index', () => {
    expect(withRules.stdout).toContain(`warning: config "scopes"[4] sets no tool's scopes: it matches no tool`);
    expect(withRules.stdout).not.toMatch(/"scopes"\[[0-3]\]/);
  });

  it('a bad scope stops generation with one line naming the place, exit 2', () => {
    const file = join(DIR, 'bad.json');
    writeFileSync(file, JSON.stringify({ scopes: [{ scopes: ['ok'] }, { methods: ['GET'], scopes: ['read pets'] }] }));
    const r = spawnSync(process.execPath, [join(REPO, 'bin/mcp-gen.js'), PETSTORE, '--out', join(DIR, 'bad'), '--config', file], {
      cwd: DIR,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `mcp-gen: error: ${file}: "scopes"[1].scopes[0] "read pets" is not an OAuth scope (RFC 6749 scope-token: printable ASCII without space, " or \\)\n`,
    );
  });
});
