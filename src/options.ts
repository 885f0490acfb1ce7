// One options type for the CLI flags (flags.ts) and the config file (mcp-gen.config.json /
// .yaml), normalised once into ResolvedOptions. Flags win over the file; the file over defaults.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { jsYaml } from './parse/yaml.js';
import { OptionsError } from './errors.js';
import { toolsetSlug as toolsetName } from './contract/toolsets.js';
import { isScopeToken } from './model/scopes.js';
import { nearest } from './contract/did-you-mean.js';
import { TARGETS, type Target } from './contract/targets.js';
import {
  RESOURCE_PRESETS,
  ROUTE_KINDS,
  TOOL_MODES,
  withModelDefaults,
  type ModelOptions,
  type ResolvedModelOptions,
  type ScopeRule,
  type ToolModeOption,
} from './model/model-options.js';

/**
 * What an API of several may choose for itself (`apis[i].<key>`), as the server-wide key does
 * for every API: its filters, operations' overrides and scope rules.
 */
const PER_API_KEYS = [
  'includeTags',
  'excludeTags',
  'includeOperations',
  'excludeOperations',
  'includePaths',
  'excludePaths',
  'methods',
  'toolOverrides',
  'scopes',
] as const;
type PerApiOptions = Pick<ModelOptions, (typeof PER_API_KEYS)[number]>;

/** One API of a server over several (the config file's `apis`, or several specs on the command line). */
interface ApiOption extends PerApiOptions {
  spec: string;
  /** Prefix of its tools and credential variables, `[a-z0-9_]`; default: from its spec, as the package name. */
  namespace?: string;
  /** Its upstream, in place of its spec's servers (`<NAMESPACE>_BASE_URL` still wins at run time). */
  baseUrl?: string;
  /** Its own --retries and --rate-limit (`<NAMESPACE>_RETRIES`, `<NAMESPACE>_RATE_LIMIT` still win at run time). */
  retries?: number;
  rateLimit?: number;
}

/** Where the spec comes from, and what reading it may reach. */
interface SourceOptions {
  spec?: string;
  /** Several APIs served as one: each its spec, namespace and base URL (model/apis.ts). */
  apis?: ApiOption[];
  allowRemoteRefs?: boolean;
  /** A spec from a URL may name internal addresses as its servers and tokenUrl (see model/upstreams.ts). */
  allowInternalServers?: boolean;
  /** Folders local `$ref`s may read besides the spec's own. */
  allowRefDir?: string[];
  /** Overlay files or URLs (OpenAPI Overlay 1.0–1.2), applied in order to the spec before anything reads it. */
  overlays?: string[];
  /** `--base-url <namespace>=<url>`: an API's upstream over its `baseUrl` in `apis` (command line only). */
  baseUrls?: Record<string, string>;
}

/** Where and how the project is written. */
interface OutputOptions {
  out?: string;
  force?: boolean;
  check?: boolean;
  dryRun?: boolean;
  /** Where the server runs (--target): Node, and platforms whose entry and config the project gets. */
  targets?: Target[];
  /** The server's name in the MCP Registry (server.json, package.json's mcpName): `io.github.<owner>/<name>`. */
  mcpName?: string;
}

/** What a user gives, on the command line or in the config file: everything optional. */
export interface UserOptions extends Omit<ModelOptions, 'titleNamesCredentials' | 'ownConfig'>, SourceOptions, OutputOptions {
  /** The same as maxTools (its earlier name); maxTools wins when both are given. */
  dynamicThreshold?: number;
}

/** UserOptions with every default filled in (MODEL_DEFAULTS for the model's). */
export interface ResolvedOptions
  extends ResolvedModelOptions, Required<Omit<SourceOptions, 'spec'>>, Required<Omit<OutputOptions, 'out' | 'mcpName'>> {
  /** The one spec, or the first of `apis`. */
  spec: string;
  out?: string;
  mcpName?: string;
}

const CONFIG_FILES = ['mcp-gen.config.json', 'mcp-gen.config.yaml', 'mcp-gen.config.yml'];

/** The config file's earlier name for toolOverrides, still read (an object-valued `tools`). */
const OVERRIDES_ALIAS = 'tools';

