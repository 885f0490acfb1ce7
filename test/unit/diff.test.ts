// `mcp-gen diff`: a fixture pair of specs and the exact table of tool-level changes it must give.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { diffSpecs, diffTables } from '../../src/diff.js';
import { join } from 'node:path';
import { buildModel } from '../../src/model/build.js';
import { loadSpec } from '../../src/parse/load.js';
import { corporaMissing, corporaTitle, DIRECTORY } from '../../harness/corpora.js';
import type { JsonObject } from '../../src/parse/pointer.js';

const fixture = (name: string) => new URL(`../fixtures/diff/${name}`, import.meta.url).pathname;

// [tool, breaking, what] — sorted as diff sorts: by tool, breaking first.
const EXPECTED: [string, boolean, string][] = [
  ['createPet', true, 'argument "body" property "species" added as required'],
  ['createPet', true, 'argument "body" property "tag" removed'],
  ['createPet', false, 'argument "body" property "age" type widened: number|integer → number|string|integer'],
  ['deletePet', true, 'tool removed'],
  ['getPet', true, 'argument "id" type narrowed: string → integer'],
  ['getPet', false, 'now calls GET /v2/pets/{id} (was GET /pets/{id})'],
  ['getStats', false, 'argument "period" enum widened'],
  ['listOwners', false, 'tool added'],
  ['listPets', true, 'argument "cursor" removed'],
  ['listPets', true, 'argument "limit" made required'],
  ['listPets', true, 'argument "status" items enum narrowed: "pending" no longer allowed'],
  ['listPets', true, 'output field "next" removed'],
  ['listPets', false, 'argument "sort" added'],
  ['listPets', false, 'output field "total" added'],
];

describe('diff of a fixture pair', () => {
  it('classifies every change exactly as expected', async () => {
    const changes = await diffSpecs(fixture('old.yaml'), fixture('new.yaml'), { maxDescriptionLength: 1000 });
    const got = changes.map((c) => [c.tool, c.breaking, c.what]);
    const sort = (rows: (string | boolean)[][]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sort(got)).toEqual(sort(EXPECTED));
  });

  it('finds nothing between a spec and itself', async () => {
    expect(await diffSpecs(fixture('old.yaml'), fixture('old.yaml'), { maxDescriptionLength: 1000 })).toEqual([]);
  });

  it('the CLI exits 1 with --fail-on breaking, 0 without, and prints JSON with --json', () => {
    const cli = new URL('../../bin/mcp-gen.js', import.meta.url).pathname;
    const run = (...args: string[]) => {
      try {
        return {
          code: 0,
          out: execFileSync('node', [cli, 'diff', fixture('old.yaml'), fixture('new.yaml'), ...args], { encoding: 'utf8' }),
        };
      } catch (error) {
        const e = error as { status: number; stdout: string };
        return { code: e.status, out: e.stdout };
      }
    };
    expect(run().code).toBe(0);
    const failing = run('--fail-on', 'breaking');
    expect(failing.code).toBe(1);
    expect(failing.out).toContain('BREAKING  deletePet: tool removed');
    expect(failing.out).toMatch(/14 changes, 8 breaking/);
    const json = JSON.parse(run('--json').out) as { breaking: number; changes: unknown[] };
    expect(json.breaking).toBe(8);
    expect(json.changes).toHaveLength(14);
  });
});

describe('diff of the credential variables', () => {
  const table = (title: string, schemes: JsonObject) =>
    buildModel(
      {
        doc: { openapi: '3.0.3', info: { title, version: '1' }, components: { securitySchemes: schemes }, paths: {} },
        specVersion: '3.0.3',
        source: 's.yaml',
        warnings: [],
      },
      { maxDescriptionLength: 1000, titleNamesCredentials: true },
    ).table;
  const key = { type: 'apiKey', in: 'header', name: 'X-Key' };

  it('a new title renames every variable: breaking, naming old and new', () => {
    expect(diffTables(table('Acme', { key }), table('Acme Cloud', { key }))).toEqual([
      { tool: '(credentials)', breaking: true, what: 'no longer read: ACME_KEY; now read: ACME_CLOUD_KEY' },
    ]);
  });

  it('a new scheme adds a variable: not breaking', () => {
    expect(diffTables(table('Acme', { key }), table('Acme', { key, bearer: { type: 'http', scheme: 'bearer' } }))).toEqual([
      { tool: '(credentials)', breaking: false, what: 'now also read: ACME_BEARER_TOKEN' },
    ]);
  });
});

