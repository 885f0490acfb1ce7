// Model stage: operations → tools. The result is plain JSON data (the tool table that the
// generated server runs on) plus a report of what was renamed, skipped and worth a warning.

import type { LoadedSpec } from '../parse/load.js';
import { followRefs, isObject, parsePointer, type Json, type JsonObject } from '../parse/pointer.js';
import type {
  BodySpec,
  PromptSpec,
  EncodingSpec,
  JsonSchema,
  OutputSpec,
  ParamLocation,
  ParamSpec,
  ParamStyle,
  ServerSpec,
  ToolSpec,
  ToolTable,
} from '../../templates/runtime/table.js';
import { NameScope, nameFromRoute, packageNameFor, sanitizeArgName, sanitizeToolName } from './naming.js';
import { SchemaConverter } from './schema.js';
import { DEFAULT_LISTING_BUDGET, fitListing, type ListingReport } from './listing.js';
import { buildAuth, credentialNaming, securityFor } from './auth.js';
import { globToRegExp, selectOperation } from './select.js';
import { bodyKindOf, concreteMediaType, isPlainJson, mediaKind, type MediaKind, type ValueShape } from '../../templates/runtime/media.js';
import { unsendableCookieName, unsendableHeaderName } from '../../templates/runtime/request.js';
import { withModelDefaults, type ModelOptions, type ToolsetRule } from './model-options.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { chooseServing, type ServingReport } from './serving.js';
import { exampleValues, resourceFor, resourceScheme, routeKind, withExamples } from './routes.js';
import { readPrompts } from './prompts.js';
import { defaultToolset, ENABLE_TOOLSET, LIST_TOOLSETS, toolsetSlug } from '../../templates/runtime/toolsets.js';

/** The meta-tools' names (dynamic.ts, toolsets.ts): operations never take them, so any mode can be served. */
const META_TOOLS = ['search_operations', 'describe_operation', 'invoke_operation', LIST_TOOLSETS, ENABLE_TOOLSET];

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
}