const KEYS: Record<
  keyof UserOptions | typeof OVERRIDES_ALIAS,
  | 'string'
  | 'boolean'
  | 'number'
  | 'strings'
  | 'overrides'
  | 'mode'
  | 'toolsets'
  | 'routes'
  | 'scopes'
  | 'preset'
  | 'prompts'
  | 'targets'
  | 'apis'
  | 'baseUrls'
> = {
  spec: 'string',
  apis: 'apis',
  out: 'string',
  name: 'string',
  force: 'boolean',
  check: 'boolean',
  dryRun: 'boolean',
  targets: 'targets',
  mcpName: 'string',
  allowRemoteRefs: 'boolean',
  allowInternalServers: 'boolean',
  allowRefDir: 'strings',
  overlays: 'strings',
  baseUrls: 'baseUrls',
  maxDescriptionLength: 'number',
  includeTags: 'strings',
  excludeTags: 'strings',
  includeOperations: 'strings',
  excludeOperations: 'strings',
  includePaths: 'strings',
  excludePaths: 'strings',
  methods: 'strings',
  readOnly: 'boolean',
  toolOverrides: 'overrides',
  [OVERRIDES_ALIAS]: 'overrides',
  toolMode: 'mode',
  maxTools: 'number',
  dynamicThreshold: 'number',
  listBudgetKb: 'number',
  toolsets: 'toolsets',
  directTools: 'strings',
  routes: 'routes',
  scopes: 'scopes',
  resources: 'preset',
  prompts: 'prompts',
  keepExamples: 'boolean',
  keepExtensions: 'boolean',
  envPrefix: 'string',
};

/** Reads and checks a config file; paths in it are relative to the file. */
export function readConfigFile(path: string): UserOptions {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new OptionsError(`config file ${path} cannot be read`);
  }
  let data: unknown;
  try {
    data = path.endsWith('.json') ? JSON.parse(text) : jsYaml().load(text);
  } catch (error) {
    throw new OptionsError(`config file ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  const options = checkOptions(data, path);
  // A config file can come with a cloned repository: it may not overwrite the user's files
  // (force) nor aim the output at them (out above or at its own folder).
  if (options.force !== undefined) throw new OptionsError(`${path}: "force" may only be given on the command line`);
  const base = dirname(resolve(path));
  if (options.spec && !/^https?:\/\//i.test(options.spec)) options.spec = resolve(base, options.spec);
  options.apis = options.apis?.map((api) => (/^https?:\/\//i.test(api.spec) ? api : { ...api, spec: resolve(base, api.spec) }));
  if (options.allowRefDir) options.allowRefDir = options.allowRefDir.map((dir) => resolve(base, dir));
  if (options.overlays) options.overlays = options.overlays.map((o) => (/^https?:\/\//i.test(o) ? o : resolve(base, o)));
  if (options.out !== undefined) {
    options.out = resolve(base, options.out);
    const inside = relative(realPathOf(base), realPathOf(options.out));
    if (inside === '' || inside === '..' || inside.startsWith('..' + sep) || isAbsolute(inside)) {
      throw new OptionsError(
        `${path}: "out" must be a folder inside the config file's folder; give any other with --out on the command line`,
      );
    }
  }
  return options;
}

/** `path` with links resolved as far as it exists (what does not exist yet is no link). */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPathOf(parent), basename(path));
  }
}

/** The config file to use: the one named, or the first of CONFIG_FILES in `cwd`. */
export function findConfigFile(named: string | undefined, cwd: string): string | undefined {
  if (named) {
    if (!existsSync(named)) throw new OptionsError(`config file ${named} not found`);
    return named;
  }
  return CONFIG_FILES.map((f) => resolve(cwd, f)).find((f) => existsSync(f));
}

export function checkOptions(data: unknown, where: string): UserOptions {
  if (!isPlainObject(data)) throw new OptionsError(`${where}: must be an object`);
  for (const [key, value] of Object.entries(data)) {
    const kind = KEYS[key as keyof typeof KEYS];
    const at = `${where}: "${key}"`;
    if (!kind) {
      const typo = nearest(key, Object.keys(KEYS));
      throw new OptionsError(`${at} is not an option${typo ? ` (did you mean "${typo}"?)` : ` (known: ${Object.keys(KEYS).join(', ')})`}`);
    }
    CHECKS[kind](value, at);
  }
  return withOverridesUnderOneName(data as UserOptions & { [OVERRIDES_ALIAS]?: UserOptions['toolOverrides'] }, where);
}

const isPlainObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringList = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** One check per kind of option value: each throws an OptionsError that names the place `at`. */
const CHECKS: Record<(typeof KEYS)[keyof typeof KEYS], (value: unknown, at: string) => void> = {
  strings: (value, at) => {
    if (!isStringList(value)) throw new OptionsError(`${at} must be a list of strings`);
  },
  string: (value, at) => {
    if (typeof value !== 'string') throw new OptionsError(`${at} must be a string`);
  },
  boolean: (value, at) => {
    if (typeof value !== 'boolean') throw new OptionsError(`${at} must be true or false`);
  },
  number: (value, at) => {
    if (!(Number.isInteger(value) && (value as number) > 0)) throw new OptionsError(`${at} must be a whole number above 0`);
  },
  mode: (value, at) => {
    if (!TOOL_MODES.includes(value as ToolModeOption)) throw new OptionsError(`${at} must be auto, direct, toolsets, dynamic or code`);
  },
  prompts: (value, at) => {
    if (!Array.isArray(value)) throw new OptionsError(`${at} must be a list of { name, description, arguments, template }`);
  },
  preset: (value, at) => {
    if (!(RESOURCE_PRESETS as unknown[]).includes(value)) throw new OptionsError(`${at} must be ${RESOURCE_PRESETS.join(' or ')}`);
  },
  targets: (value, at) => {
    const list = isStringList(value) ? (value as string[]) : [];
    const wrong = isStringList(value) ? list.find((t) => !(TARGETS as readonly string[]).includes(t)) : '';
    if (wrong !== undefined) throw new OptionsError(targetsError(at, wrong));
  },
  routes: checkRoutes,
  scopes: checkScopeRules,
  toolsets: checkToolsets,
  overrides: checkOverrides,
  apis: checkApis,
  baseUrls: (_value, at) => {
    throw new OptionsError(`${at} is the command line's --base-url <namespace>=<url>; in the file, give each API's "baseUrl" in "apis"`);
  },
};

/** `apis`: a list of { spec, namespace, baseUrl, retries, rateLimit }, the namespaces `[a-z0-9_]` and each once. */
function checkApis(value: unknown, at: string): void {
  if (!Array.isArray(value) || value.length === 0) throw new OptionsError(`${at} must be a list of { spec, namespace, baseUrl }`);
  value.forEach((api: unknown, i: number) => {
    const place = `${at}[${i}]`;
    if (!isPlainObject(api) || typeof (api as ApiOption).spec !== 'string')
      throw new OptionsError(`${place} must be { spec, namespace, baseUrl } with a spec`);
    for (const [k, v] of Object.entries(api)) checkApiKey(`${place}.${k}`, k, v);
    const { namespace, baseUrl } = api as ApiOption;
    if (namespace !== undefined && !/^[a-z][a-z0-9_]{0,29}$/.test(namespace))
      throw new OptionsError(
        `${place}.namespace "${namespace}" must be lower-case letters, digits and "_", starting with a letter, at most 30 characters`,
      );
    if (baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(baseUrl))
      throw new OptionsError(`${place}.baseUrl "${baseUrl}" must be an http(s) URL`);
  });
}

/** One key of an `apis` entry: spec, namespace and baseUrl strings; retries and rateLimit as the server's --retries and --rate-limit take them. */
function checkApiKey(at: string, key: string, value: unknown): void {
  if (key === 'retries') {
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 10)
      throw new OptionsError(`${at} must be a whole number from 0 to 10 (as --retries)`);
  } else if (key === 'rateLimit') {
    if (typeof value !== 'number' || !(value > 0 && value <= 100_000))
      throw new OptionsError(`${at} must be a number of requests per second above 0, at most 100000 (as --rate-limit)`);
  } else if ((PER_API_KEYS as readonly string[]).includes(key)) {
    CHECKS[KEYS[key as (typeof PER_API_KEYS)[number]]](value, at);
  } else if (!['spec', 'namespace', 'baseUrl'].includes(key) || typeof value !== 'string') {
    throw new OptionsError(
      `${at}: expected spec, namespace and baseUrl (strings), retries and rateLimit (numbers), or ${PER_API_KEYS.join(', ')}`,
    );
  }
}

