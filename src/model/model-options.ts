// What decides the tool table: the model's options, named as the config file names them, and
// their defaults, each written here once. The command line and config file (src/options.ts) and
// the model stage (build.ts, select.ts, routes.ts, serving.ts) all read these types, so this
// file imports from neither: no import cycle can run through it.

import type { Json } from '../parse/pointer.js';
import type { OperationCriteria } from './rules.js';
import { CLIENT_TOOL_CAP } from '../contract/limits.js';

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
  /** Operations of safe methods only (http-methods.ts). */
  readOnly?: boolean;
}

export interface ToolOverride {
  name?: string;
  description?: string;
  exclude?: boolean;
  /** The toolset this operation belongs to. */
  toolset?: string;
  /** true: a call always needs the user's yes first; false: never (over the server's --confirm). */
  confirm?: boolean;
  /** false: no MCP Apps view for this tool's answers (ToolSpec.apps). */
  apps?: boolean;
  /** Per argument, by its name in the tool's inputSchema (argument-overrides.ts). */
  arguments?: Record<string, ArgumentOverride>;
}

/**
 * One argument changed: hidden from the model and always sent (`value`, or the text of the
 * environment variable `env` at each call), or listed with a new name (the wire keeps the
 * spec's), description, default (sent when a call leaves it out) or a narrower enum.
 */
export interface ArgumentOverride {
  hidden?: boolean;
  value?: unknown;
  env?: string;
  default?: unknown;
  description?: string;
  name?: string;
  enum?: unknown[];
}

/** Operations that make up a toolset: any tag, path glob or operationId glob matches. */
export interface ToolsetRule {
  tags?: string[];
  paths?: string[];
  operations?: string[];
}

export type RouteKind = 'tool' | 'resource' | 'both' | 'exclude';
export const ROUTE_KINDS: RouteKind[] = ['tool', 'resource', 'both', 'exclude'];

/** Matches when every criterion given matches (any value of a list). */
export interface RouteRule extends OperationCriteria {
  kind: RouteKind;
}

/**
 * The OAuth scopes of the tools a rule picks. Matches when every criterion given matches (any
 * value of a list); a rule with no criteria matches every tool.
 */
export interface ScopeRule extends OperationCriteria {
  /** Toolset names, exactly as tools carry them once toolsets are assigned. */
  toolsets?: string[];
  /** What a caller's token must hold, all of it, to see and call the tool; `[]`: any valid token. */
  scopes: string[];
}

/** `get`: GETs (and body-less QUERYs) without required query, header or cookie parameters are also resources (templates when they take path parameters). */
export type ResourcePreset = 'none' | 'get';
export const RESOURCE_PRESETS: ResourcePreset[] = ['none', 'get'];

export type ToolModeOption = 'auto' | 'direct' | 'toolsets' | 'dynamic' | 'code';
export const TOOL_MODES: ToolModeOption[] = ['auto', 'direct', 'toolsets', 'dynamic', 'code'];

