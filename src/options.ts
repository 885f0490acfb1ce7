// One options type for the CLI flags and the config file (mcp-gen.config.json / .yaml),
// normalised once into ResolvedOptions. Flags win over the file; the file over defaults.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import yaml from 'js-yaml';
import { OptionsError } from './errors.js';
import type { Json } from './parse/pointer.js';
import { toolsetSlug as toolsetName } from './contract/toolsets.js';
import { RESOURCE_PRESETS, ROUTE_KINDS, type ResourcePreset, type RouteRule } from './model/routes.js';

/** Which operations become tools. Lists are OR within, AND across (see README). */
export interface Selection {
  includeTags?: string[];
  excludeTags?: string[];
  /** Globs over operationIds (`*` stops at `/`, `**` does not). */
  includeOperations?: string[];
  excludeOperations?: string[];
  /** Globs over path templates, e.g. `/repos/**`. */
  includePaths?: string[];
  excludePaths?: string[];
  /** HTTP methods, any case. */
  methods?: string[];
  /** GET and HEAD only. */
  readOnly?: boolean;
}

export interface ToolOverride {
  name?: string;
  description?: string;
  exclude?: boolean;
  /** The toolset this operation belongs to. */
  toolset?: string;
}

/** Operations that make up a toolset: any tag, path glob or operationId glob matches. */
export interface ToolsetRule {
  tags?: string[];
  paths?: string[];
  operations?: string[];
}

export interface UserOptions extends Selection {
  spec?: string;
  out?: string;
  name?: string;
  force?: boolean;
  check?: boolean;
  dryRun?: boolean;
  allowRemoteRefs?: boolean;
  /** A spec from a URL may name internal addresses as its servers and tokenUrl (see model/upstreams.ts). */
  allowInternalServers?: boolean;
  /** Folders local `$ref`s may read besides the spec's own. */
  allowRefDir?: string[];
  maxDescriptionLength?: number;
  /** Per operation (by operationId, or `METHOD /path`): a new name or description, or exclude. */
  tools?: Record<string, ToolOverride>;
  /**
   * What tools/list shows by default (switchable at start): direct, toolsets, dynamic, or
   * auto (the default): direct when it fits maxTools and listBudgetKb, else toolsets when
   * each toolset fits, else dynamic.
   */
  toolMode?: ToolModeOption;
  /** auto: most tools listed at once (default 128, what VS Code and the OpenAI API accept). */
  maxTools?: number;
  /** The same as maxTools (its earlier name). */
  dynamicThreshold?: number;
  /** auto: most kilobytes of tools/list (default 100, about 25,000 tokens). */
  listBudgetKb?: number;
  /** Named toolsets, first match wins; operations matched by none keep their default toolset. */
  toolsets?: Record<string, ToolsetRule>;
  /** In dynamic mode, operations (operationId or tool-name globs) that stay direct tools too. */
  directTools?: string[];
  /** Route mapping rules, first match wins: which operations are tools, resources, both, or left out. */
  routes?: RouteRule[];
  /** `get`: side-effect-free GETs are resources (templates with path parameters) as well as tools. */
  resources?: ResourcePreset;
  /** Prompts: [{ name, title, description, arguments: [{ name, description, required, enum }], template }]. */
  prompts?: Json;
  /** Keep `example`/`examples` in tool schemas. */
  keepExamples?: boolean;
  /** Keep vendor `x-…` keys in tool schemas. */
  keepExtensions?: boolean;
  /** Prefix of the credential environment variables (UPPER_SNAKE; '' for none). */
  envPrefix?: string;
}

export type ToolModeOption = 'auto' | 'direct' | 'toolsets' | 'dynamic';
export const TOOL_MODES: ToolModeOption[] = ['auto', 'direct', 'toolsets', 'dynamic'];

export interface ResolvedOptions extends Required<Omit<UserOptions, 'out' | 'name' | 'envPrefix' | 'dynamicThreshold' | keyof Selection>> {
  out?: string;
  name?: string;
  envPrefix?: string;
  selection: Selection;
}