function checkRoutes(value: unknown, at: string): void {
  if (!Array.isArray(value)) throw new OptionsError(`${at} must be a list of { methods, paths, tags, operations, kind }`);
  value.forEach((rule: unknown, i: number) => {
    const place = `${at}[${i}]`;
    if (!isPlainObject(rule)) throw new OptionsError(`${place} must be an object`);
    for (const [k, v] of Object.entries(rule)) {
      if (k === 'kind') {
        if (!(ROUTE_KINDS as unknown[]).includes(v)) throw new OptionsError(`${place}.kind must be ${ROUTE_KINDS.join(', ')}`);
      } else if (!['methods', 'paths', 'tags', 'operations'].includes(k) || !isStringList(v)) {
        throw new OptionsError(`${place}.${k}: expected methods, paths, tags or operations (lists of strings) and kind`);
      }
    }
    if (!('kind' in rule)) throw new OptionsError(`${place} needs a kind: ${ROUTE_KINDS.join(', ')}`);
  });
}

const SCOPE_CRITERIA = ['methods', 'paths', 'tags', 'operations', 'toolsets'];

/** The `scopes` rules: criteria as routes have them plus toolsets (names as tools carry them), and the OAuth scopes. */
function checkScopeRules(value: unknown, at: string): asserts value is ScopeRule[] {
  if (!Array.isArray(value)) throw new OptionsError(`${at} must be a list of { methods, paths, tags, operations, toolsets, scopes }`);
  value.forEach((rule: unknown, i: number) => {
    const place = `${at}[${i}]`;
    if (!isPlainObject(rule)) throw new OptionsError(`${place} must be an object`);
    for (const [k, v] of Object.entries(rule)) {
      if (!(k === 'scopes' || SCOPE_CRITERIA.includes(k)) || !isStringList(v)) {
        throw new OptionsError(`${place}.${k}: expected methods, paths, tags, operations, toolsets and scopes, each a list of strings`);
      }
    }
    const { toolsets, scopes } = rule as Partial<ScopeRule>;
    toolsets?.forEach((name, j) => {
      if (name === '' || toolsetName(name) !== name) {
        const slug = toolsetName(name);
        throw new OptionsError(
          `${place}.toolsets[${j}] ${JSON.stringify(name)} is not a toolset name as tools carry it (lower-case letters, digits and "-")${slug ? `: did you mean ${JSON.stringify(slug)}?` : ''}`,
        );
      }
    });
    if (scopes === undefined) throw new OptionsError(`${place} needs scopes: the OAuth scopes the tools it matches require ([] for none)`);
    scopes.forEach((scope, j) => {
      if (!isScopeToken(scope)) {
        throw new OptionsError(
          `${place}.scopes[${j}] ${JSON.stringify(scope)} is not an OAuth scope (RFC 6749 scope-token: printable ASCII without space, " or \\)`,
        );
      }
    });
  });
}

function checkToolsets(value: unknown, at: string): void {
  if (!isPlainObject(value)) throw new OptionsError(`${at} must map toolset names to { tags, paths, operations }`);
  for (const [name, rule] of Object.entries(value)) {
    if (toolsetName(name) === '') throw new OptionsError(`${at}."${name}": a toolset name needs a letter or digit`);
    if (!isPlainObject(rule)) throw new OptionsError(`${at}."${name}" must be an object`);
    for (const [k, v] of Object.entries(rule)) {
      if (!['tags', 'paths', 'operations'].includes(k) || !isStringList(v)) {
        throw new OptionsError(`${at}."${name}".${k}: expected tags, paths or operations, each a list of strings`);
      }
    }
  }
}

