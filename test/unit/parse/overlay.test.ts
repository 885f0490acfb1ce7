// Overlays (src/parse/overlay.ts, overlay-actions.ts, overlay-path.ts) through loadSpec, as
// generate, serve and diff read a spec: the Overlay Specification's compliant sets and its
// examples give the documents the specification says; every malformed overlay is one SpecError
// naming the file and the action; a target that matches nothing is a warning naming both.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SpecError } from '../../../src/errors.js';
import { loadSpec } from '../../../src/parse/load.js';
import { jsYaml } from '../../../src/parse/yaml.js';
import { startUpstream } from '../../harness/upstream.js';
import { buildCli, REPO } from '../../../harness/project.js';

const SETS = new URL('../../fixtures/overlays/compliant-sets/', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-overlay-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** Writes `text` to a new file in the scratch folder and returns its path. */
function file(name: string, text: string): string {
  const path = join(scratch, `${++files}-${name}`);
  writeFileSync(path, text);
  return path;
}

const yaml = (text: string) => jsYaml().load(text);

/** The Overlay specification's example description (1.1.0 §Copy Example). */
const ITEMS_SPEC = `openapi: 3.1.0
info:
  title: Example API
  version: 1.0.0
paths:
  /items:
    get:
      responses:
        200:
          description: OK
  /some-items:
    delete:
      responses:
        200:
          description: OK
`;

/** The document loadSpec gives for `spec` with these overlays (texts), and its warnings. */
async function overlaid(spec: string, ...overlays: string[]) {
  const loaded = await loadSpec(file('openapi.yaml', spec), { overlays: overlays.map((o) => file('overlay.yaml', o)) });
  return { doc: loaded.doc, warnings: loaded.warnings };
}

/** The SpecError loading `spec` with `overlay` rejects with; `overlayPath` is where the overlay was written. */
async function overlayError(overlay: string, spec = ITEMS_SPEC): Promise<{ error: SpecError; overlayPath: string }> {
  const overlayPath = file('bad.overlay.yaml', overlay);
  const error = await loadSpec(file('openapi.yaml', spec), { overlays: [overlayPath] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SpecError);
  expect((error as SpecError).message).not.toContain('\n');
  return { error: error as SpecError, overlayPath };
}

const head = (version = '1.1.0') => `overlay: ${version}\ninfo:\n  title: test\n  version: 1.0.0\n`;

describe("the Overlay specification's compliant sets", () => {
  for (const set of readdirSync(SETS).filter((name) => !name.includes('.'))) {
    it(`${set}: the output the set gives`, async () => {
      const spec = await loadSpec(join(SETS, set, 'openapi.yaml'), { overlays: [join(SETS, set, 'overlay.yaml')] });
      expect(spec.doc).toEqual(yaml(readFileSync(join(SETS, set, 'output.yaml'), 'utf8')));
      expect(spec.warnings.filter((w) => w.code === 'unmatched-overlay-target')).toEqual([]);
    });
  }
});

describe("the specification's examples, one per kind of action", () => {
  it('update merges into objects: new members added, primitives replaced, objects merged (Targeted Overlay Example)', async () => {
    const { doc } = await overlaid(
      ITEMS_SPEC,
      `${head()}actions:
  - target: $.paths['/items'].get
    update:
      summary: List the items
      responses: { '200': { description: Every item }, '404': { description: None } }
  - target: $.info.title
    update: Items API`,
    );
    expect(doc.info).toEqual({ title: 'Items API', version: '1.0.0' });
    expect(doc.paths).toMatchObject({
      '/items': { get: { summary: 'List the items', responses: { '200': { description: 'Every item' }, '404': { description: 'None' } } } },
    });
  });

  it('update appends an object to arrays and concatenates an array (Array Modification Examples)', async () => {
    const spec = ITEMS_SPEC.replace('    get:\n', '    get:\n      tags: [items]\n      parameters: [{ name: limit, in: query }]\n');
    const { doc } = await overlaid(
      spec,
      `${head()}actions:
  - target: $.paths.*.get.parameters
    update: { name: newParam, in: query }
  - target: $.paths.*.get.tags
    update: [dummy, public]
  - target: $.paths.*.get.tags[?@ == 'dummy']
    remove: true`,
    );
    const get = (doc.paths as Record<string, Record<string, Record<string, unknown>>>)['/items']!.get!;
    expect(get.parameters).toEqual([
      { name: 'limit', in: 'query' },
      { name: 'newParam', in: 'query' },
    ]);
    expect(get.tags).toEqual(['items', 'public']);
  });

  it('the Traits Example: a filter on an extension adds the paged parameters where the trait is', async () => {
    const spec = `openapi: 3.1.0
info: { title: API with a paged collection, version: 1.0.0 }
paths:
  /items:
    get:
      x-oai-traits: ['paged']
      responses: { 200: { description: OK } }
  /items/{id}/subitems:
    get:
      x-oai-traits: ['paged']
      parameters: [{ name: id, in: path, required: true }]
      responses: { 200: { description: OK } }
  /other:
    get:
      responses: { 200: { description: OK } }
`;
    const { doc } = await overlaid(
      spec,
      `${head('1.0.0')}actions:
  - target: $.paths[?(@.get['x-oai-traits'][?(@ == 'paged')])].get
    update:
      parameters: [{ name: top, in: query }, { name: skip, in: query }]`,
    );
    const paths = doc.paths as Record<string, { get: { parameters?: { name: string }[] } }>;
    expect(paths['/items']!.get.parameters!.map((p) => p.name)).toEqual(['top', 'skip']);
    expect(paths['/items/{id}/subitems']!.get.parameters!.map((p) => p.name)).toEqual(['id', 'top', 'skip']);
    expect(paths['/other']!.get.parameters).toBeUndefined();
  });

  it('copy merges the node it selects into the target; with update and remove it moves a path item (Move Example)', async () => {
    const { doc } = await overlaid(
      ITEMS_SPEC,
      `${head('1.2.0')}actions:
  - target: '$.paths["/some-items"]'
    copy: '$.paths["/items"]'
  - target: '$.paths'
    update: { "/new-items": {} }
  - target: '$.paths["/new-items"]'
    copy: '$.paths["/items"]'
  - target: '$.paths["/items"]'
    remove: true`,
    );
    const ok = { responses: { 200: { description: 'OK' } } };
    expect(doc.paths).toEqual({ '/some-items': { get: ok, delete: ok }, '/new-items': { get: ok } });
  });

  it('a copied or updated value is copied in: a later action on one place changes no other', async () => {
    const { doc } = await overlaid(
      ITEMS_SPEC,
      `${head()}actions:
  - target: $.paths.*
    update: { x-owner: { team: a } }
  - target: $.paths['/items']['x-owner']
    update: { team: b }`,
    );
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    expect(paths['/items']!['x-owner']).toEqual({ team: 'b' });
    expect(paths['/some-items']!['x-owner']).toEqual({ team: 'a' });
  });

  it('a filter with match() selects by an I-Regexp pattern (RFC 9535 §2.4.6)', async () => {
    const spec = ITEMS_SPEC.replace('    get:\n', '    get:\n      operationId: listItems\n').replace(
      '    delete:\n',
      '    delete:\n      operationId: deleteSomeItems\n',
    );
    const { doc } = await overlaid(
      spec,
      `${head()}actions:\n  - target: $.paths.*[?match(@.operationId, 'delete[A-Za-z]*')]\n    remove: true`,
    );
    expect(doc.paths).toEqual({ '/items': { get: expect.objectContaining({ operationId: 'listItems' }) as unknown }, '/some-items': {} });
  });

  it('reusable actions (1.2): each reference applies the reusable fields at its own target (Reusable Action Reference Example)', async () => {
    const { doc } = await overlaid(
      ITEMS_SPEC,
      `${head('1.2.0')}$self: https://example.com/overlays/errors.overlay.yaml
extends: ../openapi/items.yaml
components:
  actions:
    error~/Response:
      description: Adds an error response to the operation
      fields:
        update:
          404:
            description: Not Found
            content: { application/json: { schema: { type: object, properties: { message: { type: string } } } } }
actions:
- $ref: '#/components/actions/error~0~1Response'
  target: "$.paths['/items'].get.responses"
- $ref: '#/components/actions/error~0~1Response'
  target: "$.paths['/some-items'].delete.responses"
  description: the same error at another operation`,
    );
    const notFound = {
      description: 'Not Found',
      content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } },
    };
    expect(doc.paths).toEqual({
      '/items': { get: { responses: { 200: { description: 'OK' }, 404: notFound } } },
      '/some-items': { delete: { responses: { 200: { description: 'OK' }, 404: notFound } } },
    });
  });

  it('remove takes a node the target selects twice out once', async () => {
    const spec = ITEMS_SPEC.replace('    get:\n', '    get:\n      tags: [a, b, c]\n');
    const { doc } = await overlaid(spec, `${head()}actions:\n  - target: $.paths['/items'].get.tags[0,0,2]\n    remove: true`);
    expect((doc.paths as Record<string, Record<string, Record<string, unknown>>>)['/items']!.get!.tags).toEqual(['b']);
  });

  it('remove wins over update in the same action (the specification passes that overlay)', async () => {
    const { doc } = await overlaid(
      ITEMS_SPEC,
      `${head('1.2.0')}actions:\n  - target: $.paths['/items']\n    update: { summary: x }\n    remove: true`,
    );
    expect(Object.keys(doc.paths as object)).toEqual(['/some-items']);
  });

  it('a null over an object leaves it as it is (Structured Overlay Example), and the overlays apply in the order given', async () => {
    const { doc } = await overlaid(
      ITEMS_SPEC,
      `${head()}actions:\n  - target: $\n    update:\n      info: { x-overlay-applied: structured-overlay }\n      paths:\n      tags:`,
      `${head()}actions:\n  - target: $.info['x-overlay-applied']\n    update: second`,
    );
    expect(doc.info).toMatchObject({ 'x-overlay-applied': 'second' });
    expect(Object.keys(doc.paths as object)).toEqual(['/items', '/some-items']);
    expect(doc.tags).toBeNull();
  });

  it('a Swagger 2.0 spec is overlaid as written, before it is converted', async () => {
    const swagger = `swagger: '2.0'\ninfo: { title: S, version: '1' }\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses: { 200: { description: OK } }\n`;
    const { doc } = await overlaid(
      swagger,
      `${head()}actions:\n  - target: $.paths['/a'].get\n    update: { summary: Read A }\n  - target: $\n    update: { host: api.example.com, schemes: [https] }`,
    );
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
    expect(doc.paths).toMatchObject({ '/a': { get: { summary: 'Read A' } } });
  });

  it('an overlay member named __proto__ is data, never the prototype', async () => {
    const { doc } = await overlaid(ITEMS_SPEC, `${head()}actions:\n  - target: $.info\n    update: { "__proto__": { polluted: true } }`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(doc.info)).toBe(Object.prototype);
    expect(Object.keys(doc.info as object)).toContain('__proto__');
  });
});