export interface ServerModel {
  table: ToolTable;
  report: ModelReport;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const LOCATION_ORDER: ParamLocation[] = ['path', 'query', 'header', 'cookie'];
// OpenAPI 3.0.3 §4.7.12: header parameters with these names SHALL be ignored.
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export function buildModel(spec: LoadedSpec, given: ModelOptions): ServerModel {
  const options = withModelDefaults(given);
  const { doc } = spec;
  const dialect = spec.specVersion.startsWith('3.1') ? '3.1' : '3.0';
  const converter = new SchemaConverter(doc, dialect, { examples: options.keepExamples, extensions: options.keepExtensions }, spec.source);
  const report: ModelReport = {
    skipped: [],
    renamed: [],
    warnings: [...spec.warnings],
    matchedOverrides: new Set(),
    poorDescriptions: [],
    droppedBodies: [],
    resources: { static: 0, templates: 0 },
  };
  const names = new NameScope(META_TOOLS);
  const linkTargets = new Map<ToolSpec, string[]>();
  const tools: ToolSpec[] = [];
  const info = isObject(doc.info) ? doc.info : {};
  const rootServers = serverList(doc.servers, spec.source);
  const packageName = options.name ?? packageNameFor(typeof info.title === 'string' ? info.title : undefined, rootServers[0]?.url);
  const auth = buildAuth(doc, credentialNaming(options, packageName, options.titleNamesCredentials), spec.source);
  report.warnings.push(...auth.warnings);

  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = resolve(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const label = `${method.toUpperCase()} ${path}`;
      const where = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
      const operationId = typeof op.operationId === 'string' && op.operationId.trim() !== '' ? op.operationId : undefined;
      const tags = asArray(op.tags).filter((t): t is string => typeof t === 'string');
      for (const key of [operationId, `${method.toUpperCase()} ${path}`])
        if (key && options.toolOverrides[key]) report.matchedOverrides.add(key);
      if (method === 'trace') {
        // The Fetch standard forbids TRACE (a "forbidden method"): no call could ever be sent.
        report.skipped.push({ operation: label, reason: 'TRACE cannot be sent by fetch (a forbidden method in the Fetch standard)' });
        continue;
      }
      const verdict = selectOperation(
        { method, path, ...(operationId ? { operationId } : {}), tags, op, item, doc },
        options,
        options.toolOverrides,
      );
      if (!verdict.keep) {
        report.skipped.push({ operation: label, reason: verdict.reason });
        continue;
      }
      const raw = verdict.name ?? operationId ?? nameFromRoute(method, path);
      const wanted = sanitizeToolName(raw);
      const name = names.claim(wanted);
      if (name !== raw) {
        const reason =
          name !== wanted
            ? 'name already taken'
            : raw === operationId || raw === verdict.name
              ? 'not a valid MCP tool name'
              : 'no operationId';
        report.renamed.push({ operation: label, name, reason });
      }
      const refs = new Set<string>();
      const built = buildArguments(
        doc,
        converter,
        { path, method, label, where, styledMultipart: dialect === '3.1' || spec.specVersion.startsWith('2') },
        item,
        op,
        refs,
        report,
      );
      if ('skip' in built) {
        report.skipped.push({ operation: label, reason: built.skip });
        continue;
      }
      const { params, properties, required, body, examples } = built;
      const inputSchema: JsonSchema = { type: 'object', properties };
      if (required.length) inputSchema.required = required;
      inputSchema.additionalProperties = false;
      const opServers = serverList(op.servers ?? item.servers, spec.source);
      const tool: ToolSpec = {
        name,
        ...(operationId ? { operationId } : {}),
        description:
          verdict.description !== undefined
            ? trim(verdict.description.trim() || label, options.maxDescriptionLength)
            : describe(op, item, label, options.maxDescriptionLength),
        ...(tags.length ? { tags } : {}),
        toolset: toolsetFor(verdict, options.toolsets, { tags, path, ...(operationId ? { operationId } : {}) }),
        inputSchema,
        defs: converter.closure(refs),
        annotations: annotationsFor(method),
        http: {
          method: method.toUpperCase(),
          path,
          params,
          ...(body ? { body } : {}),
          ...(opServers.length ? { servers: opServers } : {}),
        },
      };
      if (
        tool.description === label ||
        tool.description
          .replace(/^\[DEPRECATED\]\s*/, '')
          .trim()
          .split(/\s+/).length < 3
      ) {
        report.poorDescriptions.push(`${label} (${name})`);
      }
      const security = securityFor(op, doc, auth.schemes);
      if (security) tool.security = security;
      const output = buildOutput(doc, converter, op);
      if (output) tool.output = output;
      const title = typeof op.summary === 'string' ? oneLine(op.summary) : '';
      if (title && title.length <= 120) {
        tool.title = title;
        tool.annotations = { title, ...tool.annotations };
      }
      const route = routeKind(
        { method, path, ...(operationId ? { operationId } : {}), tags, op, item },
        options.routes,
        options.resources,
        params,
      );
      if (route.kind === 'exclude') {
        names.release(name);
        report.skipped.push({ operation: label, reason: `excluded by ${route.from}` });
        continue;
      }
      if (route.kind !== 'tool') {
        const resource =
          method === 'get'
            ? resourceFor(resourceScheme(packageName), path, params, body !== undefined)
            : { refused: 'only a GET is read as a resource' };
        if ('refused' in resource) {
          report.warnings.push(
            warning('not-a-resource', `stays a tool only (${route.from} asked for a resource): ${resource.refused}`, where),
          );
        } else {
          tool.resource = withExamples(resource, examples);
          if (resource.uri !== undefined) report.resources.static++;
          else report.resources.templates++;
          if (route.kind === 'resource') tool.asTool = false;
        }
      }
      tools.push(tool);
      const targets = linkedOperations(doc, op);
      if (targets.length) linkTargets.set(tool, targets);
    }
  }

  linkSequences(tools, linkTargets);
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
  for (const key of Object.keys(options.toolOverrides)) {
    if (!report.matchedOverrides.has(key))
      report.warnings.push(
        warning('unmatched-override', `config "tools"."${key}" matches no operation (use an operationId or "METHOD /path")`),
      );
  }
  const defs: Record<string, JsonSchema> = {};
  const used = new Set(tools.flatMap((t) => [...t.defs, ...(t.output?.defs ?? [])]));
  for (const key of Object.keys(converter.defs).sort()) if (used.has(key)) defs[key] = converter.defs[key] as JsonSchema;

