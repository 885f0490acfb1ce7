// The config file's argument overrides (src/model/argument-overrides.ts, checked in src/options.ts):
// what the table carries for a hidden, renamed, described, defaulted or narrowed argument, and the
// one-line errors of overrides that name nothing or contradict the spec or each other.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/model/build.js';
import type { ArgumentOverride } from '../../../src/model/model-options.js';
import type { LoadedSpec } from '../../../src/parse/load.js';
import type { ToolSpec } from '../../../src/contract/table.js';
import { OptionsError } from '../../../src/errors.js';
import { readConfigFile } from '../../../src/options.js';

/** GitHub's shape: GET /repos/{owner}/{repo}/issues with a state enum and paging, and a POST with a body. */
const SPEC: LoadedSpec = {
  specVersion: '3.0.3',
  source: 'test.yaml',
  warnings: [],
  doc: {
    openapi: '3.0.3',
    info: { title: 'Repos', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    components: { schemas: { State: { type: 'string', enum: ['open', 'closed', 'all'] } } },
    paths: {
      '/repos/{owner}/{repo}/issues': {
        parameters: [
          { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'repo', in: 'path', required: true, schema: { type: 'string' } },
        ],
        get: {
          operationId: 'issues/list',
          parameters: [
            { name: 'state', in: 'query', schema: { $ref: '#/components/schemas/State' } },
            { name: 'per_page', in: 'query', schema: { type: 'integer' } },
            { name: 'X-Api-Version', in: 'header', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
        post: {
          operationId: 'issues/create',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '201': { description: 'ok' } },
        },
      },
    },
  },
};

const tool = (overrides: Record<string, ArgumentOverride>, operation = 'issues/list'): ToolSpec => {
  const table = buildModel(SPEC, { toolOverrides: { [operation]: { arguments: overrides } } }).table;
  return table.tools.find((t) => t.operationId === operation) as ToolSpec;
};

describe('argument overrides in the tool table', () => {
  it('a hidden owner fixed to "acme" leaves the schema and is carried with its value; the wire name stays', () => {
    const t = tool({ owner: { hidden: true, value: 'acme' } });
    expect(Object.keys(t.inputSchema.properties as object)).toEqual(['repo', 'state', 'per_page', 'X-Api-Version']);
    expect(t.inputSchema.required).toEqual(['repo']);
    expect(t.hidden).toEqual({ owner: { value: 'acme' } });
    expect(t.http.params.find((p) => p.arg === 'owner')).toMatchObject({ name: 'owner', in: 'path' });
  });

  it('a hidden header read from an environment variable carries the variable, never a value', () => {
    const t = tool({ 'X-Api-Version': { hidden: true, env: 'API_VERSION' } });
    expect(t.hidden).toEqual({ 'X-Api-Version': { env: 'API_VERSION' } });
    expect(t.inputSchema.properties).not.toHaveProperty('X-Api-Version');
  });

  it('a rename lists the new name and sends the spec one; a narrowed $ref enum, a description and a default are listed', () => {
    const t = tool({
      per_page: { name: 'page_size', default: 50, description: 'Issues per page.' },
      state: { enum: ['open', 'closed'] },
    });
    expect(Object.keys(t.inputSchema.properties as object)).toEqual(['owner', 'repo', 'state', 'page_size', 'X-Api-Version']);
    const properties = t.inputSchema.properties as Record<string, object>;
    expect(properties.page_size).toEqual({ type: 'integer', description: 'Issues per page.', default: 50 });
    expect(properties.state).toEqual({ $ref: '#/$defs/State', enum: ['open', 'closed'] });
    expect(t.http.params.find((p) => p.name === 'per_page')).toMatchObject({ arg: 'page_size', in: 'query' });
    expect(t.defaults).toEqual({ page_size: 50 });
  });

  it('the request body is an argument like the others: renamed, it is sent as the body still', () => {
    const t = tool({ body: { name: 'issue', description: 'The issue.' } }, 'issues/create');
    expect(t.http.body).toMatchObject({ arg: 'issue', required: true });
    expect(t.inputSchema.required).toEqual(['owner', 'repo', 'issue']);
  });

  it('a default makes a required argument optional (the server sends it when left out)', () => {
    const t = tool({ repo: { default: 'website' } });
    expect(t.inputSchema.required).toEqual(['owner']);
    expect(t.defaults).toEqual({ repo: 'website' });
  });

  it('an operation without argument overrides carries neither hidden nor defaults', () => {
    const t = tool({});
    expect(t).not.toHaveProperty('hidden');
    expect(t).not.toHaveProperty('defaults');
  });
});

describe('argument overrides the model refuses, in one line naming the operation and the argument', () => {
  const at = 'config "toolOverrides"."issues/list".arguments';
  const cases: [string, Record<string, ArgumentOverride>, string][] = [
    [
      'an argument that does not exist',
      { ownr: { hidden: true, value: 'acme' } },
      `${at}."ownr": GET /repos/{owner}/{repo}/issues has no argument "ownr" (did you mean "owner"?)`,
    ],
    [
      'an enum value outside the spec enum',
      { state: { enum: ['open', 'merged'] } },
      `${at}."state".enum: "merged" not among the spec's values ("open", "closed", "all"); an override can only narrow an enum`,
    ],
    [
      'an enum value of another type',
      { per_page: { enum: [10, 'many'] } },
      `${at}."per_page".enum[1]: "many" is not of the argument's type (integer)`,
    ],
    [
      'a fixed value of another type',
      { owner: { hidden: true, value: 7 } },
      `${at}."owner".value: 7 is not of the argument's type (string)`,
    ],
    [
      'a default outside the narrowed enum',
      { state: { enum: ['open'], default: 'closed' } },
      `${at}."state".default: "closed" is not one of the argument's values ("open")`,
    ],
    [
      'a rename onto another argument',
      { per_page: { name: 'State' } },
      `${at}."per_page".name: "State" is already the name of GET /repos/{owner}/{repo}/issues's argument "state"`,
    ],
    [
      'a rename onto a hidden argument',
      { owner: { hidden: true, value: 'acme' }, repo: { name: 'owner' } },
      `${at}."repo".name: "owner" is already the name of GET /repos/{owner}/{repo}/issues's argument "owner"`,
    ],
    [
      'a rename to no argument name',
      { repo: { name: 'the repo' } },
      `${at}."repo".name: "the repo" is not an argument name (A-Z, a-z, 0-9, "_", "." and "-", at most 64)`,
    ],
  ];
  it.each(cases)('%s', (_name, overrides, message) => {
    expect(() => tool(overrides)).toThrow(OptionsError);
    expect(() => tool(overrides)).toThrow(message);
  });
});

describe('argument overrides the config file refuses, in one line naming the place', () => {
  const place = '"toolOverrides"."repos/get".arguments."owner"';
  const cases: [string, object, string][] = [
    [
      'hidden without value or env',
      { hidden: true },
      `${place}: "hidden": true needs "value" (a fixed value) or "env" (a variable to read it from)`,
    ],
    ['both value and env', { hidden: true, value: 'acme', env: 'OWNER' }, `${place}: give "value" or "env", not both`],
    ['a value without hidden', { value: 'acme' }, `${place}.value needs "hidden": true (a fixed value is never listed)`],
    [
      'hidden and renamed',
      { hidden: true, value: 'acme', name: 'org' },
      `${place}: "name" has no effect on a hidden argument, which is never listed`,
    ],
    [
      'an env that names no variable',
      { hidden: true, env: 'OWNER NAME' },
      `${place}.env must name an environment variable (letters, digits and "_", not starting with a digit)`,
    ],
    ['an unknown option', { hiden: true }, `${place}.hiden is not an argument option (did you mean "hidden"?)`],
    ['an empty enum', { enum: [] }, `${place}.enum must be a non-empty list of values`],
  ];
  it.each(cases)('%s', (_name, override, message) => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcp-gen-arguments-')), 'mcp-gen.config.json');
    writeFileSync(file, JSON.stringify({ toolOverrides: { 'repos/get': { arguments: { owner: override } } } }));
    expect(() => readConfigFile(file)).toThrow(OptionsError);
    expect(() => readConfigFile(file)).toThrow(`${file}: ${message}`);
  });
});