describe('a target that matches nothing', () => {
  it('is a warning naming the overlay file, the action index and the target; the other actions apply', async () => {
    const overlay = `${head()}actions:\n  - target: $.info\n    update: { x-a: 1 }\n  - target: $.paths['/gone'].get\n    update: { summary: x }`;
    const overlayPath = file('unmatched.overlay.yaml', overlay);
    const spec = await loadSpec(file('openapi.yaml', ITEMS_SPEC), { overlays: [overlayPath] });
    expect(spec.doc.info).toMatchObject({ 'x-a': 1 });
    expect(spec.warnings).toEqual([
      {
        code: 'unmatched-overlay-target',
        message: `overlay action 1: target "$.paths['/gone'].get" matches nothing, so it changes nothing`,
        where: `${overlayPath}#/actions/1`,
      },
    ]);
  });
});

describe('malformed overlays: one line naming the file and the action', () => {
  const actions = (...lines: string[]) => `${head()}actions:\n${lines.join('\n')}`;
  const cases: [string, string, { where: string; message: RegExp }][] = [
    ['not an object', '- just a list', { where: '', message: /^the overlay is not a JSON\/YAML object$/ }],
    [
      'no overlay field',
      'info: { title: t, version: v }\nactions: [{ target: $ }]',
      { where: '', message: /^no "overlay" version field: not an Overlay document$/ },
    ],
    ['an OpenAPI document given as an overlay', ITEMS_SPEC, { where: '', message: /this is an OpenAPI document, not an overlay/ }],
    [
      'a version it does not apply',
      head('2.0.0') + 'actions: [{ target: $ }]',
      { where: '#/overlay', message: /^unsupported overlay version "2.0.0": mcp-gen applies Overlay 1.0.x, 1.1.x and 1.2.x$/ },
    ],
    [
      'a version without its patch number',
      head("'1.2'") + 'actions: [{ target: $ }]',
      { where: '#/overlay', message: /^unsupported overlay version "1.2"/ },
    ],
    [
      'no info',
      'overlay: 1.1.0\nactions: [{ target: $ }]',
      { where: '#/info', message: /^"info" must be an object with a title and a version$/ },
    ],
    [
      'an unknown field',
      head() + 'action: [{ target: $ }]',
      { where: '', message: /^"action" is not an overlay field \(did you mean "actions"\?\)/ },
    ],
    ['no actions', head() + 'actions: []', { where: '#/actions', message: /^"actions" must be a list of at least one action$/ }],
    [
      'an action without target',
      actions('  - target: $.info', '    update: { x: 1 }', '  - update: { x: 2 }'),
      { where: '#/actions/1', message: /^the action has no "target"/ },
    ],
    [
      'a target that is no JSONPath',
      actions('  - target: $.paths[', '    remove: true'),
      { where: '#/actions/0/target', message: /^"target" "\$\.paths\[" is not an RFC 9535 JSONPath query: Expected/ },
    ],
    [
      'a copy that is no JSONPath',
      actions("  - target: $.paths['/items']", '    copy: paths.items'),
      { where: '#/actions/0/copy', message: /^"copy" "paths\.items" is not an RFC 9535 JSONPath query/ },
    ],
    [
      'copy in a 1.0 overlay',
      head('1.0.0') + "actions:\n  - target: $.paths['/x']\n    copy: $.paths['/items']",
      { where: '#/actions/0', message: /^"copy" is an Overlay 1\.1 field: this overlay declares 1\.0 \(say "overlay: 1\.1\.0"\)$/ },
    ],
    [
      'update and copy together',
      actions("  - target: $.paths['/some-items']", "    copy: $.paths['/items']", '    update: {}'),
      { where: '#/actions/0', message: /^the action has both "update" and "copy"/ },
    ],
    [
      'a reusable action in a 1.1 overlay',
      actions("  - $ref: '#/components/actions/x'", '    target: $.info'),
      { where: '#/actions/0/$ref', message: /^a "\$ref" to a reusable action is Overlay 1\.2: this overlay declares 1\.1$/ },
    ],
    [
      'components in a 1.1 overlay',
      head() + 'components: {}\nactions: [{ target: $ }]',
      { where: '', message: /^"components" is an Overlay 1\.2 field/ },
    ],
    [
      'a $ref to no reusable action',
      head('1.2.0') +
        "components: { actions: { a: { fields: { remove: true } } } }\nactions:\n  - $ref: '#/components/actions/b'\n    target: $.info",
      { where: '#/actions/0/$ref', message: /^"\$ref" "#\/components\/actions\/b" points to no reusable action$/ },
    ],
    [
      'a reusable action with a target',
      head('1.2.0') + 'components: { actions: { a: { fields: { target: $.info, remove: true } } } }\nactions: [{ target: $ }]',
      { where: '#/components/actions/a/fields', message: /^"target" is not an overlay field/ },
    ],
    [
      '$self with a fragment (1.2)',
      head('1.2.0') + "$self: 'https://example.com/o.yaml#x'\nactions: [{ target: $ }]",
      { where: '#/$self', message: /^names a whole document: Overlay 1\.2 allows no "#" fragment here$/ },
    ],
    [
      'remove that is not a boolean',
      actions('  - target: $.info', '    remove: "yes"'),
      { where: '#/actions/0/remove', message: /^"remove" must be true or false$/ },
    ],
    [
      'the same action twice',
      actions('  - target: $.info.title', '    update: T', '  - update: T', '    target: $.info.title'),
      { where: '#/actions/1', message: /^action 1 repeats action 0/ },
    ],
    [
      'a copy that selects two nodes',
      actions("  - target: $.paths['/items']", '    copy: $.paths.*'),
      { where: '#/actions/0/copy', message: /selects 2 nodes; it must select exactly one$/ },
    ],
    [
      'a target that selects objects and primitives',
      actions('  - target: $.info', '    update: { x-contact: { team: a } }', '  - target: $.info.*', '    update: x'),
      { where: '#/actions/1', message: /^"target" selects primitives and objects at once; an update applies to one kind of node$/ },
    ],
    [
      'an update of the wrong kind',
      actions('  - target: $.info', '    update: a title'),
      { where: '#/actions/0', message: /^"target" selects objects, so "update" must be an object \(it is a primitive value\)$/ },
    ],
    [
      'a merge of an object onto a string',
      actions('  - target: $.info', '    update: { title: { en: T } }'),
      { where: '#/actions/0', message: /^merging "info.title": the spec has a primitive value there and the overlay an object/ },
    ],
    [
      'removing the whole document',
      actions('  - target: $', '    remove: true'),
      { where: '#/actions/0', message: /^"target" selects the whole document/ },
    ],
    [
      'a pattern that could backtrack without bound',
      actions("  - target: $.paths[?match(@.summary, '(a+)+b')]", '    remove: true'),
      { where: '#/actions/0/target', message: /gives match\(\) the pattern "\(a\+\)\+b", whose repeated group repeats or branches inside/ },
    ],
    [
      'a pattern taken from the document',
      actions('  - target: $.paths[?search(@.summary, @["x-pattern"])]', '    remove: true'),
      { where: '#/actions/0/target', message: /gives search\(\) a pattern that is not a string literal/ },
    ],
  ];
  for (const [name, overlay, want] of cases) {
    it(name, async () => {
      const { error, overlayPath } = await overlayError(overlay);
      expect(error.where).toBe(overlayPath + want.where);
      expect(error.message).toMatch(want.message);
    });
  }

  it('an overlay file that does not exist, or is not YAML', async () => {
    const missing = join(scratch, 'missing.overlay.yaml');
    await expect(loadSpec(file('openapi.yaml', ITEMS_SPEC), { overlays: [missing] })).rejects.toMatchObject({
      message: 'overlay file not found',
      where: missing,
    });
    const { error } = await overlayError('overlay: 1.1.0\n  info: [');
    expect(error.message).toMatch(/^the overlay is not valid YAML: bad indentation/);
  });

  it('a YAML alias bomb is refused as in a spec', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      bomb.push(
        `${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(10)
          .fill(`*${'abcdefghij'[i - 1]}`)
          .join(',')}]`,
      );
    const { error } = await overlayError(bomb.join('\n'));
    expect(error.message).toMatch(/^the overlay expands to more than 10,000,000 values/);
  });
});