function checkOverrides(value: unknown, at: string): void {
  if (!isPlainObject(value))
    throw new OptionsError(`${at} must map operations to { name, description, toolset, exclude, confirm, apps, arguments }`);
  for (const [op, override] of Object.entries(value)) {
    if (typeof override !== 'object' || override === null) throw new OptionsError(`${at}."${op}" must be an object`);
    for (const [k, v] of Object.entries(override)) {
      if (k === 'arguments') {
        checkArgumentOverrides(v, `${at}."${op}".arguments`);
        continue;
      }
      const flag = k === 'exclude' || k === 'confirm' || k === 'apps';
      if (flag ? typeof v !== 'boolean' : !(k === 'name' || k === 'description' || k === 'toolset') || typeof v !== 'string') {
        throw new OptionsError(
          `${at}."${op}".${k}: expected name (string), description (string), toolset (string), exclude (boolean), confirm (boolean), apps (boolean) or arguments (object)`,
        );
      }
      if (k === 'toolset' && toolsetName(v as string) === '')
        throw new OptionsError(`${at}."${op}".toolset: a toolset name needs a letter or digit`);
    }
  }
}

const ARGUMENT_KEYS = ['hidden', 'value', 'env', 'default', 'description', 'name', 'enum'];
/** What a hidden argument is not listed with. */
const LISTED_ONLY = ['default', 'description', 'name', 'enum'];

/** `toolOverrides.<operation>.arguments`: each argument's override well formed, its options not in conflict. */
function checkArgumentOverrides(value: unknown, at: string): void {
  if (!isPlainObject(value))
    throw new OptionsError(`${at} must map argument names to { hidden, value, env, default, description, name, enum }`);
  for (const [arg, override] of Object.entries(value)) {
    const place = `${at}."${arg}"`;
    if (!isPlainObject(override)) throw new OptionsError(`${place} must be an object`);
    for (const key of Object.keys(override)) {
      if (!ARGUMENT_KEYS.includes(key)) throw new OptionsError(`${place}.${key} is not an argument option${didYouMeanKey(key)}`);
    }
    checkArgumentValues(override as Record<string, unknown>, place);
    checkArgumentConflicts(override as Record<string, unknown>, place);
  }
}

const didYouMeanKey = (key: string) => {
  const near = nearest(key, ARGUMENT_KEYS);
  return near ? ` (did you mean "${near}"?)` : ` (known: ${ARGUMENT_KEYS.join(', ')})`;
};

function checkArgumentValues(o: Record<string, unknown>, place: string): void {
  if (o.hidden !== undefined && typeof o.hidden !== 'boolean') throw new OptionsError(`${place}.hidden must be true or false`);
  for (const key of ['description', 'name'])
    if (o[key] !== undefined && typeof o[key] !== 'string') throw new OptionsError(`${place}.${key} must be a string`);
  if (o.env !== undefined && (typeof o.env !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.env)))
    throw new OptionsError(`${place}.env must name an environment variable (letters, digits and "_", not starting with a digit)`);
  if (o.enum !== undefined && !(Array.isArray(o.enum) && o.enum.length > 0))
    throw new OptionsError(`${place}.enum must be a non-empty list of values`);
}

/** A hidden argument needs exactly one of value and env, and takes nothing that only a listed argument has. */
function checkArgumentConflicts(o: Record<string, unknown>, place: string): void {
  const fixed = ['value', 'env'].filter((key) => o[key] !== undefined);
  if (o.hidden !== true) {
    if (fixed.length) throw new OptionsError(`${place}.${fixed[0]} needs "hidden": true (a fixed value is never listed)`);
    return;
  }
  if (fixed.length === 0)
    throw new OptionsError(`${place}: "hidden": true needs "value" (a fixed value) or "env" (a variable to read it from)`);
  if (fixed.length === 2) throw new OptionsError(`${place}: give "value" or "env", not both`);
  const listed = LISTED_ONLY.find((key) => o[key] !== undefined);
  if (listed) throw new OptionsError(`${place}: "${listed}" has no effect on a hidden argument, which is never listed`);
}

