// loadSpec (src/parse/load.ts): every way a spec can be unusable gives one SpecError whose
// `where` names the place (file:line:column for syntax, a JSON pointer for content), and
// the ways it can be usable load.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { buildCli, REPO } from '../../../harness/project.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/server';
import { SpecError } from '../../../src/errors.js';
import { buildModel } from '../../../src/model/build.js';
import { loadSpec } from '../../../src/parse/load.js';
import { convertSwagger2 } from '../../../src/parse/swagger2.js';
import { jsYaml } from '../../../src/parse/yaml.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import type { JsonSchema } from '../../../src/contract/table.js';
import { defGraph } from '../../../src/contract/def-refs.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;
const fixture = (name: string) => fixtures + name;

/** The SpecError loadSpec rejects with (fails the test if it resolves or throws anything else). */
async function specError(source: string): Promise<SpecError> {
  const error = await loadSpec(source).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${source} should not load`).toBeInstanceOf(SpecError);
  return error as SpecError;
}

describe('specs that cannot be used', () => {
  const cases: [string, { given: string; want: { message: RegExp; where: string } }][] = [
    [
      'invalid YAML: file:line:column of the bad line',
      { given: 'bad/invalid.yaml', want: { message: /^invalid YAML\/JSON: bad indentation/, where: ':9:6' } },
    ],
    [
      'invalid JSON: file:line:column of the missing comma',
      { given: 'bad/invalid.json', want: { message: /^invalid JSON: expected ',' or '}' after property value$/, where: ':3:37' } },
    ],
    [
      'truncated JSON: said in JSON words, at the end where it was cut',
      { given: 'bad/truncated.json', want: { message: /^invalid JSON: it ends before its last object or list is closed/, where: ':5:39' } },
    ],
    [
      'an object that is no OpenAPI document: what it lacks, and what it has',
      {
        given: 'bad/hello.json',
        want: {
          message: /^not an OpenAPI document: no "openapi" or "swagger" version field \(its top-level keys are "hello"\)$/,
          where: '#/',
        },
      },
    ],
    [
      'OpenAPI 3.0 without paths: names the missing object',
      { given: 'bad/no-paths.yaml', want: { message: /^no "paths" object: an OpenAPI 3.0 document needs one$/, where: '#/paths' } },
    ],
    [
      'a folder: one line, no EISDIR',
      { given: 'bad', want: { message: /^is a folder, not a spec file: give the path of the OpenAPI document/, where: '' } },
    ],
    [
      'a folder holding openapi.yaml: suggests it',
      {
        given: 'bad/spec-folder',
        want: { message: /^is a folder, not a spec file: did you mean .*spec-folder\/openapi\.yaml\?$/, where: '' },
      },
    ],
    [
      'broken $ref: the message names the pointer',
      { given: 'bad/broken-ref.yaml', want: { message: /"#\/components\/schemas\/Missing"/, where: '' } },
    ],
    [
      'missing external file: the message names it',
      { given: 'bad/missing-external.yaml', want: { message: /^referenced file not found: .*does-not-exist\.yaml$/, where: '' } },
    ],
    ['paths is not an object', { given: 'bad/paths-not-object.yaml', want: { message: /^"paths" must be an object$/, where: '#/paths' } }],
    [
      'the document is a list, not an object',
      { given: 'bad/not-an-object.yaml', want: { message: /^not an OpenAPI document: its top level is a list, not an object/, where: '' } },
    ],
    [
      'a remote $ref is not followed by default (no network access), and named',
      { given: 'bad/remote-ref.yaml', want: { message: /https:\/\/schemas\.invalid\/pet\.yaml/, where: '' } },
    ],
  ];
  it.each(cases)('%s', async (_name, { given, want }) => {
    const error = await specError(fixture(given));
    expect(error.message).toMatch(want.message);
    expect(error.where).toBe(fixture(given) + want.where);
    expect(error.message).not.toContain('\n');
  });

  const missing: [string, { given: string }][] = [
    ['file not found (absolute path)', { given: fixture('bad/there-is-no-such-file.yaml') }],
    // vitest runs in the repository root; a user types a path relative to where they are
    ['file not found (path relative to the working directory)', { given: 'test/fixtures/bad/there-is-no-such-file.yaml' }],
    ['file not found (bare file name)', { given: 'there-is-no-such-spec.yaml' }],
  ];
  it.each(missing)('%s', async (_name, { given }) => {
    const error = await specError(given);
    expect(error.message).toBe('file not found');
    expect(error.where).toBe(given);
  });

  it('missing version field: says so, at the document root', async () => {
    const error = await specError(fixture('bad/no-version.yaml'));
    expect(error.message).toMatch(/no "openapi" or "swagger" version field/);
    expect(error.where).toBe(fixture('bad/no-version.yaml') + '#/');
  });

  const versions: [string, { given: string; want: { field: 'openapi' | 'swagger'; version: string } }][] = [
    ['openapi: 4.0.0', { given: 'bad/openapi-4.yaml', want: { field: 'openapi', version: '4.0.0' } }],
    ['swagger: 1.2 (a YAML number)', { given: 'bad/swagger-1.2.yaml', want: { field: 'swagger', version: '1.2' } }],
    ["swagger: '1.2'", { given: 'bad/swagger-1.2-quoted.yaml', want: { field: 'swagger', version: '1.2' } }],
    [
      'openapi: 3.1 (a YAML number, not a version string)',
      { given: 'bad/openapi-number.yaml', want: { field: 'openapi', version: '3.1' } },
    ],
  ];
  it.each(versions)('unsupported version %s: names the field by pointer', async (_name, { given, want }) => {
    const error = await specError(fixture(given));
    expect(error.where).toBe(`${fixture(given)}#/${want.field}`);
    expect(error.message).toContain(want.version);
    expect(error.message).toMatch(/unsupported version/i);
  });
});