export const CONFIG_FILES = ['mcp-gen.config.json', 'mcp-gen.config.yaml', 'mcp-gen.config.yml'];

const KEYS: Record<
  keyof UserOptions,
  'string' | 'boolean' | 'number' | 'strings' | 'tools' | 'mode' | 'toolsets' | 'routes' | 'preset' | 'prompts'
> = {
  spec: 'string',
  out: 'string',
  name: 'string',
  force: 'boolean',
  check: 'boolean',
  dryRun: 'boolean',
  allowRemoteRefs: 'boolean',
  allowInternalServers: 'boolean',
  allowRefDir: 'strings',
  maxDescriptionLength: 'number',
  includeTags: 'strings',
  excludeTags: 'strings',
  includeOperations: 'strings',
  excludeOperations: 'strings',
  includePaths: 'strings',
  excludePaths: 'strings',
  methods: 'strings',
  readOnly: 'boolean',
  tools: 'tools',
  toolMode: 'mode',
  maxTools: 'number',
  dynamicThreshold: 'number',
  listBudgetKb: 'number',
  toolsets: 'toolsets',
  directTools: 'strings',
  routes: 'routes',
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
    data = path.endsWith('.json') ? JSON.parse(text) : yaml.load(text);
  } catch (error) {
    throw new OptionsError(`config file ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  const options = checkOptions(data, path);
  // A config file can come with a cloned repository: it may not overwrite the user's files
  // (force) nor aim the output at them (out above or at its own folder).
  if (options.force !== undefined) throw new OptionsError(`${path}: "force" may only be given on the command line`);
  const base = dirname(resolve(path));
  if (options.spec && !/^https?:\/\//i.test(options.spec)) options.spec = resolve(base, options.spec);
  if (options.allowRefDir) options.allowRefDir = options.allowRefDir.map((dir) => resolve(base, dir));
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
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new OptionsError(`${where}: must be an object`);
  for (const [key, value] of Object.entries(data)) {
    const kind = KEYS[key as keyof UserOptions];
    const at = `${where}: "${key}"`;
    if (!kind) throw new OptionsError(`${at} is not an option (known: ${Object.keys(KEYS).join(', ')})`);
    if (kind === 'strings' && !(Array.isArray(value) && value.every((v) => typeof v === 'string')))
      throw new OptionsError(`${at} must be a list of strings`);
    if (kind === 'string' && typeof value !== 'string') throw new OptionsError(`${at} must be a string`);
    if (kind === 'boolean' && typeof value !== 'boolean') throw new OptionsError(`${at} must be true or false`);
    if (kind === 'number' && !(Number.isInteger(value) && (value as number) > 0))
      throw new OptionsError(`${at} must be a whole number above 0`);
    if (kind === 'mode' && !TOOL_MODES.includes(value as ToolModeOption))
      throw new OptionsError(`${at} must be auto, direct, toolsets or dynamic`);
    if (kind === 'prompts' && !Array.isArray(value))
      throw new OptionsError(`${at} must be a list of { name, description, arguments, template }`);
    if (kind === 'preset' && !(RESOURCE_PRESETS as unknown[]).includes(value))
      throw new OptionsError(`${at} must be ${RESOURCE_PRESETS.join(' or ')}`);
    if (kind === 'routes') {
      if (!Array.isArray(value)) throw new OptionsError(`${at} must be a list of { methods, paths, tags, operations, kind }`);
      value.forEach((rule: unknown, i: number) => {
        const place = `${at}[${i}]`;
        if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new OptionsError(`${place} must be an object`);
        for (const [k, v] of Object.entries(rule)) {
          if (k === 'kind') {
            if (!(ROUTE_KINDS as unknown[]).includes(v)) throw new OptionsError(`${place}.kind must be ${ROUTE_KINDS.join(', ')}`);
          } else if (
            !['methods', 'paths', 'tags', 'operations'].includes(k) ||
            !(Array.isArray(v) && v.every((s) => typeof s === 'string'))
          ) {
            throw new OptionsError(`${place}.${k}: expected methods, paths, tags or operations (lists of strings) and kind`);
          }
        }
        if (!('kind' in rule)) throw new OptionsError(`${place} needs a kind: ${ROUTE_KINDS.join(', ')}`);
      });
    }
    if (kind === 'toolsets') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new OptionsError(`${at} must map toolset names to { tags, paths, operations }`);
      for (const [name, rule] of Object.entries(value)) {
        if (toolsetName(name) === '') throw new OptionsError(`${at}."${name}": a toolset name needs a letter or digit`);
        if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new OptionsError(`${at}."${name}" must be an object`);
        for (const [k, v] of Object.entries(rule)) {
          if (!['tags', 'paths', 'operations'].includes(k) || !(Array.isArray(v) && v.every((s) => typeof s === 'string'))) {
            throw new OptionsError(`${at}."${name}".${k}: expected tags, paths or operations, each a list of strings`);
          }
        }
      }
    }
    if (kind === 'tools') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new OptionsError(`${at} must map operations to { name, description, exclude }`);
      for (const [op, override] of Object.entries(value)) {
        if (typeof override !== 'object' || override === null) throw new OptionsError(`${at}."${op}" must be an object`);
        for (const [k, v] of Object.entries(override)) {
          if (
            k === 'exclude' ? typeof v !== 'boolean' : !(k === 'name' || k === 'description' || k === 'toolset') || typeof v !== 'string'
          ) {
            throw new OptionsError(
              `${at}."${op}".${k}: expected name (string), description (string), toolset (string) or exclude (boolean)`,
            );
          }
          if (k === 'toolset' && toolsetName(v as string) === '')
            throw new OptionsError(`${at}."${op}".toolset: a toolset name needs a letter or digit`);
        }
      }
    }
  }
  return { ...(data as UserOptions) };
}

/** Flags over file over defaults. `flags` holds only what was given on the command line. */
export function resolveOptions(file: UserOptions, flags: UserOptions): ResolvedOptions {
  const merged: UserOptions = { ...file, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
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
  const selection: Selection = {};
  for (const key of [
    'includeTags',
    'excludeTags',
    'includeOperations',
    'excludeOperations',
    'includePaths',
    'excludePaths',
    'methods',
    'readOnly',
  ] as const) {
    if (merged[key] !== undefined) (selection as Record<string, unknown>)[key] = merged[key];
  }
  return {
    spec: merged.spec,
    ...(merged.out !== undefined ? { out: merged.out } : {}),
    ...(merged.name !== undefined ? { name: merged.name } : {}),
    ...(merged.envPrefix !== undefined ? { envPrefix: merged.envPrefix.replace(/_+$/, '') } : {}),
    force: merged.force ?? false,
    check: merged.check ?? false,
    dryRun: merged.dryRun ?? false,
    allowRemoteRefs: merged.allowRemoteRefs ?? false,
    allowInternalServers: merged.allowInternalServers ?? false,
    allowRefDir: (merged.allowRefDir ?? []).map((dir) => resolve(dir)),
    maxDescriptionLength: merged.maxDescriptionLength ?? 1_000,
    tools: merged.tools ?? {},
    toolMode: merged.toolMode ?? 'auto',
    maxTools: merged.maxTools ?? merged.dynamicThreshold ?? 128,
    listBudgetKb: merged.listBudgetKb ?? 100,
    toolsets: merged.toolsets ?? {},
    directTools: merged.directTools ?? [],
    routes: merged.routes ?? [],
    resources: merged.resources ?? 'none',
    prompts: merged.prompts ?? [],
    keepExamples: merged.keepExamples ?? false,
    keepExtensions: merged.keepExtensions ?? false,
    selection,
  };
}
