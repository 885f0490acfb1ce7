// Choosing tools: selection flags, per-operation overrides, the spec's x-mcp extension,
// the config file's checks, and the poor-description report.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/model/build.js';
import { globToRegExp } from '../../../src/model/rules.js';
import { OptionsError } from '../../../src/errors.js';
import { readConfigFile, resolveOptions } from '../../../src/options.js';
import type { Selection, ToolOverride } from '../../../src/model/model-options.js';
import type { JsonObject } from '../../../src/parse/pointer.js';

const ok = { responses: { '200': { description: 'ok' } } };
const doc = (more: JsonObject = {}): JsonObject => ({
  openapi: '3.0.3',
  info: { title: 'Shop', version: '1' },
  servers: [{ url: 'https://shop.example' }],
  paths: {
    '/pets': {
      get: { operationId: 'pets/list', tags: ['pets'], summary: 'List all the pets', ...ok },
      post: { operationId: 'pets/create', tags: ['pets'], summary: 'Create a new pet', ...ok },
    },
    '/pets/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'pets/get', tags: ['pets'], summary: 'Get one pet', ...ok },
      delete: { operationId: 'pets/delete', tags: ['pets', 'admin'], ...ok },
    },
    '/admin/users': { get: { operationId: 'admin/users', tags: ['admin'], summary: 'List the users', ...ok } },
  },
  ...more,
});
const names = (selection: Selection = {}, overrides: Record<string, ToolOverride> = {}, d = doc()) =>
  buildModel(
    { doc: d, specVersion: '3.0.3', source: 's.yaml', warnings: [] },
    { maxDescriptionLength: 1000, ...selection, toolOverrides: overrides },
  ).table.tools.map((t) => t.name);

describe('globs', () => {
  const cases: [string, { glob: string; yes: string[]; no: string[] }][] = [
    ['* stays within a /-part', { glob: 'pets/*', yes: ['pets/list', 'pets/'], no: ['pets/a/b', 'petsx/list'] }],
    ['** crosses parts', { glob: '/pets/**', yes: ['/pets/1', '/pets/1/photos'], no: ['/pets', '/petsy/1'] }],
    ['? is one character', { glob: 'a?c', yes: ['abc'], no: ['ac', 'abbc', 'a/c'] }],
    ['regex characters are literal', { glob: 'a.b+(c)', yes: ['a.b+(c)'], no: ['axb+(c)', 'a.bb(c)'] }],
  ];
  it.each(cases)('%s', (_name, { glob, yes, no }) => {
    for (const s of yes) expect(globToRegExp(glob).test(s), s).toBe(true);
    for (const s of no) expect(globToRegExp(glob).test(s), s).toBe(false);
  });
});

describe('selection', () => {
  const cases: [string, { given: Selection; want: string[] }][] = [
    ['everything by default', { given: {}, want: ['pets_list', 'pets_create', 'pets_get', 'pets_delete', 'admin_users'] }],
    ['--read-only', { given: { readOnly: true }, want: ['pets_list', 'pets_get', 'admin_users'] }],
    ['--methods POST,delete', { given: { methods: ['POST', 'delete'] }, want: ['pets_create', 'pets_delete'] }],
    ['--include-tags admin', { given: { includeTags: ['admin'] }, want: ['pets_delete', 'admin_users'] }],
    ['--exclude-tags admin', { given: { excludeTags: ['admin'] }, want: ['pets_list', 'pets_create', 'pets_get'] }],
    [
      '--include-operations pets/*',
      { given: { includeOperations: ['pets/*'] }, want: ['pets_list', 'pets_create', 'pets_get', 'pets_delete'] },
    ],
    [
      '--exclude-operations pets/get,admin/*',
      { given: { excludeOperations: ['pets/get', 'admin/*'] }, want: ['pets_list', 'pets_create', 'pets_delete'] },
    ],
    ['--include-paths /pets/**', { given: { includePaths: ['/pets/**'] }, want: ['pets_get', 'pets_delete'] }],
    [
      '--exclude-paths /admin/**',
      { given: { excludePaths: ['/admin/**'] }, want: ['pets_list', 'pets_create', 'pets_get', 'pets_delete'] },
    ],
    ['AND across lists: tag pets and GET', { given: { includeTags: ['pets'], methods: ['GET'] }, want: ['pets_list', 'pets_get'] }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(names(given)).toEqual(want);
  });

  it('reports every left-out operation with its reason', () => {
    const m = buildModel(
      { doc: doc(), specVersion: '3.0.3', source: 's.yaml', warnings: [] },
      { maxDescriptionLength: 1000, readOnly: true, excludeTags: ['admin'] },
    );
    expect(m.report.skipped).toEqual([
      { operation: 'POST /pets', reason: '--read-only' },
      { operation: 'DELETE /pets/{id}', reason: '--read-only' },
      { operation: 'GET /admin/users', reason: 'tag in --exclude-tags' },
    ]);
  });
});