describe('specs that load', () => {
  it('resolves an external relative $ref file into one document', async () => {
    const spec = await loadSpec(fixture('external/main.yaml'));
    expect(spec.specVersion).toBe('3.0.3');
    expect(spec.warnings).toEqual([]);
    expect(JSON.stringify(spec.doc)).not.toContain('pet.yaml');
    const m = buildModel(spec, { maxDescriptionLength: 1_000 });
    expect(m.report.warnings).toEqual([]);
    const [addPet, getPet] = m.table.tools;
    expect(addPet?.name).toBe('addPet');
    // the parameter came from the other file too
    expect(getPet?.inputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
      additionalProperties: false,
    });
    const body = (addPet?.inputSchema.properties as Record<string, JsonSchema>).body as JsonSchema;
    expect(body).toMatchObject({ type: 'object', required: ['name'] });
    expect((body.properties as Record<string, JsonSchema>).tag).toEqual({ type: 'string', enum: ['cat', 'dog'] });
    // the recursive reference still validates through the tool's $defs
    const reached = defGraph(m.table.defs).reachedFrom(addPet?.inputSchema ?? {});
    const schema = { ...addPet?.inputSchema, $defs: Object.fromEntries(reached.map((k) => [k, m.table.defs[k]])) };
    const validate = new AjvJsonSchemaValidator().getValidator(schema as JsonSchemaType);
    expect(validate({ body: { name: 'Rex', tag: 'dog', parent: { name: 'Old Rex' } } }).valid).toBe(true);
    expect(validate({ body: { name: 'Rex', parent: { name: 'Old Rex', tag: 'fish' } } }).valid).toBe(false);
  });

  it('a webhooks-only 3.1 spec loads; its model has no tools and says so', async () => {
    const spec = await loadSpec(fixture('webhooks-only.yaml'));
    expect(spec.specVersion).toBe('3.1.0');
    expect((spec.doc.webhooks as JsonObject).newPet).toBeDefined();
    const m = buildModel(spec, { maxDescriptionLength: 1_000 });
    expect(m.table.tools).toEqual([]);
    expect(m.report.warnings).toEqual([{ code: 'no-tools', message: 'the spec defines no operations: the server will have no tools' }]);
  });

  it('keeps the declared version and the source as given', async () => {
    const source = new URL('../../../samples/petstore/openapi.json', import.meta.url).pathname;
    const spec = await loadSpec(source);
    expect(spec.specVersion).toBe('3.0.0');
    expect(spec.source).toBe(source);
    expect(Object.keys(spec.doc.paths as JsonObject)).toHaveLength(14);
  });
});

