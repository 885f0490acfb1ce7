// The options layer: command-line flags and the config file, merged and resolved into the one
// set of options the model reads, under the same names at every step.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { optionsFromCommandLine, withModelOptions, withTargetOption, type CliFlags } from '../../src/flags.js';
import { MODEL_DEFAULTS, withModelDefaults, type ModelOptions } from '../../src/model/model-options.js';
import { readConfigFile, resolveOptions, type ResolvedOptions } from '../../src/options.js';
import { OptionsError } from '../../src/errors.js';

/** A fresh folder holding `config` as mcp-gen.config.yaml, if given. */
function folderWith(config: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gen-options-'));
  if (config !== undefined) writeFileSync(join(dir, 'mcp-gen.config.yaml'), config);
  return dir;
}

/** What `mcp-gen <argv>` run in a folder holding `config` resolves to. */
function resolvedFrom(argv: string[], config?: string): ResolvedOptions {
  const program = withTargetOption(withModelOptions(new Command().argument('[spec]'))).exitOverride();
  program.parse(argv, { from: 'user' });
  return resolveOptions({}, optionsFromCommandLine(program.opts<CliFlags>(), program.args[0], folderWith(config)));
}

/** The part of the resolved options the model reads. */
function modelPart(resolved: ResolvedOptions): ModelOptions {
  const {
    spec: _spec,
    out: _out,
    force: _f,
    check: _c,
    dryRun: _d,
    targets: _t,
    allowRemoteRefs: _r,
    allowInternalServers: _i,
    allowRefDir: _a,
    overlays: _o,
    apis: _apis,
    baseUrls: _b,
    ...model
  } = resolved;
  return model;
}