describe('overrides and x-mcp', () => {
  it('the config file renames, redescribes and excludes, by operationId or METHOD /path', () => {
    const m = buildModel(
      { doc: doc(), specVersion: '3.0.3', source: 's.yaml', warnings: [] },
      {
        maxDescriptionLength: 1000,
        toolOverrides: { 'pets/get': { name: 'get_pet', description: 'Fetch one pet.' }, 'DELETE /pets/{id}': { exclude: true } },
      },
    );
    expect(m.table.tools.map((t) => t.name)).toEqual(['pets_list', 'pets_create', 'get_pet', 'admin_users']);
    expect(m.table.tools.find((t) => t.name === 'get_pet')?.description).toBe('Fetch one pet.');
    expect(m.report.skipped).toEqual([{ operation: 'DELETE /pets/{id}', reason: 'excluded in the config file' }]);
    expect([...m.report.matchedOverrides].sort()).toEqual(['DELETE /pets/{id}', 'pets/get']);
  });

  it('x-mcp: root exclude, overridden by a path item, overridden by an operation', () => {
    const d = doc({ 'x-mcp': false });
    const paths = d.paths as Record<string, JsonObject>;
    (paths['/pets/{id}'] as JsonObject)['x-mcp'] = true;
    ((paths['/pets/{id}'] as JsonObject).delete as JsonObject)['x-mcp'] = { exclude: true };
    ((paths['/pets/{id}'] as JsonObject).get as JsonObject)['x-mcp'] = { name: 'fetch_pet', description: 'From x-mcp.' };
    const m = buildModel({ doc: d, specVersion: '3.0.3', source: 's.yaml', warnings: [] }, { maxDescriptionLength: 1000 });
    expect(m.table.tools.map((t) => [t.name, t.description])).toEqual([['fetch_pet', 'From x-mcp.']]);
    expect(m.report.skipped.map((s) => s.reason)).toEqual(Array(4).fill('x-mcp: excluded by the spec'));
  });

  it('the config file wins over x-mcp', () => {
    const d = doc();
    (((d.paths as Record<string, JsonObject>)['/admin/users'] as JsonObject).get as JsonObject)['x-mcp'] = false;
    expect(names({}, { 'admin/users': { exclude: false } }, d)).toContain('admin_users');
  });

  it('confirm: x-mcp on the root, a path item or an operation (nearest wins), the config file over all', () => {
    const d = doc({ 'x-mcp': { confirm: true } });
    const paths = d.paths as Record<string, JsonObject>;
    (paths['/pets/{id}'] as JsonObject)['x-mcp'] = { confirm: false };
    ((paths['/pets/{id}'] as JsonObject).delete as JsonObject)['x-mcp'] = { confirm: true };
    const m = buildModel(
      { doc: d, specVersion: '3.0.3', source: 's.yaml', warnings: [] },
      { maxDescriptionLength: 1000, toolOverrides: { 'GET /admin/users': { confirm: false } } },
    );
    expect(Object.fromEntries(m.table.tools.map((t) => [t.name, t.confirm]))).toEqual({
      pets_list: true,
      pets_create: true,
      pets_get: false,
      pets_delete: true,
      admin_users: false,
    });
    // Without any, the tool has no `confirm`: --confirm decides at run time.
    expect(
      buildModel({ doc: doc(), specVersion: '3.0.3', source: 's.yaml', warnings: [] }, {}).table.tools.every((t) => !('confirm' in t)),
    ).toBe(true);
  });

  it('apps: false in the config file leaves an operation without an MCP Apps view; nothing else marks a tool', () => {
    const m = buildModel(
      { doc: doc(), specVersion: '3.0.3', source: 's.yaml', warnings: [] },
      { maxDescriptionLength: 1000, toolOverrides: { 'pets/get': { apps: false }, 'pets/list': { apps: true } } },
    );
    expect(Object.fromEntries(m.table.tools.filter((t) => 'apps' in t).map((t) => [t.name, t.apps]))).toEqual({ pets_get: false });
  });

  it('reports tools whose descriptions say little', () => {
    const m = buildModel({ doc: doc(), specVersion: '3.0.3', source: 's.yaml', warnings: [] }, { maxDescriptionLength: 1000 });
    // no summary at all; 'Get one pet' (three words) is short but says enough
    expect(m.report.poorDescriptions).toEqual(['DELETE /pets/{id} (pets_delete)']);
  });
});