describe('the plain path: a local spec whose $refs are all internal is read without swagger-parser', () => {
  const sample = (path: string) => new URL(`../../../samples/${path}`, import.meta.url).pathname;

  it.each([
    ['JSON', sample('petstore/openapi.json')],
    ['YAML (Swagger 2.0, both converted)', sample('petstore-swagger2/openapi.yaml')],
    ['YAML (3.1)', fixture('long-running.yaml')],
  ])('%s: the same document as swagger-parser parses', async (_, source) => {
    const ours = await loadSpec(source);
    const theirs = (await new SwaggerParser().parse(source)) as unknown as JsonObject;
    expect(ours.doc).toEqual(theirs.swagger === undefined ? theirs : convertSwagger2(theirs, []));
  });

  it('swagger-parser and js-yaml are not loaded for a local JSON spec; swagger-parser is for external $refs', () => {
    buildCli();
    const loadedFor = (source: string) => {
      const script = [
        `import { createRequire } from 'node:module';`,
        `const { loadSpec } = await import(${JSON.stringify(pathToFileURL(`${REPO}/dist/src/parse/load.js`).href)});`,
        `await loadSpec(${JSON.stringify(source)});`,
        `const cache = Object.keys(createRequire(import.meta.url).cache);`,
        `console.log(JSON.stringify(['swagger-parser', 'js-yaml'].filter((name) => cache.some((f) => f.includes('/' + name + '/')))));`,
      ].join('\n');
      return JSON.parse(execFileSync('node', ['--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' })) as string[];
    };
    expect(loadedFor(sample('petstore/openapi.json'))).toEqual([]);
    expect(loadedFor(fixture('external/main.yaml'))).toEqual(['swagger-parser', 'js-yaml']);
  });
});

describe('OpenAPI 3.2 (swagger-parser does not read it: its resolver and the official 3.2 schema do)', () => {
  it('a 3.2 document loads, and a $ref written against $self points into the document itself', async () => {
    const spec = await loadSpec(fixture('openapi-3.2/petstore.yaml'));
    expect(spec.specVersion).toBe('3.2.0');
    const query = ((spec.doc.paths as JsonObject)['/pets'] as JsonObject).query as JsonObject;
    expect(query.requestBody).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/PetQuery' } } } });
  });

  it('$self is the base URI: a relative $ref and one to a document beside $self resolve, the second read from beside the file', async () => {
    const spec = await loadSpec(fixture('openapi-3.2/self-base.yaml'));
    const get = ((spec.doc.paths as JsonObject)['/pets/{petId}'] as JsonObject).get as JsonObject;
    expect(get.parameters).toEqual([{ $ref: '#/components/parameters/PetId' }]);
    const [tool] = buildModel(spec, {}).table.tools;
    expect(tool?.inputSchema).toMatchObject({ properties: { petId: { type: 'integer' } }, required: ['petId'] });
    expect(Object.keys((tool?.output?.schema.properties ?? {}) as JsonObject)).toEqual(['id', 'name']);
  });

  it('a document the 3.2 schema refuses: one line naming the field by pointer', async () => {
    const error = await specError(fixture('openapi-3.2/invalid.yaml'));
    expect(error.message).toBe('not a valid OpenAPI 3.2 document: must be one of "query", "querystring", "header", "path", "cookie"');
    expect(error.where).toBe(fixture('openapi-3.2/invalid.yaml') + '#/paths/~1pets/get/parameters/0/in');
  });

  it('a 3.2 document without paths, webhooks or components is told as 3.1 is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oas32-'));
    const source = join(dir, 'empty.json');
    writeFileSync(source, JSON.stringify({ openapi: '3.2.0', info: { title: 'x', version: '1' } }));
    const error = await specError(source);
    expect(error.message).toBe('no "paths" object: an OpenAPI 3.2 document needs "paths" or "webhooks"');
    expect(error.where).toBe(source + '#/paths');
  });

  it('a 3.2 document from a URL, with a $ref to a file beside it, loads through the same source rules', async () => {
    const here = readFileSync(fixture('openapi-3.2/self-base.yaml'), 'utf8').replace(/^\$self: .*$/m, '');
    const pet = readFileSync(fixture('openapi-3.2/shared/pet.yaml'), 'utf8');
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const body = req.url === '/openapi/main' ? here.replace(/https:\/\/petstore\.example\.com\/openapi\//, '') : pet;
      res.writeHead(200, { 'content-type': 'application/yaml' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const spec = await loadSpec(`http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi/main`);
      expect(spec.specVersion).toBe('3.2.0');
      expect(JSON.stringify(spec.doc)).not.toContain('pet.yaml');
      expect(asked).toContain('/openapi/shared/pet.yaml');
    } finally {
      server.close();
    }
  });

  it('other versions are still refused, and the message lists 3.2', async () => {
    const error = await specError(fixture('bad/openapi-4.yaml'));
    expect(error.message).toBe('unsupported version "4.0.0": mcp-gen reads Swagger 2.0 and OpenAPI 3.0.x / 3.1.x / 3.2.x');
  });
});

