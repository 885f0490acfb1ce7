// Model stage: operations → tools. The result is plain JSON data (the tool table that the
// generated server runs on) plus a report of what was renamed, skipped and worth a warning.
// One file per OpenAPI object does the reading (operation, parameters, request-body,
// responses, servers; security in auth.ts); this one runs them over the document and
// assembles the table.

import type { LoadedSpec } from '../parse/load.js';
import { isObject, pointer, type JsonObject } from '../parse/pointer.js';
import { callableTable, type JsonSchema, type PromptSpec, type ServerSpec, type ToolSpec, type ToolTable } from '../contract/table.js';
import type { Lister } from '../contract/profiles.js';
import { NameScope, packageNameFor } from './naming.js';
import { SchemaConverter } from './schema.js';
import { defGraph } from '../contract/def-refs.js';
import { DEFAULT_LISTING_BUDGET, fitListing, type ListingReport } from './listing.js';
import { buildAuth, credentialNaming, credentialParameters, securityFor, withSchemes } from './auth.js';
import { overrideOf, overridesAny, selectOperation, unmatchedOverrides, type Verdict } from './select.js';
import { applyArgumentOverrides, type OverriddenArguments } from './argument-overrides.js';
import { globsMatch } from './rules.js';
import {
  isOwnOverride,
  overridePlace,
  scopeRulePlace,
  withModelDefaults,
  type ModelOptions,
  type ResolvedModelOptions,
} from './model-options.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { chooseServing, portableLister, type ServingReport } from './serving.js';
import { resourceFor, resourceScheme, routeKind, withExamples } from './routes.js';
import { readPrompts } from './prompts.js';
import { scopesFor, unusedScopeRules, type ScopeRuleUse } from './scopes.js';
import { ENABLE_TOOLSET, LIST_TOOLSETS, toolsetOf } from '../contract/toolsets.js';
import { OPERATION_STATUS } from '../contract/meta-tools.js';
import type { OperationPlace, SpecContext } from './context.js';
import {
  annotationsFor,
  buildArguments,
  descriptionOf,
  isPoorDescription,
  operationsOf,
  titleOf,
  toolName,
  toolsetFor,
  withoutParameters,
  type Arguments,
  type Operation,
} from './operation.js';
import {
  binaryAnswerOf,
  buildOutput,
  buildSequence,
  linkedOperations,
  linkSequences,
  STREAMING_SENTENCE,
  streamingOutput,
} from './responses.js';
import { detectPagination, paginationSentence, withSentence } from './pagination.js';
import { detectLongRunning, LONG_RUNNING_SENTENCE, nameStatusTools, type StatusLink } from './long-running.js';
import { serverList } from './servers.js';
import { idempotencyKeyOf } from './parameters.js';
import { oneLine } from './text.js';
import { methodOnTheWire } from '../contract/http-methods.js';
import { navigationFirst, tagFacts, toolsetParents, type TagFacts } from './tags.js';

/** The meta-tools' names (dynamic.ts, toolsets.ts): operations never take them, so any mode can be served. */
const META_TOOLS = ['search_operations', 'describe_operation', 'invoke_operation', LIST_TOOLSETS, ENABLE_TOOLSET, OPERATION_STATUS];

export interface ModelReport {
  skipped: { operation: string; reason: string }[];
  /** Operations whose tools have little to tell an agent (no summary or description, or a few words). */
  poorDescriptions: string[];
  /** Keys of ModelOptions.toolOverrides that named an operation (the others are typos). */
  matchedOverrides: Set<string>;
  renamed: { operation: string; name: string; reason: string }[];
  warnings: GenerationWarning[];
  /** How much of the tool schemas tools/list shows (large shared schemas are listed in part). */
  listing?: ListingReport;
  /** The default tools/list: its mode, why, and the toolsets. */
  serving?: ServingReport;
  /** GET/HEAD operations whose requestBody was dropped (OAS 3.0.3: consumers SHALL ignore it). */
  droppedBodies: string[];
  /** How many operations became resources and resource templates. */
  resources: { static: number; templates: number };
  /** The API's logo (`info.x-logo.url`, an https URL; APIs.guru adds one), for the Claude Desktop bundle's icon. */
  logoUrl?: string;
  /** Which config `scopes` rules matched a tool, and which set one's scopes: over several APIs, generate.ts tells of the server-wide ones. */
  scopeUse: ScopeRuleUse;
}

export interface ServerModel {
  table: ToolTable;
  report: ModelReport;
  /** The portable lister the serving decision measured the tools with: the prepared listing reuses what it listed. */
  lister?: Lister;
}