/** Everything optional; MODEL_DEFAULTS fills what is not given. */
export interface ModelOptions extends Selection {
  /** Longest tool description kept, in characters. */
  maxDescriptionLength?: number;
  /** Per operation (by operationId, or `METHOD /path`): a new name, description or toolset, exclude, or confirm. */
  toolOverrides?: Record<string, ToolOverride>;
  /**
   * What tools/list shows by default (switchable at start): direct, toolsets, dynamic, code, or
   * auto: direct when it fits maxTools and listBudgetKb, else toolsets when each toolset fits,
   * else code when most operations answer typed JSON, else dynamic (serving.ts).
   */
  toolMode?: ToolModeOption;
  /** auto: most tools listed at once. */
  maxTools?: number;
  /** auto: most kilobytes of the default tools/list. */
  listBudgetKb?: number;
  /** Named toolsets, first match wins; operations matched by none keep their default toolset. */
  toolsets?: Record<string, ToolsetRule>;
  /** In dynamic and toolsets mode, operations (operationId or tool-name globs) that stay direct tools too. */
  directTools?: string[];
  /** Route mapping rules, first match wins: which operations are tools, resources, both, or left out. */
  routes?: RouteRule[];
  /**
   * OAuth scope rules, first match wins: the scopes each tool needs when the server runs as a
   * resource server. A tool no rule matches needs the server's read or write scope, by its
   * readOnlyHint.
   */
  scopes?: ScopeRule[];
  /** `get`: side-effect-free GETs are resources (templates with path parameters) as well as tools. */
  resources?: ResourcePreset;
  /** Prompts: [{ name, title, description, arguments: [{ name, description, required, enum }], template }]; the spec's come from x-mcp-prompts. */
  prompts?: Json;
  /** Keep `example`/`examples` in tool schemas (off: they cost tools/list bytes and rarely help). */
  keepExamples?: boolean;
  /** Keep vendor `x-…` keys in tool schemas. */
  keepExtensions?: boolean;
  /** npm package name of the generated server (default: from the spec title). */
  name?: string;
  /** Prefix of the credential environment variables (UPPER_SNAKE; '' for none; default: see credentialNaming in auth.ts). */
  envPrefix?: string;
  /**
   * The spec's title may name the credential prefix (through the package name): only for a spec
   * file the user generates a project from, so never an option a user sets. Otherwise the
   * default prefix is MCPGEN.
   */
  titleNamesCredentials?: boolean;
  /**
   * Over several APIs, what of these options is this API's own (the config file's `apis[i]`): its
   * place, the toolOverrides keys it gave and how many of `scopes` come first from it. Messages
   * then name where each came from.
   */
  ownConfig?: { place: string; overrides: readonly string[]; scopes: number };
}

/** The options that have a default; the others (selection, name, envPrefix, ownConfig) mean "none" when absent. */
type Defaulted = Exclude<keyof ModelOptions, keyof Selection | 'name' | 'envPrefix' | 'ownConfig'>;

export type ResolvedModelOptions = ModelOptions & Required<Pick<ModelOptions, Defaulted>>;

export const MODEL_DEFAULTS: Required<Pick<ModelOptions, Defaulted>> = {
  maxDescriptionLength: 1_000,
  toolOverrides: {},
  toolMode: 'auto',
  maxTools: CLIENT_TOOL_CAP,
  // About 25,000 tokens at 4 bytes a token: an eighth of a 200k context.
  listBudgetKb: 100,
  toolsets: {},
  directTools: [],
  routes: [],
  scopes: [],
  resources: 'none',
  prompts: [],
  keepExamples: false,
  keepExtensions: false,
  titleNamesCredentials: false,
};

/** `options` with MODEL_DEFAULTS where a value is missing (or undefined). */
export function withModelDefaults(options: ModelOptions): ResolvedModelOptions {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return { ...MODEL_DEFAULTS, ...given };
}

/** Whether an override key is the API's own (`apis[i].toolOverrides`) rather than the server's. */
export const isOwnOverride = (options: Pick<ModelOptions, 'ownConfig'>, key: string): boolean =>
  options.ownConfig?.overrides.includes(key) ?? false;

/** Where an operation's override is in the config file, for messages: `config "toolOverrides"."<key>"`, or its API's. */
export function overridePlace(options: Pick<ModelOptions, 'ownConfig'>, key: string): string {
  const own = options.ownConfig;
  return own !== undefined && isOwnOverride(options, key)
    ? `config ${own.place}.toolOverrides."${key}"`
    : `config "toolOverrides"."${key}"`;
}

/** Where scope rule `i` of the rules used is in the config file: its API's own come first. */
export function scopeRulePlace(options: Pick<ModelOptions, 'ownConfig'>, i: number): string {
  const own = options.ownConfig;
  if (own === undefined) return `config "scopes"[${i}]`;
  return i < own.scopes ? `config ${own.place}.scopes[${i}]` : `config "scopes"[${i - own.scopes}]`;
}
