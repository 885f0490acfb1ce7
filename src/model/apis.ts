// Several APIs in one server: each spec is modelled on its own (its namespace as the package
// name, so its credential variables are `<NAMESPACE>_<SCHEME>_<PART>` and its resources have a
// scheme of their own), then the tables are joined into one, every name a tool table keys by
// (tools, toolsets, security schemes, shared schemas) prefixed `<namespace>_` so that none
// collides. Each tool keeps its API in `api`, which the runtime reads for its base URL.

import { ownValue, type ApiSpec, type JsonSchema, type SecurityRequirement, type ToolSpec, type ToolTable } from '../contract/table.js';
import { OptionsError } from '../errors.js';
import type { BuiltTools, ModelReport } from './build.js';
import { packageNameFor, sanitizeToolName } from './naming.js';
import { isObject, type JsonObject } from '../parse/pointer.js';
import { resolveServerUrl } from '../contract/server-url.js';

const DEFS_PREFIX = '#/$defs/';

export interface NamespacedTools {
  namespace: string;
  built: BuiltTools;
  /** The config file's `apis[i].retries` and `.rateLimit`: this API's own --retries and --rate-limit. */
  sending?: Pick<ApiSpec, 'retries' | 'rateLimit'>;
}

/**
 * `<NAMESPACE>_<SETTING>`: the variable of one API's own setting, as API_BASE_URL, API_RETRIES and
 * API_RATE_LIMIT are the server's (BASE_URL, RETRIES, RATE_LIMIT).
 */
const apiVariable = (namespace: string, setting: string): string => `${namespace.toUpperCase()}_${setting}`;

/** A spec's namespace: its package name (up to three telling words of its title, else its server's host) as `[a-z0-9_]`. */
export function namespaceOfSpec(doc: JsonObject): string {
  const info = isObject(doc.info) ? doc.info : {};
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const server = isObject(servers[0]) && typeof servers[0].url === 'string' ? servers[0].url : undefined;
  const clean = packageNameFor(typeof info.title === 'string' ? info.title : undefined, server)
    .replace(/-mcp$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '');
  return clean || 'api';
}

/**
 * The APIs' tables as one: the listing is decided afterwards over the whole, so the budget and
 * the serving mode are the server's. `name` is the server's package name.
 */
export function joinApis(apis: NamespacedTools[], name: string): BuiltTools {
  const first = apis[0] as NamespacedTools;
  const table: ToolTable = {
    format: 1,
    name,
    version: '1.0.0',
    scheme: first.built.table.scheme,
    servers: [],
    defs: {},
    auth: {},
    tools: [],
  };
  table.title = apis.map((a) => a.built.table.title ?? a.namespace).join(' + ');
  table.apis = {};
  const report = emptyReport();
  const pinned: string[] = [];
  const owners = new Map<string, string>();
  for (const { namespace, built, sending } of apis) {
    const renamed = toolNames(namespace, built.table.tools, owners);
    table.apis[namespace] = { ...apiOf(namespace, built.table), ...sending };
    addPrefixed(table, namespace, built.table, renamed);
    pinned.push(...built.pinned.map((n) => renamed.get(n) ?? n));
    addReport(report, built.report, namespace);
  }
  return { table, report, options: first.built.options, pinned };
}

/** What the tools of one API share: its servers, and the variables of its own base URL, retries and rate limit. */
function apiOf(namespace: string, table: ToolTable): ApiSpec {
  const api: ApiSpec = {
    servers: table.servers,
    baseUrlEnv: apiVariable(namespace, 'BASE_URL'),
    retriesEnv: apiVariable(namespace, 'RETRIES'),
    rateLimitEnv: apiVariable(namespace, 'RATE_LIMIT'),
  };
  if (table.publicServers) api.publicServers = table.publicServers;
  return api;
}

/** Each tool's name under its namespace; one already taken by another API's tool is an error naming both operations. */
function toolNames(namespace: string, tools: ToolSpec[], owners: Map<string, string>): Map<string, string> {
  const renamed = new Map<string, string>();
  for (const tool of tools) {
    const name = sanitizeToolName(`${namespace}_${tool.name}`);
    const operation = `${namespace}: ${tool.operationId ?? `${tool.http.method} ${tool.http.path}`}`;
    const taken = owners.get(name.toLowerCase());
    if (taken !== undefined)
      throw new OptionsError(`tool name "${name}" of ${operation} is already that of ${taken}: give one API another namespace`);
    owners.set(name.toLowerCase(), operation);
    renamed.set(tool.name, name);
  }
  return renamed;
}