describe('options and the config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gen-config-'));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads YAML, resolves spec and out against the file, and lets flags win', () => {
    const file = readConfigFile(write('a.yaml', 'spec: api/openapi.yaml\nout: gen\nreadOnly: true\ntoolMode: dynamic\n'));
    expect(file.spec).toBe(join(dir, 'api/openapi.yaml'));
    const resolved = resolveOptions(file, { readOnly: false, out: '/elsewhere' });
    expect(resolved.out).toBe('/elsewhere');
    expect(resolved.readOnly).toBe(false);
    expect(resolved.toolMode).toBe('dynamic');
  });

  const bad: [string, { text: string; file: string; message: RegExp }][] = [
    ['an unknown key', { file: 'b1.yaml', text: 'bogus: 1\n', message: /"bogus" is not an option \(known: spec, apis, out, / }],
    [
      'a mistyped key',
      { file: 'b1b.yaml', text: 'includeTag: [pets]\n', message: /"includeTag" is not an option \(did you mean "includeTags"\?\)$/ },
    ],
    ['a wrong type', { file: 'b2.json', text: '{"readOnly": "yes"}', message: /"readOnly" must be true or false/ }],
    ['a list of non-strings', { file: 'b3.yaml', text: 'includeTags: [1, 2]\n', message: /"includeTags" must be a list of strings/ }],
    ['a bad tool mode', { file: 'b4.yaml', text: 'toolMode: lazy\n', message: /must be auto, direct, toolsets, dynamic or code/ }],
    ['a bad override', { file: 'b5.yaml', text: 'tools:\n  x: { rename: y }\n', message: /tools.*"x"\.rename/ }],
    [
      'a confirm that is no boolean',
      { file: 'b8.yaml', text: 'toolOverrides:\n  x: { confirm: "yes" }\n', message: /"x"\.confirm: expected .*confirm \(boolean\)/ },
    ],
    ['invalid YAML', { file: 'b6.yaml', text: 'a: [\n', message: /b6\.yaml:/ }],
    ['not an object', { file: 'b7.json', text: '[1]', message: /must be an object/ }],
  ];
  it.each(bad)('refuses %s with one line naming the file', (_name, { file, text, message }) => {
    const path = write(file, text);
    let error: unknown;
    try {
      readConfigFile(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).not.toContain('\n');
  });

  it('needs a spec from somewhere, and refuses --check with --dry-run', () => {
    expect(() => resolveOptions({}, {})).toThrow(/no spec given/);
    expect(() => resolveOptions({ spec: 'x' }, { check: true, dryRun: true })).toThrow(/cannot be combined/);
  });
});