/** The overrides map under its one name, toolOverrides, however the file spelled it. */
function withOverridesUnderOneName(data: UserOptions & { [OVERRIDES_ALIAS]?: UserOptions['toolOverrides'] }, where: string): UserOptions {
  const { [OVERRIDES_ALIAS]: aliased, ...options } = data;
  if (aliased === undefined) return options;
  if (options.toolOverrides !== undefined)
    throw new OptionsError(`${where}: "${OVERRIDES_ALIAS}" and "toolOverrides" are the same option: give one of them`);
  return { ...options, toolOverrides: aliased };
}

/** The MCP Registry's server name pattern (server.schema.json, 2025-12-11): one slash, namespace before it. */
function checkedMcpName(name: string): string {
  if (name.length <= 200 && /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(name)) return name;
  throw new OptionsError(`--mcp-name ${JSON.stringify(name.slice(0, 80))}: the MCP Registry takes a name such as io.github.<owner>/<name>`);
}

/** Flags over file over defaults. `flags` holds only what was given on the command line. */
export function resolveOptions(file: UserOptions, flags: UserOptions): ResolvedOptions {
  const merged: UserOptions = { ...file, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
  const spec = checkCombination(merged);
  // Checked here too for options given in code (generate(), not the config file).
  if (merged.scopes !== undefined) checkScopeRules(merged.scopes, 'options: "scopes"');
  const { dynamicThreshold, envPrefix, ...given } = merged;
  return {
    ...withModelDefaults({
      ...given,
      maxTools: merged.maxTools ?? dynamicThreshold,
      envPrefix: envPrefix?.replace(/_+$/, ''),
    }),
    spec,
    force: merged.force ?? false,
    check: merged.check ?? false,
    dryRun: merged.dryRun ?? false,
    targets: merged.targets ?? ['node'],
    ...(merged.mcpName !== undefined ? { mcpName: checkedMcpName(merged.mcpName) } : {}),
    allowRemoteRefs: merged.allowRemoteRefs ?? false,
    allowInternalServers: merged.allowInternalServers ?? false,
    allowRefDir: (merged.allowRefDir ?? []).map((dir) => resolve(dir)),
    overlays: merged.overlays ?? [],
    apis: merged.apis ?? [],
    baseUrls: merged.baseUrls ?? {},
  };
}

/** A target that is none: the one meant, when it is near one. */
export function targetsError(at: string, wrong: string): string {
  const near = wrong === '' ? undefined : nearest(wrong, [...TARGETS]);
  return `${at} must list targets among ${TARGETS.join(', ')}${wrong === '' ? '' : ` (got "${wrong}"${near ? `; did you mean "${near}"?` : ''})`}`;
}

/** What no single option's check can see: the spec is given, and the options agree. Returns the spec. */
function checkCombination(merged: UserOptions): string {
  if (merged.apis !== undefined) {
    if (merged.spec !== undefined) throw new OptionsError('give one spec, or "apis" for several, not both');
    if (merged.envPrefix !== undefined)
      throw new OptionsError("--env-prefix does not apply to several APIs: each API's credential variables start with its namespace");
    checkApis(merged.apis, 'options: "apis"');
    return (merged.apis[0] as ApiOption).spec;
  }
  if (merged.baseUrls !== undefined && Object.keys(merged.baseUrls).length > 0)
    throw new OptionsError(
      "--base-url <namespace>=<url> is for several APIs; one API's upstream is chosen at start (the server's --base-url, API_BASE_URL)",
    );
  if (!merged.spec) throw new OptionsError('no spec given: pass a path or URL, or set "spec" in the config file');
  if (merged.check && merged.dryRun) throw new OptionsError('--check and --dry-run cannot be combined');
  if (merged.name !== undefined && !/^[a-z0-9][a-z0-9._-]{0,213}$/.test(merged.name)) {
    throw new OptionsError(`name "${merged.name}" is not an npm package name: lower-case letters, digits, ".", "_" and "-"`);
  }
  if (merged.envPrefix !== undefined && !/^([A-Z][A-Z0-9_]{0,39})?$/.test(merged.envPrefix)) {
    throw new OptionsError(
      `env prefix "${merged.envPrefix}" must be UPPER_SNAKE_CASE: A-Z, 0-9 and "_", starting with a letter, at most 40 characters (or empty for none)`,
    );
  }
  return merged.spec;
}