describe('flags and config file → model options', () => {
  const cases: [string, { argv: string[]; config?: string; want: ModelOptions }][] = [
    ['the defaults, each from MODEL_DEFAULTS', { argv: ['s.yaml'], want: MODEL_DEFAULTS }],
    ['--list-budget in KB, as listBudgetKb', { argv: ['s.yaml', '--list-budget', '40'], want: { listBudgetKb: 40 } }],
    ['listBudgetKb in the file', { argv: ['s.yaml'], config: 'listBudgetKb: 30\n', want: { listBudgetKb: 30 } }],
    ['a flag over the file', { argv: ['s.yaml', '--list-budget', '40'], config: 'listBudgetKb: 30\n', want: { listBudgetKb: 40 } }],
    ['--max-description as maxDescriptionLength', { argv: ['s.yaml', '--max-description', '80'], want: { maxDescriptionLength: 80 } }],
    ['--tools as toolMode', { argv: ['s.yaml', '--tools', 'dynamic'], want: { toolMode: 'dynamic' } }],
    ['toolMode in the file', { argv: ['s.yaml'], config: 'toolMode: toolsets\n', want: { toolMode: 'toolsets' } }],
    ['--max-tools', { argv: ['s.yaml', '--max-tools', '40'], want: { maxTools: 40 } }],
    ['--dynamic-threshold, the earlier name of maxTools', { argv: ['s.yaml', '--dynamic-threshold', '30'], want: { maxTools: 30 } }],
    [
      'maxTools over its earlier name, wherever each is given',
      { argv: ['s.yaml', '--dynamic-threshold', '30'], config: 'maxTools: 50\n', want: { maxTools: 50 } },
    ],
    [
      'toolOverrides in the file',
      {
        argv: ['s.yaml'],
        config: 'toolOverrides:\n  getPet: { name: get_pet }\n',
        want: { toolOverrides: { getPet: { name: 'get_pet' } } },
      },
    ],
    [
      'an object-valued tools in the file, as toolOverrides',
      { argv: ['s.yaml'], config: 'tools:\n  getPet: { name: get_pet }\n', want: { toolOverrides: { getPet: { name: 'get_pet' } } } },
    ],
    [
      "--tools beside the file's tools: the mode and the overrides",
      {
        argv: ['s.yaml', '--tools', 'direct'],
        config: 'tools:\n  getPet: { exclude: true }\n',
        want: { toolMode: 'direct', toolOverrides: { getPet: { exclude: true } } },
      },
    ],
    [
      'the selection flags, flat as in the file',
      {
        argv: ['s.yaml', '--read-only', '--include-tags', 'pets, store', '--methods', 'GET'],
        config: 'excludePaths: ["/admin/**"]\n',
        want: { readOnly: true, includeTags: ['pets', 'store'], methods: ['GET'], excludePaths: ['/admin/**'] },
      },
    ],
    [
      '--keep-examples and --keep-extensions',
      { argv: ['s.yaml', '--keep-examples', '--keep-extensions'], want: { keepExamples: true, keepExtensions: true } },
    ],
    ['--name', { argv: ['s.yaml', '--name', 'pets-mcp'], want: { name: 'pets-mcp' } }],
    ['--env-prefix without its trailing underscores', { argv: ['s.yaml', '--env-prefix', 'ACME__'], want: { envPrefix: 'ACME' } }],
    ['--resources get', { argv: ['s.yaml', '--resources', 'get'], want: { resources: 'get' } }],
    ['--direct-tools', { argv: ['s.yaml', '--direct-tools', 'getPet*'], want: { directTools: ['getPet*'] } }],
    [
      'scopes in the file, as given',
      {
        argv: ['s.yaml'],
        config: 'scopes:\n  - { toolsets: [admin], methods: [DELETE], scopes: ["api:admin", "api:delete"] }\n  - { scopes: [] }\n',
        want: { scopes: [{ toolsets: ['admin'], methods: ['DELETE'], scopes: ['api:admin', 'api:delete'] }, { scopes: [] }] },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { argv, config, want }) => {
    expect(modelPart(resolvedFrom(argv, config))).toEqual({ ...MODEL_DEFAULTS, ...want });
  });
});

describe('the config file', () => {
  it('refuses tools and toolOverrides together: they are one option', () => {
    const dir = folderWith('tools: { a: { exclude: true } }\ntoolOverrides: { b: { exclude: true } }\n');
    expect(() => readConfigFile(join(dir, 'mcp-gen.config.yaml'))).toThrow(OptionsError);
    expect(() => readConfigFile(join(dir, 'mcp-gen.config.yaml'))).toThrow(/"tools" and "toolOverrides" are the same option/);
  });

  it.each([
    ['toolOverrides', 'toolOverrides:\n  x: { rename: y }\n', /"toolOverrides"\."x"\.rename/],
    ['tools', 'tools:\n  x: { rename: y }\n', /"tools"\."x"\.rename/],
    ['tools given a mode (that is --tools on the command line)', 'tools: dynamic\n', /"tools" must map operations/],
    [
      'baseUrls (that is --base-url <namespace>=<url> on the command line)',
      'baseUrls: { zoo: "https://zoo.example" }\n',
      /"baseUrls" is the command line's --base-url <namespace>=<url>; in the file, give each API's "baseUrl" in "apis"/,
    ],
  ])('checks %s and names the key as written', (_name, text, message) => {
    const dir = folderWith(text);
    expect(() => readConfigFile(join(dir, 'mcp-gen.config.yaml'))).toThrow(message);
  });
});

describe('overlays', () => {
  it('are none by default; --overlay, repeated, gives them in order', () => {
    expect(resolvedFrom(['s.yaml']).overlays).toEqual([]);
    expect(resolvedFrom(['s.yaml', '--overlay', 'a.yaml', '--overlay', 'https://example.com/b.yaml']).overlays).toEqual([
      'a.yaml',
      'https://example.com/b.yaml',
    ]);
  });

  it('in the config file are relative to it (URLs as they are), and --overlay replaces them', () => {
    const dir = folderWith('overlays: [fixes/a.overlay.yaml, "https://example.com/b.yaml"]\n');
    expect(readConfigFile(join(dir, 'mcp-gen.config.yaml')).overlays).toEqual([
      join(dir, 'fixes/a.overlay.yaml'),
      'https://example.com/b.yaml',
    ]);
    const program = withModelOptions(new Command().argument('[spec]')).exitOverride();
    program.parse(['s.yaml', '--overlay', 'c.yaml'], { from: 'user' });
    expect(optionsFromCommandLine(program.opts<CliFlags>(), 's.yaml', dir).overlays).toEqual(['c.yaml']);
  });
});

describe('each kind of value is checked, and the message names the key', () => {
  const cases: [string, { given: string; message: RegExp }][] = [
    ['a number', { given: 'maxTools: 0\n', message: /"maxTools" must be a whole number above 0$/ }],
    ['a string', { given: 'name: 3\n', message: /"name" must be a string$/ }],
    ['a list of strings', { given: 'overlays: fix.overlay.yaml\n', message: /"overlays" must be a list of strings$/ }],
    ['a resource preset', { given: 'resources: all\n', message: /"resources" must be none or get$/ }],
    ['prompts', { given: 'prompts: {}\n', message: /"prompts" must be a list of/ }],
    [
      'a route without a kind',
      { given: 'routes: [{ paths: ["/a"] }]\n', message: /"routes"\[0\] needs a kind: tool, resource, both, exclude$/ },
    ],
    [
      'a route of an unknown kind',
      { given: 'routes: [{ kind: page }]\n', message: /"routes"\[0\]\.kind must be tool, resource, both, exclude$/ },
    ],
    ['a route criterion', { given: 'routes: [{ kind: tool, verbs: [GET] }]\n', message: /"routes"\[0\]\.verbs: expected methods/ }],
    [
      'a toolset rule',
      { given: 'toolsets: { admin: { tag: [a] } }\n', message: /"toolsets"\."admin"\.tag: expected tags, paths or operations/ },
    ],
    [
      'a toolset name',
      { given: 'toolsets: { "--": { tags: [a] } }\n', message: /"toolsets"\."--": a toolset name needs a letter or digit$/ },
    ],
    [
      'an override toolset',
      { given: 'toolOverrides: { x: { toolset: "" } }\n', message: /"toolOverrides"\."x"\.toolset: a toolset name needs/ },
    ],
  ];
  it.each(cases)('%s', (_name, { given, message }) => {
    const dir = folderWith(given);
    expect(() => readConfigFile(join(dir, 'mcp-gen.config.yaml'))).toThrow(message);
  });
});

describe('scopes rules are checked when the file is read, one line naming the place', () => {
  const cases: [string, { given: string; message: RegExp | undefined }][] = [
    ['the example rules', { given: '{"scopes": [{"toolsets": ["admin"], "scopes": ["api:admin"]}, {"scopes": []}]}', message: undefined }],
    [
      'not a list',
      {
        given: '{"scopes": {"admin": ["a"]}}',
        message: /: "scopes" must be a list of \{ methods, paths, tags, operations, toolsets, scopes \}$/,
      },
    ],
    ['a rule that is no object', { given: '{"scopes": ["api:read"]}', message: /: "scopes"\[0\] must be an object$/ }],
    [
      'a scope with a space',
      {
        given: '{"scopes": [{"scopes": []}, {"scopes": []}, {"scopes": ["a b"]}]}',
        message:
          /: "scopes"\[2\]\.scopes\[0\] "a b" is not an OAuth scope \(RFC 6749 scope-token: printable ASCII without space, " or \\\)$/,
      },
    ],
    [
      'a scope with a double quote',
      { given: '{"scopes": [{"scopes": ["ok", "a\\"b"]}]}', message: /"scopes"\[0\]\.scopes\[1\] "a\\"b" is not an OAuth scope/ },
    ],
    ['an empty scope', { given: '{"scopes": [{"scopes": [""]}]}', message: /"scopes"\[0\]\.scopes\[0\] "" is not an OAuth scope/ }],
    [
      'a rule without scopes',
      {
        given: '{"scopes": [{"methods": ["GET"]}]}',
        message: /"scopes"\[0\] needs scopes: the OAuth scopes the tools it matches require \(\[\] for none\)$/,
      },
    ],
    [
      'an unknown key',
      {
        given: '{"scopes": [{"scope": ["a"]}]}',
        message: /"scopes"\[0\]\.scope: expected methods, paths, tags, operations, toolsets and scopes, each a list of strings$/,
      },
    ],
    [
      'a criterion that is no list',
      { given: '{"scopes": [{"methods": "GET", "scopes": []}]}', message: /"scopes"\[0\]\.methods: expected methods/ },
    ],
    ['scopes that are no list', { given: '{"scopes": [{"scopes": "api:read"}]}', message: /"scopes"\[0\]\.scopes: expected methods/ }],
    [
      'a toolset not named as tools carry it',
      {
        given: '{"scopes": [{"toolsets": ["Admin Tools"], "scopes": []}]}',
        message:
          /"scopes"\[0\]\.toolsets\[0\] "Admin Tools" is not a toolset name as tools carry it \(lower-case letters, digits and "-"\): did you mean "admin-tools"\?$/,
      },
    ],
    [
      'an empty toolset name',
      {
        given: '{"scopes": [{"toolsets": [""], "scopes": []}]}',
        message: /"scopes"\[0\]\.toolsets\[0\] "" is not a toolset name as tools carry it \(lower-case letters, digits and "-"\)$/,
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, message }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-gen-scopes-'));
    const file = join(dir, 'mcp-gen.config.json');
    writeFileSync(file, given);
    if (message === undefined) expect(readConfigFile(file).scopes).toEqual(JSON.parse(given).scopes);
    else {
      expect(() => readConfigFile(file)).toThrow(OptionsError);
      expect(() => readConfigFile(file)).toThrow(message);
      expect(() => readConfigFile(file)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    }
  });

  it('and when given in code (generate() options), before any generation', () => {
    expect(() => resolveOptions({}, { spec: 's.yaml', scopes: [{ scopes: ['a b'] }] })).toThrow(
      /^options: "scopes"\[0\]\.scopes\[0\] "a b" is not an OAuth scope/,
    );
    expect(resolveOptions({}, { spec: 's.yaml', scopes: [{ tags: ['x'], scopes: ['a'] }] }).scopes).toEqual([
      { tags: ['x'], scopes: ['a'] },
    ]);
  });
});

describe('withModelDefaults', () => {
  const cases: [string, { given: ModelOptions; want: ModelOptions }][] = [
    ['nothing given: the defaults', { given: {}, want: MODEL_DEFAULTS }],
    ['undefined is not given', { given: { maxTools: undefined, toolMode: undefined }, want: MODEL_DEFAULTS }],
    ['given wins', { given: { maxTools: 7, listBudgetKb: 1 }, want: { ...MODEL_DEFAULTS, maxTools: 7, listBudgetKb: 1 } }],
    ['no default: kept as given', { given: { readOnly: false, name: 'x' }, want: { ...MODEL_DEFAULTS, readOnly: false, name: 'x' } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(withModelDefaults(given)).toEqual(want);
  });
});

describe('targets (--target, "targets")', () => {
  it('are node by default, and taken from the flag over the file', () => {
    expect(resolvedFrom(['s.yaml']).targets).toEqual(['node']);
    expect(resolvedFrom(['s.yaml'], 'targets: [deno]\n').targets).toEqual(['deno']);
    expect(resolvedFrom(['s.yaml', '--target', 'node, cloudflare'], 'targets: [deno]\n').targets).toEqual(['node', 'cloudflare']);
  });

  it('refuse a target that is none, naming the one meant', () => {
    expect(() => resolvedFrom(['s.yaml', '--target', 'cloudflaer'])).toThrow(
      /expected targets among node, cloudflare, deno, lambda, vercel .*did you mean "cloudflare"/,
    );
    const dir = folderWith('targets: [node, lambdaa]\n');
    expect(() => readConfigFile(join(dir, 'mcp-gen.config.yaml'))).toThrow(/"targets" must list targets among .*got "lambdaa"/);
    const notList = folderWith('targets: deno\n');
    expect(() => readConfigFile(join(notList, 'mcp-gen.config.yaml'))).toThrow(/"targets" must list targets among/);
  });
});