  const direct = options.directTools;
  const pinned = tools
    .filter((t) => direct.some((g) => globToRegExp(g).test(t.name) || (t.operationId !== undefined && globToRegExp(g).test(t.operationId))))
    .map((t) => t.name);
  const table: ToolTable = {
    format: 1,
    name: packageName,
    version: typeof info.version === 'string' ? info.version : String(info.version ?? '0.0.0'),
    ...(typeof info.title === 'string' ? { title: oneLine(info.title) } : {}),
    ...(typeof info.description === 'string' && info.description.trim() ? { description: info.description.trim().slice(0, 20_000) } : {}),
    scheme: resourceScheme(packageName),
    servers: rootServers,
    defs,
    auth: auth.schemes,
    tools,
  };
  const prompts = [
    ...readPrompts(options.prompts, 'config "prompts"', report.warnings),
    ...readPrompts(doc['x-mcp-prompts'], '#/x-mcp-prompts', report.warnings),
  ];
  // The config file's prompt wins over the spec's of the same name.
  const named = new Map<string, PromptSpec>();
  for (const p of prompts) if (!named.has(p.name)) named.set(p.name, p);
  if (named.size) table.prompts = [...named.values()];
  report.listing = fitListing(table);
  const serving = chooseServing(
    { ...table, tools: table.tools.filter((t) => t.asTool !== false) },
    options.toolMode,
    { maxTools: options.maxTools, listBudgetKb: options.listBudgetKb },
    pinned,
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
  return { table, report };
}

/**
 * The operations a response's links name (OpenAPI Link Object: `operationId`, or an
 * `operationRef` pointing into this document), as operationIds or `METHOD /path`.
 */
function linkedOperations(doc: JsonObject, op: JsonObject): string[] {
  const out: string[] = [];
  for (const [code, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
    if (!/^2/.test(code)) continue;
    const response = resolve(doc, raw);
    if (!isObject(response) || !isObject(response.links)) continue;
    for (const rawLink of Object.values(response.links)) {
      const link = resolve(doc, rawLink);
      if (!isObject(link)) continue;
      if (typeof link.operationId === 'string') out.push(link.operationId);
      else if (typeof link.operationRef === 'string' && link.operationRef.startsWith('#/paths/')) {
        const tokens = parsePointer(link.operationRef);
        if (tokens && tokens.length === 3) out.push(`${tokens[2]?.toUpperCase()} ${tokens[1]}`);
      }
    }
  }
  return out;
}

/** Each tool's `then`: the tools its links lead to, by name, tools only, in link order. */
function linkSequences(tools: ToolSpec[], targets: Map<ToolSpec, string[]>): void {
  const byKey = new Map<string, ToolSpec>();
  for (const t of tools) {
    if (t.asTool === false) continue;
    if (t.operationId) byKey.set(t.operationId, t);
    byKey.set(`${t.http.method} ${t.http.path}`, t);
  }
  for (const [tool, keys] of targets) {
    const names = [...new Set(keys.map((k) => byKey.get(k)?.name).filter((n): n is string => n !== undefined && n !== tool.name))];
    if (names.length) tool.then = names;
  }
}

/** The config file's per-operation toolset, else its first matching rule, else x-mcp, else the default rule. */
function toolsetFor(
  verdict: { toolset?: string; specToolset?: string },
  rules: Record<string, ToolsetRule>,
  op: { tags: string[]; path: string; operationId?: string },
): string {
  if (verdict.toolset !== undefined && toolsetSlug(verdict.toolset)) return toolsetSlug(verdict.toolset);
  for (const [name, rule] of Object.entries(rules)) {
    const matches =
      rule.tags?.some((t) => op.tags.includes(t)) ||
      rule.paths?.some((g) => globToRegExp(g).test(op.path)) ||
      (op.operationId !== undefined && rule.operations?.some((g) => globToRegExp(g).test(op.operationId as string)));
    if (matches) return toolsetSlug(name);
  }
  if (verdict.specToolset !== undefined && toolsetSlug(verdict.specToolset)) return toolsetSlug(verdict.specToolset);
  return defaultToolset(op.tags, op.path);
}

/** A node with its `$ref`s followed within the document. */
export const resolve = (doc: JsonObject, node: Json | undefined): Json | undefined => followRefs(doc, node, () => undefined);

/** Why a header or cookie parameter can never be sent, or undefined. */
function unsendableParameter(location: string, name: string): string | undefined {
  if (location === 'header') return unsendableHeaderName(name);
  return location === 'cookie' ? unsendableCookieName(name) : undefined;
}

interface OperationPlace {
  path: string;
  method: string;
  /** `METHOD /path`, for the report. */
  label: string;
  /** JSON pointer of the operation, for warnings. */
  where: string;
  /** The Encoding Object's style/explode apply to multipart (OAS 3.1; Swagger 2.0 collectionFormat), not only to forms (3.0). */
  styledMultipart: boolean;
}

function buildArguments(
  doc: JsonObject,
  converter: SchemaConverter,
  place: OperationPlace,
  item: JsonObject,
  op: JsonObject,
  refs: Set<string>,
  report: ModelReport,
):
  { params: ParamSpec[]; properties: JsonSchema; required: string[]; body?: BodySpec; examples: Map<string, string[]> } | { skip: string } {
  const { path, where } = place;
  // Path-level parameters apply unless the operation redefines the same name + location.
  const byKey = new Map<string, JsonObject>();
  const itemWhere = where.slice(0, where.lastIndexOf('/'));
  const declared = [
    ...asArray(item.parameters).map((raw, i) => ({ raw, at: `${itemWhere}/parameters/${i}` })),
    ...asArray(op.parameters).map((raw, i) => ({ raw, at: `${where}/parameters/${i}` })),
  ];
  for (const { raw, at } of declared) {
    const p = resolve(doc, raw);
    if (!isObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
    if (!LOCATION_ORDER.includes(p.in as ParamLocation)) continue;
    if (p.in === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    const refused = unsendableParameter(p.in, p.name);
    if (refused !== undefined) {
      // A shared parameter is reported once, where it is defined.
      const source = isObject(raw) && typeof raw.$ref === 'string' && raw.$ref.startsWith('#') ? raw.$ref : at;
      if (!report.warnings.some((w) => w.code === 'unsendable-header' && w.where === source))
        report.warnings.push(warning('unsendable-header', `${refused}; left out of the arguments`, source));
      continue;
    }
    byKey.set(`${p.in}:${p.name}`, p);
  }
  // A `{name}` in the path template that no parameter declares: the spec is wrong, but the
  // operation is still usable once the caller can give the value.
  const fixedPart = path.split(/[?#]/)[0] ?? path;
  for (const match of fixedPart.matchAll(/\{([^{}]+)\}/g)) {
    const name = match[1] as string;
    if (byKey.has(`path:${name}`)) continue;
    byKey.set(`path:${name}`, { name, in: 'path', required: true, schema: { type: 'string' } });
    report.warnings.push(
      warning('missing-path-parameter', `path variable {${name}} has no parameter; added as a required string argument`, where),
    );
  }
  // Collisions: the first claimant keeps the plain name, in location order path, query,
  // header, cookie, then the body; later ones are suffixed with their location (`id_query`).
  const ordered = [...byKey.values()].sort(
    (a, b) => LOCATION_ORDER.indexOf(a.in as ParamLocation) - LOCATION_ORDER.indexOf(b.in as ParamLocation),
  );
  const scope = new NameScope();
  const params: ParamSpec[] = [];
  const properties: JsonSchema = {};
  const required: string[] = [];
  /** Argument → its parameter's examples, offered by completions when the operation is a resource template. */
  const examples = new Map<string, string[]>();
  for (const p of ordered) {
    const location = p.in as ParamLocation;
    const base = sanitizeArgName(p.name as string);
    const arg = scope.claim(scope.has(base) ? sanitizeArgName(`${base}_${location}`) : base);
    const isRequired = location === 'path' || p.required === true;
    let rawSchema: Json | undefined = p.schema;
    // Parameter Object `content` (a map with one entry): the value is sent as that media type's text.
    const contentEntry = p.schema === undefined && isObject(p.content) ? Object.entries(p.content)[0] : undefined;
    if (contentEntry !== undefined) rawSchema = isObject(contentEntry[1]) ? contentEntry[1].schema : undefined;
    const suggested = exampleValues(p, resolve(doc, rawSchema));
    if (suggested.length) examples.set(arg, suggested);
    let schema = converter.convert(rawSchema, 'request', refs);
    if (converter.extras.examples && p.example !== undefined && schema.examples === undefined)
      schema = { ...schema, examples: [p.example] };
    const description = [
      typeof p.description === 'string' ? p.description.trim() : '',
      p.deprecated === true ? '(deprecated)' : '',
      arg !== p.name ? `Sent as ${location} parameter "${p.name}".` : '',
    ]
      .filter(Boolean)
      .join(' ');
    properties[arg] = description ? { ...schema, description } : schema;
    if (isRequired) required.push(arg);
    const style = (typeof p.style === 'string' ? p.style : location === 'query' || location === 'cookie' ? 'form' : 'simple') as ParamStyle;
    const spec: ParamSpec = {
      arg,
      name: p.name as string,
      in: location,
      style,
      explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
      required: isRequired,
    };
    if (p.allowReserved === true) spec.allowReserved = true;
    if (contentEntry !== undefined) spec.contentType = concreteMediaType(contentEntry[0]);
    const type = typeOf(rawSchema, doc);
    if (type) spec.type = type;
    params.push(spec);
  }

  let body: BodySpec | undefined;
  let requestBody = resolve(doc, op.requestBody);
  if (requestBody !== undefined && (place.method === 'get' || place.method === 'head')) {
    // OAS 3.0.3 Operation Object: where HTTP gives a body no meaning (GET, HEAD) the requestBody
    // SHALL be ignored by consumers; fetch refuses to send one, so an argument could never work.
    report.droppedBodies.push(place.label);
    requestBody = undefined;
  }
  if (isObject(requestBody) && isObject(requestBody.content) && Object.keys(requestBody.content).length > 0) {
    const content = requestBody.content;
    const accepted = bodyMedia(doc, content);
    // A form is a set of named fields: a form body whose schema is an array or a scalar (PeerTube's
    // studio edit) has no field names to send. Drop that media type; with none left, drop the tool.
    const usable = accepted.filter((m) => !['form', 'multipart'].includes(bodyKindOf(m.sent)) || canBeObject(doc, mediaSchema(content, m)));
    if (usable.length === 0)
      return { skip: `its ${accepted.map((m) => m.key).join(', ')} request body is not an object, so it has no form fields to send` };
    const mediaTypes = usable.map((m) => m.sent);
    const preferred = mediaTypes[0] as string;
    const arg = scope.claim(scope.has('body') ? 'requestBody' : 'body');
    const choice = mediaTypes.length > 1 ? scope.claim('contentType') : undefined;
    const shaped = bodyArgument(converter, refs, content, usable, choice ?? 'contentType');
    const notes = [
      typeof requestBody.description === 'string' ? requestBody.description.trim() : '',
      shaped.variants ? `Request body, in the form of its ${choice} (default ${preferred}).` : `Request body (${preferred}).`,
    ];
    const schema = { ...shaped.schema, description: notes.filter(Boolean).join(' ') };
    properties[arg] = schema;
    const isRequired = requestBody.required === true;
    if (isRequired) required.push(arg);
    body = { arg, required: isRequired, mediaTypes };
    const encoding = encodingsOf(doc, content, usable, place.styledMultipart);
    if (encoding) body.encoding = encoding;
    if (choice !== undefined) {
      properties[choice] = {
        type: 'string',
        enum: mediaTypes,
        description: `Media type to send the body as (default ${preferred}).`,
      };
      body.contentTypeArg = choice;
    }
    if (shaped.variants) body.variants = shaped.variants;
  } else if (op.requestBody !== undefined && !isObject(requestBody) && !report.droppedBodies.includes(place.label)) {
    report.warnings.push(warning('unresolved-request-body', 'cannot be resolved; the tool takes no body', `${where}/requestBody`));
  }
  return { params, properties, required, body, examples };
}

/**
 * outputSchema from the first 2xx response with a JSON schema. MCP wants an object at the
 * root, so any other answer (array, string, or a schema that may be either) is wrapped as
 * `{ result }`.
 */
function buildOutput(doc: JsonObject, converter: SchemaConverter, op: JsonObject): OutputSpec | undefined {
  const responses = isObject(op.responses) ? op.responses : {};
  const codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort();
  for (const code of codes) {
    const response = resolve(doc, responses[code]);
    if (!isObject(response) || !isObject(response.content)) continue;
    const media = Object.keys(response.content).find((m) => mediaKind(m) === 'json');
    const entry = media ? response.content[media] : undefined;
    if (!isObject(entry) || entry.schema === undefined) continue;
    const refs = new Set<string>();
    const schema = converter.convert(entry.schema, 'response', refs);
    const wrap = !isObjectRoot(schema, converter);
    const root: JsonSchema = wrap ? { type: 'object', properties: { result: schema } } : { ...schema, type: 'object' };
    return { schema: root, defs: converter.closure(refs), wrap };
  }
  return undefined;
}

/** True when every value the schema allows (besides null) is an object. */
function isObjectRoot(schema: JsonSchema, converter: SchemaConverter, depth = 0): boolean {
  if (depth > 20) return false;
  if (typeof schema.$ref === 'string') {
    const target = converter.defs[schema.$ref.slice('#/$defs/'.length)];
    return target !== undefined && isObjectRoot(target, converter, depth + 1);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length) return types.every((t) => t === 'object' || t === 'null') && types.includes('object');
  const allOf = schema.allOf as JsonSchema[] | undefined;
  if (allOf?.length) return allOf.some((s) => isObjectRoot(s, converter, depth + 1));
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length) return anyOf.every((s) => isObjectRoot(s, converter, depth + 1) || s.type === 'null');
  return schema.properties !== undefined;
}

const asArray = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

/** JSON first, then other JSON flavours, forms, text, anything else. */
function mediaRank(media: string): number {
  const kind = bodyKindOf(media);
  if (kind === 'json') return isPlainJson(media) ? 0 : 1;
  return { form: 2, multipart: 3, ndjson: 4, text: 4, binary: 5 }[kind];
}

/** A request body's Media Type Object: its key (perhaps a range) and the concrete type it is sent as. */
interface BodyMedia {
  key: string;
  sent: string;
}

/** The accepted media types, each as the type it is sent as, preferred first; a range that comes to a type already listed is left out. */
function bodyMedia(doc: JsonObject, content: JsonObject): BodyMedia[] {
  const seen = new Set<string>();
  return Object.keys(content)
    .map((key) => ({ key, sent: concreteMediaType(key, valueShape(doc, mediaSchema(content, { key }))) }))
    .sort((a, b) => mediaRank(a.sent) - mediaRank(b.sent))
    .filter((m) => !seen.has(m.sent.toLowerCase()) && Boolean(seen.add(m.sent.toLowerCase())));
}

const mediaSchema = (content: JsonObject, media: { key: string }): Json | undefined => {
  const entry = content[media.key];
  return isObject(entry) ? entry.schema : undefined;
};

/** What a range such as `*\/*` is sent as depends on this (media.ts, concreteMediaType). */
function valueShape(doc: JsonObject, schema: Json | undefined): ValueShape {
  const s = resolve(doc, schema);
  if (!isObject(s) || s.type !== 'string') return 'value';
  const binary = s.format === 'binary' || s.format === 'base64' || s.contentEncoding !== undefined || s.contentMediaType !== undefined;
  return binary ? 'bytes' : 'string';
}

const STRUCTURED: MediaKind[] = ['json', 'form', 'multipart', 'ndjson'];

/**
 * The body argument's schema. Media types whose schemas are the same share one form, as
 * the first of them shapes it; text and base64 types add a string. Where the structured
 * types' schemas differ (pdfbroker's pdfconcat: JSON fields, or multipart file fields),
 * each schema is one branch of an `anyOf`, below the top where every profile accepts it,
 * and `variants` says which branch each media type is checked against.
 */
function bodyArgument(
  converter: SchemaConverter,
  refs: Set<string>,
  content: JsonObject,
  usable: BodyMedia[],
  choice: string,
): { schema: JsonSchema; variants?: Record<string, number> } {
  const forms: { schema: JsonSchema; text: string; media: string[] }[] = [];
  for (const m of usable.filter((u, i) => i === 0 || STRUCTURED.includes(bodyKindOf(u.sent)))) {
    const own = new Set<string>();
    const schema = converter.convert(mediaSchema(content, m), 'request', own);
    const text = JSON.stringify(schema);
    const same = forms.find((f) => f.text === text);
    if (same) same.media.push(m.sent);
    else {
      forms.push({ schema: bodySchema(schema, m.sent, converter), text, media: [m.sent] });
      for (const ref of own) refs.add(ref);
    }
  }
  const first = forms[0] as (typeof forms)[number];
  const stringTypes = usable.map((m) => m.sent).filter((m) => ['text', 'binary'].includes(bodyKindOf(m)) && !first.media.includes(m));
  const text: JsonSchema = {
    type: 'string',
    description: `The body as text (base64 for binary) when ${choice} is ${stringTypes.join(' or ')}.`,
  };
  if (forms.length === 1) {
    // One schema for all: as it always was, so that tables and samples do not change.
    if (!stringTypes.length || first.schema.type === 'string') return { schema: first.schema };
    return { schema: { anyOf: [first.schema, text] } };
  }
  const branches = forms.map((f, i) =>
    formBranch(f.schema, `${choice} is ${f.media.join(' or ')}${i === 0 ? ' (the default)' : ''}`, converter),
  );
  const variants: Record<string, number> = {};
  forms.forEach((f, i) => f.media.forEach((m) => (variants[m] = i)));
  if (stringTypes.length) {
    stringTypes.forEach((m) => (variants[m] = branches.length));
    branches.push(text);
  }
  return { schema: { anyOf: branches }, variants };
}

/** One form of a body whose media types' schemas differ, saying which contentType it goes with. */
function formBranch(schema: JsonSchema, when: string, converter: SchemaConverter): JsonSchema {
  // a description beside a $ref replaces the target's where profiles inline it: keep the target's words
  const target = typeof schema.$ref === 'string' ? (converter.defs[schema.$ref.slice('#/$defs/'.length)] ?? schema) : schema;
  const own = typeof target.description === 'string' ? target.description.trim() : '';
  // first, so that compact profiles, which keep a description's first paragraph, keep it
  const which = `When ${when}.`;
  return { ...schema, description: own ? `${which} ${own}` : which };
}

const FILE_PART: JsonSchema = {
  type: 'object',
  description: 'A file: its bytes as base64, with an optional file name and media type.',
  properties: {
    content: { type: 'string', contentEncoding: 'base64', description: 'File content, base64-encoded.' },
    filename: { type: 'string' },
    contentType: { type: 'string' },
  },
  required: ['content'],
  additionalProperties: false,
};

/** The shape a client sends for a body of this media type (as request.ts will send it). */
function bodySchema(schema: JsonSchema, media: string, converter: SchemaConverter): JsonSchema {
  const kind = bodyKindOf(media);
  if (kind === 'json' || kind === 'form' || kind === 'ndjson') return schema;
  if (kind === 'text') return { type: 'string' };
  if (kind === 'binary') return { type: 'string', contentEncoding: 'base64', contentMediaType: media };
  // multipart: binary fields become file parts; a $ref'd object is inlined one level for that
  const target = typeof schema.$ref === 'string' ? converter.defs[schema.$ref.slice('#/$defs/'.length)] : schema;
  if (!target || !isObject(target.properties as Json)) return schema;
  const properties: JsonSchema = {};
  let changed = false;
  for (const [name, prop] of Object.entries(target.properties as Record<string, JsonSchema>)) {
    const file = filePart(prop, converter);
    properties[name] = file ?? prop;
    changed ||= file !== undefined;
  }
  return changed ? { ...target, properties } : schema;
}

/** A binary field as a file part, an array of them as an array of file parts. */
function filePart(prop: JsonSchema, converter: SchemaConverter): JsonSchema | undefined {
  const s = typeof prop.$ref === 'string' ? (converter.defs[prop.$ref.slice('#/$defs/'.length)] ?? prop) : prop;
  const describe = typeof s.description === 'string' ? { description: s.description } : {};
  if (s.type === 'string' && (s.format === 'binary' || s.format === 'base64')) return { ...FILE_PART, ...describe };
  if (s.type === 'array' && isObject(s.items as Json)) {
    const item = filePart(s.items as JsonSchema, converter);
    if (item) return { type: 'array', items: item, ...describe };
  }
  return undefined;
}

/** False when the schema (after $refs) can only be an array or a scalar. */
function canBeObject(doc: JsonObject, schema: Json | undefined, depth = 0): boolean {
  const s = resolve(doc, schema);
  if (!isObject(s) || depth > 10) return true;
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : [];
  if (types.length > 0) return types.includes('object');
  if (s.properties !== undefined || s.additionalProperties !== undefined) return true;
  const alternatives = [...asArray(s.oneOf), ...asArray(s.anyOf)];
  if (alternatives.length > 0) return alternatives.some((a) => canBeObject(doc, a, depth + 1));
  if (asArray(s.allOf).length > 0) return asArray(s.allOf).every((a) => canBeObject(doc, a, depth + 1));
  return true;
}

const STYLES = new Set(['form', 'spaceDelimited', 'pipeDelimited', 'tabDelimited', 'deepObject']);

/**
 * The Encoding Objects of the form and multipart media types (OAS 3.1.1 §4.8.15), reduced to
 * what changes the bytes. style/explode/allowReserved apply to forms, and to multipart from 3.1
 * on (3.0.3: "SHALL be ignored if the request body media type is not
 * application/x-www-form-urlencoded"); when they apply, contentType is ignored.
 */
function encodingsOf(doc: JsonObject, content: JsonObject, usable: BodyMedia[], styledMultipart: boolean): BodySpec['encoding'] {
  const out: NonNullable<BodySpec['encoding']> = {};
  for (const { key, sent: media } of usable) {
    const kind = bodyKindOf(media);
    const entry = content[key];
    if ((kind !== 'form' && kind !== 'multipart') || !isObject(entry) || !isObject(entry.encoding)) continue;
    const properties: Record<string, EncodingSpec> = {};
    for (const [name, raw] of Object.entries(entry.encoding)) {
      const e = resolve(doc, raw);
      if (!isObject(e)) continue;
      const spec: EncodingSpec = {};
      const styled =
        (kind === 'form' || styledMultipart) && (e.style !== undefined || e.explode !== undefined || e.allowReserved !== undefined);
      if (styled) {
        const style = typeof e.style === 'string' && STYLES.has(e.style) ? (e.style as ParamStyle) : 'form';
        spec.style = style;
        spec.explode = typeof e.explode === 'boolean' ? e.explode : style === 'form';
        if (e.allowReserved === true) spec.allowReserved = true;
      } else if (typeof e.contentType === 'string' && e.contentType.trim() !== '') {
        spec.contentType = e.contentType.trim();
      }
      if (kind === 'multipart' && isObject(e.headers)) {
        const headers: Record<string, string> = {};
        for (const [header, rawHeader] of Object.entries(e.headers)) {
          const fixed = fixedValue(doc, resolve(doc, rawHeader));
          if (fixed !== undefined && !/[\r\n\0]/.test(fixed) && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) headers[header] = fixed;
        }
        if (Object.keys(headers).length) spec.headers = headers;
      }
      if (Object.keys(spec).length) properties[name] = spec;
    }
    if (Object.keys(properties).length) out[media] = properties;
  }
  return Object.keys(out).length ? out : undefined;
}

/** A Header Object's value when the spec fixes it: `const`, a single `enum` value, or `default`. */
function fixedValue(doc: JsonObject, header: Json | undefined): string | undefined {
  if (!isObject(header)) return undefined;
  const schema = resolve(doc, header.schema);
  if (!isObject(schema)) return undefined;
  const value =
    schema.const !== undefined ? schema.const : Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : schema.default;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

function typeOf(schema: Json | undefined, doc: JsonObject): string | undefined {
  const s = resolve(doc, schema);
  if (!isObject(s)) return undefined;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') as string | undefined;
  return undefined;
}

function annotationsFor(method: string) {
  switch (method) {
    case 'get':
    case 'head':
    case 'options':
    case 'trace': // the safe methods (RFC 9110 §9.2.1)
      return { readOnlyHint: true, openWorldHint: true };
    case 'delete':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
    case 'put':
      return { readOnlyHint: false, idempotentHint: true, openWorldHint: true };
    default:
      return { readOnlyHint: false, openWorldHint: true };
  }
}

function describe(op: JsonObject, item: JsonObject, label: string, max: number): string {
  const parts: string[] = [];
  if (op.deprecated === true) parts.push('[DEPRECATED]');
  const summary = typeof op.summary === 'string' ? op.summary.trim() : typeof item.summary === 'string' ? item.summary.trim() : '';
  const details =
    typeof op.description === 'string' ? op.description.trim() : typeof item.description === 'string' ? item.description.trim() : '';
  if (summary) parts.push(summary);
  if (details && details !== summary) parts.push((summary ? '\n\n' : '') + details);
  if (!summary && !details) parts.push(label);
  return trim(parts.join(' ').replace(/ \n\n/, '\n\n').trim(), max);
}

const trim = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1).trimEnd() + '…' : text);

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Server objects as the runtime needs them. */
function serverList(servers: Json | undefined, source: string): ServerSpec[] {
  return asArray(servers)
    .map((s) => serverOf(s, source))
    .filter((s): s is ServerSpec => s !== undefined);
}

/** A Server Object as the runtime needs it; a relative URL is resolved against a spec URL. */
export function serverOf(s: Json, source: string): ServerSpec | undefined {
  if (!isObject(s) || typeof s.url !== 'string') return undefined;
  let url = s.url.trim();
  if (/^https?:\/\//i.test(source) && !/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    try {
      url = new URL(url, source).href;
    } catch {
      // keep it relative; the server will ask for --base-url
    }
  }
  const server: ServerSpec = { url };
  if (typeof s.description === 'string') server.description = oneLine(s.description);
  if (isObject(s.variables)) {
    const variables: NonNullable<ServerSpec['variables']> = {};
    for (const [name, v] of Object.entries(s.variables)) {
      if (!isObject(v)) continue;
      const enumValues = asArray(v.enum).map(String);
      variables[name] = {
        default: v.default !== undefined ? String(v.default) : (enumValues[0] ?? ''),
        ...(enumValues.length ? { enum: enumValues } : {}),
        ...(typeof v.description === 'string' ? { description: oneLine(v.description) } : {}),
      };
    }
    server.variables = variables;
  }
  return server;
}