describe('diff of argument overrides', () => {
  const repos = (toolOverrides: JsonObject = {}) =>
    buildModel(
      {
        doc: {
          openapi: '3.0.3',
          info: { title: 'Repos', version: '1' },
          paths: {
            '/repos/{owner}/{repo}': {
              get: {
                operationId: 'getRepo',
                parameters: ['owner', 'repo'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
                responses: {},
              },
            },
          },
        },
        specVersion: '3.0.3',
        source: 's.yaml',
        warnings: [],
      },
      { maxDescriptionLength: 1000, toolOverrides: toolOverrides as never },
    ).table;

  it('an argument the config file now hides is no breaking change: the server sends it', () => {
    expect(diffTables(repos(), repos({ getRepo: { arguments: { owner: { hidden: true, value: 'acme' } } } }))).toEqual([
      { tool: 'getRepo', breaking: false, what: 'argument "owner" hidden: the server now sends it' },
    ]);
  });

  it('a hidden argument read from a new variable breaks a deployment without it; the same hidden argument on both sides is no change', () => {
    const fromEnv = repos({ getRepo: { arguments: { owner: { hidden: true, env: 'ACME_OWNER' } } } });
    expect(diffTables(repos(), fromEnv)).toEqual([
      { tool: '(arguments)', breaking: true, what: 'hidden arguments now read: ACME_OWNER' },
      { tool: 'getRepo', breaking: false, what: 'argument "owner" hidden: the server now sends it' },
    ]);
    expect(diffTables(fromEnv, fromEnv)).toEqual([]);
  });

  it('a renamed argument is one the model no longer knows by its old name: breaking', () => {
    expect(diffTables(repos(), repos({ getRepo: { arguments: { repo: { name: 'repository' } } } }))).toEqual([
      { tool: 'getRepo', breaking: true, what: 'argument "repo" removed' },
      { tool: 'getRepo', breaking: true, what: 'argument "repository" added as required' },
    ]);
  });
});

describe('diff across an upgrade from OpenAPI 3.1 to 3.2', () => {
  const upgrade = (name: string) => new URL(`../fixtures/openapi-3.2/${name}`, import.meta.url).pathname;

  it('the same API in 3.1 and in 3.2: only the tools 3.2 adds (QUERY, an additional operation), nothing breaking', async () => {
    const changes = await diffSpecs(upgrade('petstore-3.1.yaml'), upgrade('petstore.yaml'), { maxDescriptionLength: 1000 });
    expect(changes).toEqual([
      { tool: 'copyPet', breaking: false, what: 'tool added' },
      { tool: 'searchPets', breaking: false, what: 'tool added' },
    ]);
  });

  it('and back: removing them is breaking, nothing else is', async () => {
    const changes = await diffSpecs(upgrade('petstore.yaml'), upgrade('petstore-3.1.yaml'), { maxDescriptionLength: 1000 });
    expect(changes).toEqual([
      { tool: 'copyPet', breaking: true, what: 'tool removed' },
      { tool: 'searchPets', breaking: true, what: 'tool removed' },
    ]);
  });
});

describe(corporaTitle('three real 3.1 specs and their 3.2 upgrade by @scalar/openapi-upgrader'), () => {
  it.skipIf(corporaMissing !== undefined).each(['rentcast.io', 'listennotes.com', 'placekit.co'])(
    '%s: the same tool table (so the same requests), and diff finds no change',
    async (name) => {
      const original = join(DIRECTORY, `${name}.json`);
      const upgraded = new URL(`../fixtures/openapi-3.2/upgraded/${name}.json`, import.meta.url).pathname;
      const [before, after] = await Promise.all([loadSpec(original), loadSpec(upgraded)]);
      expect([before.specVersion, after.specVersion]).toEqual(['3.1.0', '3.2.0']);
      const options = { maxDescriptionLength: 1000 };
      expect(buildModel(after, options).table).toEqual(buildModel(before, options).table);
      expect(await diffSpecs(original, upgraded, options)).toEqual([]);
    },
  );
});