describe('an overlay from a URL', () => {
  it('is downloaded from its own origin; an error answer or a redirect elsewhere is one line naming it', async () => {
    const overlay = `${head()}actions:\n  - target: $.info\n    update: { x-from-url: true }`;
    const upstream = await startUpstream((req) =>
      req.path === '/fix.overlay.yaml'
        ? { body: overlay }
        : req.path === '/moved.yaml'
          ? { status: 302, headers: { location: 'http://127.0.0.2:9/fix.overlay.yaml' } }
          : { status: 404 },
    );
    try {
      const spec = await loadSpec(file('openapi.yaml', ITEMS_SPEC), { overlays: [`${upstream.url}/fix.overlay.yaml`] });
      expect(spec.doc.info).toMatchObject({ 'x-from-url': true });
      const missing = `${upstream.url}/gone.yaml`;
      await expect(loadSpec(file('openapi.yaml', ITEMS_SPEC), { overlays: [missing] })).rejects.toMatchObject({
        message: `cannot download ${missing}: HTTP 404`,
        where: missing,
      });
      const moved = `${upstream.url}/moved.yaml`;
      await expect(loadSpec(file('openapi.yaml', ITEMS_SPEC), { overlays: [moved] })).rejects.toMatchObject({
        message: 'the overlay URL redirects to another origin, which is not followed',
        where: moved,
      });
      expect(upstream.requests.map((r) => r.path)).toEqual(['/fix.overlay.yaml', '/gone.yaml', '/moved.yaml']);
    } finally {
      await upstream.close();
    }
  });
});

describe('the JSONPath library', () => {
  it('is loaded only by a run with overlays (it costs ~40 ms)', () => {
    buildCli();
    const loadedFor = (overlays: string[]) => {
      // a resolve hook that says which modules of jsonpath-rfc9535 the run imports
      const hook = `export async function resolve(s, c, next) { if (s.startsWith('jsonpath-rfc9535')) console.log(s); return next(s, c); }`;
      const script = [
        `import { register } from 'node:module';`,
        `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`,
        `const { loadSpec } = await import(${JSON.stringify(pathToFileURL(`${REPO}/dist/src/parse/load.js`).href)});`,
        `await loadSpec(${JSON.stringify(join(REPO, 'samples/petstore/openapi.json'))}, { overlays: ${JSON.stringify(overlays)} });`,
      ].join('\n');
      return execFileSync('node', ['--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' }).split('\n').filter(Boolean);
    };
    expect(loadedFor([])).toEqual([]);
    expect(loadedFor([join(SETS, 'add-a-license/overlay.yaml')])).toEqual(['jsonpath-rfc9535', 'jsonpath-rfc9535/parser']);
  });
});