/** One API's tools, schemes, shared schemas, toolsets and prompts into the joined table, under its prefix. */
function addPrefixed(into: ToolTable, namespace: string, from: ToolTable, renamed: Map<string, string>): void {
  const prefix = `${namespace}_`;
  for (const [key, def] of Object.entries(from.defs)) into.defs[prefix + key] = withPrefixedRefs(def, prefix);
  for (const [key, scheme] of Object.entries(from.auth)) {
    const taken = ownValue(into.auth, prefix + key)?.api;
    if (taken !== undefined)
      throw new OptionsError(
        `security scheme "${prefix + key}" of ${namespace} is already that of ${taken}: give one API another namespace`,
      );
    into.auth[prefix + key] = { ...scheme, api: namespace };
  }
  for (const [child, parent] of Object.entries(from.toolsetParents ?? {})) (into.toolsetParents ??= {})[prefix + child] = prefix + parent;
  // Each API's table has the config file's prompts: the first of a name is kept, as within one API.
  for (const prompt of from.prompts ?? []) if (!into.prompts?.some((p) => p.name === prompt.name)) (into.prompts ??= []).push(prompt);
  for (const tool of from.tools) into.tools.push(prefixedTool(tool, namespace, renamed));
}

function prefixedTool(tool: ToolSpec, namespace: string, renamed: Map<string, string>): ToolSpec {
  const prefix = `${namespace}_`;
  const named = (name: string) => renamed.get(name) ?? name;
  const copy: ToolSpec = { ...tool, name: named(tool.name), api: namespace, inputSchema: withPrefixedRefs(tool.inputSchema, prefix) };
  if (tool.toolset !== undefined) copy.toolset = prefix + tool.toolset;
  if (tool.security) copy.security = tool.security.map((alternative) => prefixedRequirement(alternative, prefix));
  if (tool.output) copy.output = { ...tool.output, schema: withPrefixedRefs(tool.output.schema, prefix) };
  const itemSchema = tool.sequence?.itemSchema;
  if (tool.sequence && itemSchema) copy.sequence = { ...tool.sequence, itemSchema: withPrefixedRefs(itemSchema, prefix) };
  if (tool.then) copy.then = tool.then.map(named);
  const statusTool = tool.longRunning?.statusTool;
  if (statusTool) copy.longRunning = { ...tool.longRunning, statusTool: { ...statusTool, name: named(statusTool.name) } };
  return copy;
}

const prefixedRequirement = (alternative: SecurityRequirement, prefix: string): SecurityRequirement =>
  Object.fromEntries(Object.entries(alternative).map(([scheme, scopes]) => [prefix + scheme, scopes]));

/** A copy of the schema whose `#/$defs/<key>` refs name `#/$defs/<prefix><key>`. */
function withPrefixedRefs(schema: JsonSchema, prefix: string): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)
      ? DEFS_PREFIX + prefix + value.slice(DEFS_PREFIX.length)
      : value,
  ) as JsonSchema;
}

function emptyReport(): ModelReport {
  return {
    skipped: [],
    poorDescriptions: [],
    matchedOverrides: new Set(),
    renamed: [],
    warnings: [],
    droppedBodies: [],
    resources: { static: 0, templates: 0 },
  };
}

/** One API's report into the server's, each operation named with its namespace. */
function addReport(into: ModelReport, from: ModelReport, namespace: string): void {
  const at = (operation: string) => `${namespace}: ${operation}`;
  into.skipped.push(...from.skipped.map((s) => ({ ...s, operation: at(s.operation) })));
  into.poorDescriptions.push(...from.poorDescriptions.map(at));
  for (const key of from.matchedOverrides) into.matchedOverrides.add(key);
  into.renamed.push(...from.renamed.map((r) => ({ ...r, operation: at(r.operation) })));
  into.warnings.push(...from.warnings);
  into.droppedBodies.push(...from.droppedBodies.map(at));
  into.resources.static += from.resources.static;
  into.resources.templates += from.resources.templates;
}

/** For people (the generation summary, `mcp-gen serve`): the APIs, then a line per namespace; none for one API. */
export function apiLines(table: Pick<ToolTable, 'apis' | 'tools'>): string[] {
  if (table.apis === undefined) return [];
  const lines = [`APIs: ${Object.keys(table.apis).length}, each tool named <namespace>_<operation>`];
  for (const [namespace, api] of Object.entries(table.apis)) {
    const tools = table.tools.filter((t) => t.api === namespace).length;
    const server = api.servers[0] ? `else ${resolveServerUrl(api.servers[0])}` : 'required: the spec names no server';
    lines.push(`${namespace}: ${tools} tool${tools === 1 ? '' : 's'}, upstream ${api.baseUrlEnv} (${server})`);
  }
  return lines;
}

/** The namespaces of `after` whose API, tools or security schemes differ from `before`'s (an API new to `after` included). */
export function driftedApis(before: ToolTable, after: ToolTable): string[] {
  // Shared schemas by their prefix: one namespace starting another's may show both as changed, never neither.
  const partOf = (table: ToolTable, namespace: string) =>
    JSON.stringify({
      api: table.apis?.[namespace],
      tools: table.tools.filter((t) => t.api === namespace),
      auth: Object.entries(table.auth).filter(([, scheme]) => scheme.api === namespace),
      defs: Object.entries(table.defs).filter(([key]) => key.startsWith(`${namespace}_`)),
    });
  return Object.keys(after.apis ?? {}).filter((namespace) => partOf(before, namespace) !== partOf(after, namespace));
}