/**
 * Why every TRACE operation is left out: a TRACE answer echoes the request, and the server adds
 * the API's credentials to every request it sends (RFC 9110 §9.3.8: a client must not send
 * sensitive fields in a TRACE request).
 */
const TRACE_SKIPPED = 'TRACE echoes the request back, and the server would add credentials to it (RFC 9110 §9.3.8)';

/** The whole model of a spec: its tools, then the listing decided over them. */
export function buildModel(spec: LoadedSpec, given: ModelOptions): ServerModel {
  return decideListing(buildTools(spec, given));
}

/** The table before its listing is decided, and what deciding it needs: no longer the spec. */
export interface BuiltTools {
  table: ToolTable;
  report: ModelReport;
  options: ResolvedModelOptions;
  /** The tools --direct-tools names. */
  pinned: string[];
}

/**
 * Everything the table takes from the spec. Nothing it answers holds the parsed document, so
 * a caller that lets go of `spec` lets the document be collected while the listing is decided
 * (the model's longest step on large specs, beside the printing of tool-types.ts).
 */
export function buildTools(spec: LoadedSpec, given: ModelOptions): BuiltTools {
  const options = withModelDefaults(given);
  const run = startRun(spec, options);
  for (const operation of operationsOf(spec.doc, run.report.warnings)) addOperation(run, operation);
  linkSequences(run.tools, run.linkTargets);
  nameStatusTools(run.tools, run.statusLinks);
  warnAboutTheWhole(run);
  const table = tableOf(run);
  addPrompts(table, options, spec.doc, run.report.warnings);
  const logoUrl = logoOf(infoOf(spec.doc));
  if (logoUrl !== undefined) run.report.logoUrl = logoUrl;
  return { table, report: run.report, options, pinned: pinnedTools(run.tools, options.directTools) };
}

/** How much of the schemas tools/list shows and which mode serves it. */
export function decideListing(built: BuiltTools): ServerModel {
  const { table, report } = built;
  const lister = chooseListing(table, built.pinned, report, built.options);
  return { table, report, lister };
}