describe("the OpenAPI Initiative's 3.2 schema test documents (test/fixtures/openapi-3.2/oai-schema-tests)", () => {
  const suite = fixture('openapi-3.2/oai-schema-tests');
  const dir = mkdtempSync(join(tmpdir(), 'oai-schema-tests-'));
  /** The document as a spec file with `paths`: most are components-only libraries, which mcp-gen refuses before any schema check. */
  const asSpec = (kind: string, name: string): string => {
    const doc = jsYaml().load(readFileSync(`${suite}/${kind}/${name}`, 'utf8')) as JsonObject;
    const path = join(dir, `${kind}-${name}.json`);
    writeFileSync(path, JSON.stringify({ paths: {}, ...doc }));
    return path;
  };
  // Not the schema's to refuse: Schema Object contents (it validates them only as objects), and a
  // document without containers (mcp-gen's own check, which `paths` added here satisfies).
  const beyondTheSchema = ['xml-attr-exclusion.yaml', 'xml-wrapped-exclusion.yaml', 'no_containers.yaml'];

  it.each(readdirSync(`${suite}/fail`).filter((name) => !beyondTheSchema.includes(name)))(
    'fail/%s: refused in one line at a pointer',
    async (name) => {
      const source = asSpec('fail', name);
      const error = await specError(source);
      expect(error.message).not.toContain('\n');
      if (error.message.startsWith('$ref')) return; // path-item-object-conflicting-additional-operation names a schema it lacks
      expect(error.message).toMatch(/^not a valid OpenAPI 3\.2 document: /);
      expect(error.where).toMatch(new RegExp(`^${source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#/`));
    },
  );

  it('a wrong key is named in the pointer, a field not allowed by the place it is in, in words', async () => {
    const badHeader = asSpec('fail', 'header-object-name.yaml');
    const header = await specError(badHeader);
    expect(header.where).toBe(`${badHeader}#/paths/~1foo/get/responses/default/headers/Bad=Header`);
    expect(header.message).toMatch(/^not a valid OpenAPI 3\.2 document: the name "Bad=Header" must match pattern /);
    const both = asSpec('fail', 'example-object-old-vs-data.yaml');
    expect((await specError(both)).message).toBe('not a valid OpenAPI 3.2 document: holds fields that may not be used together');
  });

  it.each(readdirSync(`${suite}/pass`))('pass/%s: loads, and models', async (name) => {
    const source = asSpec('pass', name);
    if (name === 'security-scheme-object-examples.yaml') {
      // its $ref to another host is the source rules' to refuse, as in any version
      expect((await specError(source)).message).toMatch(/^\$ref to a URL not followed: https:\/\/example\.com\/api\/openapi\.json/);
      return;
    }
    const spec = await loadSpec(source);
    expect(spec.specVersion).toMatch(/^3\.2\./);
    expect(() => buildModel(spec, {})).not.toThrow();
  });
});