/** `info.x-logo.url` when it is an https URL of a sane length; anything else is no logo. */
function logoOf(info: JsonObject): string | undefined {
  const logo = info['x-logo'];
  const url = isObject(logo) ? logo.url : undefined;
  if (typeof url !== 'string' || url.length > 2048) return undefined;
  try {
    return new URL(url).protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** What one buildModel run carries from operation to operation. */
interface ModelRun {
  spec: LoadedSpec;
  options: ResolvedModelOptions;
  ctx: SpecContext;
  report: ModelReport;
  /** Tool names taken so far (the meta-tools' from the start). */
  names: NameScope;
  tools: ToolSpec[];
  /** The shared schemas the tools' inputs and outputs name directly: the table keeps what they reach. */
  reached: Set<string>;
  /** Each tool's Link Object targets, made into `then` once every tool has its name. */
  linkTargets: Map<ToolSpec, string[]>;
  /** Each long-running tool's link to its status operation, named once every tool has its name. */
  statusLinks: Map<ToolSpec, StatusLink>;
  rootServers: ServerSpec[];
  packageName: string;
  auth: ReturnType<typeof buildAuth>;
  /** Which config `scopes` rules matched a tool, and which set one's scopes. */
  scopeUse: ScopeRuleUse;
  tags: TagFacts;
}

function startRun(spec: LoadedSpec, options: ResolvedModelOptions): ModelRun {
  const { doc } = spec;
  // 3.2's Schema Object is 3.1's (JSON Schema 2020-12); Swagger 2.0 arrives converted to 3.0's
  const dialect = spec.specVersion.startsWith('3.0') || spec.specVersion.startsWith('2') ? '3.0' : '3.1';
  const converter = new SchemaConverter(doc, dialect, { examples: options.keepExamples, extensions: options.keepExtensions }, spec.source);
  const report: ModelReport = {
    skipped: [],
    renamed: [],
    warnings: [...spec.warnings],
    matchedOverrides: new Set(),
    poorDescriptions: [],
    droppedBodies: [],
    resources: { static: 0, templates: 0 },
    scopeUse: { matched: new Set(), won: new Set() },
  };
  const info = infoOf(doc);
  const rootServers = serverList(doc.servers, spec.source, { at: pointer('servers'), warnings: report.warnings });
  const packageName = options.name ?? packageNameFor(typeof info.title === 'string' ? info.title : undefined, rootServers[0]?.url);
  const auth = buildAuth(doc, credentialNaming(options, packageName, options.titleNamesCredentials), spec.source);
  report.warnings.push(...auth.warnings);
  const ctx: SpecContext = { doc, converter, warnings: report.warnings };
  return {
    spec,
    options,
    ctx,
    report,
    names: new NameScope(META_TOOLS),
    tools: [],
    linkTargets: new Map(),
    statusLinks: new Map(),
    rootServers,
    packageName,
    auth,
    scopeUse: report.scopeUse,
    reached: new Set(),
    tags: tagFacts(doc),
  };
}

const infoOf = (doc: JsonObject): JsonObject => (isObject(doc.info) ? doc.info : {});

/** One operation as a tool (and perhaps a resource), or a line in the report saying why not. */
function addOperation(run: ModelRun, operation: Operation): void {
  const { report, options } = run;
  const skip = (reason: string) => void report.skipped.push({ operation: operation.label, reason });
  noteOverrides(run, operation);
  if (operation.method === 'trace') return skip(TRACE_SKIPPED);
  const verdict = selectOperation(operation, options, options.toolOverrides);
  if (!verdict.keep) return skip(verdict.reason);
  const { name, renamed } = toolName(run.names, operation, verdict.name);
  if (renamed) report.renamed.push({ operation: operation.label, name, reason: renamed });
  const refs = new Set<string>();
  const built = buildArguments(run.ctx, placeOf(run, operation), operation.item, operation.op, refs);
  if ('skip' in built) return skip(built.skip);
  if (built.ignoredBody) report.droppedBodies.push(operation.label);
  // A parameter that is an API key is the server's to fill from the scheme's variable, not the agent's.
  const credentials = credentialParameters(built.params, run.auth.schemes);
  const args = overriddenArguments(run, operation, withoutParameters(built, credentials.filled));
  const tool = toolOf(run, operation, verdict, name, args, refs);
  const security = withSchemes(tool.security, credentials.required, credentials.optional);
  if (security) tool.security = security;
  if (isPoorDescription(tool.description, operation.label)) report.poorDescriptions.push(`${operation.label} (${name})`);
  // Before the sentence on paging, which compact listings keep at the end (profiles.ts).
  const longRunning = detectLongRunning(run.ctx.doc, operation);
  if (longRunning) {
    tool.longRunning = longRunning.longRunning;
    if (longRunning.statusLink) run.statusLinks.set(tool, longRunning.statusLink);
    tool.description = withSentence(tool.description, LONG_RUNNING_SENTENCE, options.maxDescriptionLength);
  }
  if (tool.sequence) {
    const output = streamingOutput(tool.sequence, tool.output);
    if (output) tool.output = output;
    else delete tool.output;
    tool.description = withSentence(tool.description, STREAMING_SENTENCE, options.maxDescriptionLength);
  }
  // After the check above: the sentence on paging says nothing of what the operation does.
  // A hidden argument is not the model's to page with.
  const pagination = detectPagination(run.ctx.doc, operation.op, listedParams(args));
  if (pagination) {
    tool.pagination = pagination;
    tool.description = withSentence(tool.description, paginationSentence(pagination), options.maxDescriptionLength);
  }
  const route = routeKind(operation, options.routes, options.resources, args.params);
  if (route.kind === 'exclude') {
    run.names.release(name);
    return skip(`excluded by ${route.from}`);
  }
  const scopes = options.scopes.length ? scopesFor(options.scopes, { ...operation, toolset: toolsetOf(tool) }, run.scopeUse) : undefined;
  if (scopes) tool.scopes = scopes;
  if (route.kind !== 'tool') offerAsResource(run, tool, operation, route, args);
  run.tools.push(tool);
  const targets = linkedOperations(run.ctx.doc, operation.op);
  if (targets.length) run.linkTargets.set(tool, targets);
}

/** The arguments with the config file's argument overrides applied (argument-overrides.ts). */
function overriddenArguments(run: ModelRun, operation: Operation, args: Arguments): OverriddenArguments {
  const found = overrideOf(operation, run.options.toolOverrides);
  const place = { at: overridePlace(run.options, found?.key ?? ''), label: operation.label };
  return applyArgumentOverrides(args, found?.override.arguments, place, run.ctx.converter.defs);
}

const listedParams = (args: OverriddenArguments) => args.params.filter((p) => !args.hidden || !Object.hasOwn(args.hidden, p.arg));

/** Overrides that name this operation (by operationId or `METHOD /path`) are not typos. */
function noteOverrides(run: ModelRun, operation: Operation): void {
  if (!overridesAny(run.options.toolOverrides)) return;
  for (const key of [operation.operationId, operation.label])
    if (key && run.options.toolOverrides[key]) run.report.matchedOverrides.add(key);
}

function placeOf(run: ModelRun, { path, method, label, where }: Operation): OperationPlace {
  const { specVersion } = run.spec;
  return { path, method, label, where, styledMultipart: !specVersion.startsWith('3.0') };
}

function toolOf(
  run: ModelRun,
  operation: Operation,
  verdict: Verdict & { keep: true },
  name: string,
  args: OverriddenArguments,
  refs: Set<string>,
): ToolSpec {
  const { options, ctx } = run;
  const { op, item, label, method, path, operationId, tags } = operation;
  const opServers = operationServers(run, operation);
  const idempotencyKey = idempotencyKeyOf(args.params);
  const tool: ToolSpec = {
    name,
    ...(operationId ? { operationId } : {}),
    description: descriptionOf(verdict.description, op, item, label, options.maxDescriptionLength),
    ...(tags.length ? { tags } : {}),
    toolset: toolsetFor(verdict, options.toolsets, { ...operation, tags: navigationFirst(tags, run.tags) }),
    inputSchema: args.inputSchema,
    annotations: annotationsFor(methodOnTheWire(method)),
    http: {
      method: methodOnTheWire(method),
      path,
      params: args.params,
      ...(args.body ? { body: args.body } : {}),
      ...(opServers.length ? { servers: opServers } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    },
  };
  const security = securityFor(op, ctx.doc, run.auth.schemes);
  if (security) tool.security = security;
  const output = buildOutput(ctx.doc, ctx.converter, op, refs);
  const sequence = buildSequence(ctx.doc, ctx.converter, op, refs, (message) =>
    run.report.warnings.push(warning('bad-stream-end', `${tool.name}: ${message}`)),
  );
  for (const ref of refs) run.reached.add(ref);
  if (output) tool.output = output;
  if (sequence) tool.sequence = sequence;
  const binary = output || sequence ? undefined : binaryAnswerOf(ctx.doc, op);
  if (binary) tool.binaryAnswer = binary;
  if (verdict.confirm !== undefined) tool.confirm = verdict.confirm;
  if (verdict.apps === false) tool.apps = false;
  if (args.hidden) tool.hidden = args.hidden;
  if (args.defaults) tool.defaults = args.defaults;
  const title = titleOf(op);
  if (title) {
    tool.title = title;
    tool.annotations = { title, ...tool.annotations };
  }
  return tool;
}

/** The operation's own servers, else its path item's; most operations name neither. */
function operationServers(run: ModelRun, { op, item, where, path }: Operation): ServerSpec[] {
  const own = op.servers !== undefined && op.servers !== null;
  const servers = own ? op.servers : item.servers;
  if (servers === undefined || servers === null) return [];
  const at = own ? `${where}/servers` : pointer('paths', path, 'servers');
  return serverList(servers, run.spec.source, { at, warnings: run.report.warnings });
}

/** Makes the tool a resource or resource template as route mapping asks, or warns why a read could not make its request. */
function offerAsResource(
  run: ModelRun,
  tool: ToolSpec,
  operation: Operation,
  route: { kind: string; from: string },
  args: OverriddenArguments,
): void {
  const { report } = run;
  const hiddenInPath = args.params.find((p) => p.in === 'path' && args.hidden && Object.hasOwn(args.hidden, p.arg));
  const resource =
    operation.method !== 'get' && operation.method !== 'query'
      ? { refused: 'only a GET or a QUERY is read as a resource' }
      : hiddenInPath
        ? { refused: `its path parameter "${hiddenInPath.name}" is hidden, and a resource template would list it` }
        : resourceFor(resourceScheme(run.packageName), operation.path, listedParams(args), args.body !== undefined);
  if ('refused' in resource) {
    report.warnings.push(
      warning('not-a-resource', `stays a tool only (${route.from} asked for a resource): ${resource.refused}`, operation.where),
    );
    return;
  }
  tool.resource = withExamples(resource, args.examples);
  if (resource.uri !== undefined) report.resources.static++;
  else report.resources.templates++;
  if (route.kind === 'resource') tool.asTool = false;
}

/** Warnings about the spec and options as a whole: no tools, no server URL, overrides that named nothing, scope rules that did nothing. */
function warnAboutTheWhole({ report, tools, rootServers, options, scopeUse }: ModelRun): void {
  if (tools.length === 0) {
    report.warnings.push(
      warning(
        'no-tools',
        report.skipped.length
          ? 'every operation was left out: the server will have no tools'
          : 'the spec defines no operations: the server will have no tools',
      ),
    );
  }
  const saidAlready = report.warnings.some((w) => w.code === 'no-base-url');
  if (!saidAlready && !rootServers.some((s) => /^https?:\/\//i.test(s.url)) && tools.some((t) => !t.http.servers)) {
    report.warnings.push(warning('no-base-url', 'the spec names no absolute server URL: start the server with --base-url or API_BASE_URL'));
  }
  const operationIds = tools.flatMap((t) => (t.operationId === undefined ? [] : [t.operationId]));
  // Over several APIs, a server-wide override may name another API's operation: generate.ts warns when none has it.
  const ownKeys = Object.keys(options.toolOverrides).filter((key) => options.ownConfig === undefined || isOwnOverride(options, key));
  report.warnings.push(...unmatchedOverrides(ownKeys, report.matchedOverrides, operationIds, (key) => overridePlace(options, key)));
  // Over several APIs, a server-wide rule may be for another API's tools: generate.ts warns when it sets none in any.
  const ownRules = options.ownConfig === undefined ? options.scopes : options.scopes.slice(0, options.ownConfig.scopes);
  report.warnings.push(...unusedScopeRules(ownRules, scopeUse, (i) => scopeRulePlace(options, i)));
}

/** The tool table: the API's identity, servers, the shared schemas some tool uses, security schemes, tools. */
function tableOf(run: ModelRun): ToolTable {
  const info = infoOf(run.spec.doc);
  return {
    format: 1,
    name: run.packageName,
    version: typeof info.version === 'string' ? info.version : String(info.version ?? '0.0.0'),
    ...(typeof info.title === 'string' ? { title: oneLine(info.title) } : {}),
    ...(typeof info.description === 'string' && info.description.trim() ? { description: info.description.trim().slice(0, 20_000) } : {}),
    scheme: resourceScheme(run.packageName),
    servers: run.rootServers,
    defs: usedDefs(run.reached, run.ctx.converter),
    ...withToolsetParents(toolsetParents(run.tools, run.tags)),
    auth: run.auth.schemes,
    tools: run.tools,
  };
}

const withToolsetParents = (parents: Record<string, string> | undefined) => (parents ? { toolsetParents: parents } : {});

/** The converted shared schemas that some tool's input or output reaches, by key. */
function usedDefs(reached: Set<string>, converter: SchemaConverter): Record<string, JsonSchema> {
  const defs: Record<string, JsonSchema> = {};
  const used = new Set(defGraph(converter.defs).reached(reached));
  for (const key of Object.keys(converter.defs).sort()) if (used.has(key)) defs[key] = converter.defs[key] as JsonSchema;
  return defs;
}

/** Prompts from the config file and the spec's x-mcp-prompts; the config file's wins over the spec's of the same name. */
function addPrompts(table: ToolTable, options: ResolvedModelOptions, doc: JsonObject, warnings: GenerationWarning[]): void {
  const prompts = [
    ...readPrompts(options.prompts, 'config "prompts"', warnings),
    ...readPrompts(doc['x-mcp-prompts'], '#/x-mcp-prompts', warnings),
  ];
  const named = new Map<string, PromptSpec>();
  for (const p of prompts) if (!named.has(p.name)) named.set(p.name, p);
  if (named.size) table.prompts = [...named.values()];
}

/** The tools --direct-tools names (globs over tool names or operationIds), listed in every mode. */
function pinnedTools(tools: ToolSpec[], direct: string[]): string[] {
  return tools.filter((t) => globsMatch(direct, t.name) || globsMatch(direct, t.operationId)).map((t) => t.name);
}

/** How much of the schemas tools/list shows, and which mode serves the default listing. */
function chooseListing(table: ToolTable, pinned: string[], report: ModelReport, options: ResolvedModelOptions): Lister {
  report.listing = fitListing(table);
  const callable = callableTable(table);
  const lister = portableLister(callable);
  const serving = chooseServing(
    callable,
    options.toolMode,
    { maxTools: options.maxTools, listBudgetKb: options.listBudgetKb },
    pinned,
    lister,
  );
  report.serving = serving;
  if (serving.mode !== 'direct') table.serve = { mode: serving.mode, pinned };
  else if (pinned.length)
    report.warnings.push(warning('unused-option', '--direct-tools has no effect in direct mode: every operation is a tool'));
  if (serving.mode === 'direct' && report.listing.listedBytes > DEFAULT_LISTING_BUDGET.totalBytes) {
    const mb = (report.listing.listedBytes / 1024 / 1024).toFixed(1);
    report.warnings.push(
      warning(
        'large-listing',
        `with --client-profile full and --tools direct, tools/list is ${mb} MB, served in pages of 8 MiB: clients that do not follow nextCursor see only the first`,
      ),
    );
  }
  return lister;
}
