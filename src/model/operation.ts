// Operation Objects (OAS 3.1.1 §4.8.10): each becomes one tool, with a name, a description,
// annotations from its method, a toolset, and one inputSchema in which its parameters and its
// request body are arguments side by side.

import { asArray, escapeToken, followRefs, isObject, type JsonObject } from '../parse/pointer.js';
import type { BodySpec, JsonSchema, ParamSpec, ToolSpec } from '../contract/table.js';
import { defaultToolset, toolsetSlug } from '../contract/toolsets.js';
import type { ToolsetRule } from './model-options.js';
import { nameFromRoute, sanitizeToolName, type NameScope } from './naming.js';
import { ruleMatches, type OperationRef } from './rules.js';
import { buildParameters } from './parameters.js';
import { buildRequestBody } from './request-body.js';
import { oneLine, truncate } from './text.js';
import type { OperationPlace, SpecContext } from './context.js';
import { isIdempotentMethod, isSafeMethod, methodOnTheWire } from '../contract/http-methods.js';
import { warning, type GenerationWarning } from '../warnings.js';

/** The Path Item's fixed operation fields; `query` is OAS 3.2's (the HTTP QUERY method). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'] as const;

/** An operation of the document, with the names the report and warnings give it. */
export interface Operation extends OperationRef {
  /** `METHOD /path`. */
  label: string;
  /** JSON pointer of the Operation Object. */
  where: string;
}

/**
 * Every operation of the document, in path order then METHODS order, then the path item's
 * `additionalOperations` (OAS 3.2: any other method, keyed as it is sent); `warnings` hears of
 * the additional ones left out.
 */
export function* operationsOf(doc: JsonObject, warnings?: GenerationWarning[]): Generator<Operation> {
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = followRefs(doc, rawItem);
    if (!isObject(item)) continue;
    const at = `#/paths/${escapeToken(path)}`;
    for (const method of METHODS) {
      const op = item[method];
      if (isObject(op)) yield operationOf(doc, path, item, method, op, `${at}/${method}`);
    }
    if (ADDITIONAL_FIELDS.some((field) => isObject(item[field]))) yield* additionalOperationsOf(doc, path, item, at, warnings);
  }
}

/** The path item's operations of other methods (few path items have any), after those of its fixed fields. */
function* additionalOperationsOf(
  doc: JsonObject,
  path: string,
  item: JsonObject,
  at: string,
  warnings?: GenerationWarning[],
): Generator<Operation> {
  const taken = new Set(METHODS.filter((method) => isObject(item[method])).map((method) => method.toUpperCase()));
  for (const field of ADDITIONAL_FIELDS) {
    const additional = isObject(item[field]) ? item[field] : {};
    for (const [method, op] of Object.entries(additional)) {
      const where = `${at}/${escapeToken(field)}/${escapeToken(method)}`;
      const unsendable = additionalProblem(method, field, taken);
      if (unsendable) warnings?.push(unsendable(where));
      else if (isObject(op) && HTTP_TOKEN.test(method)) yield operationOf(doc, path, item, method, op, where);
      taken.add(method);
    }
  }
}

/**
 * Where a path item holds operations of other methods: OAS 3.2's field, and the extension that
 * 3.0 and 3.1 documents use for the same map (`x-oai-additionalOperations`, which 3.2 standardised).
 */
const EXTENSION = 'x-oai-additionalOperations';
const ADDITIONAL_FIELDS = ['additionalOperations', EXTENSION];

/** Why an additional operation's method is left out, as a warning for its place; undefined when it is kept. */
function additionalProblem(method: string, field: string, taken: Set<string>): ((where: string) => GenerationWarning) | undefined {
  // `query` is a field of 3.2 only: 3.0 and 3.1 documents name QUERY in the extension
  const fixed = (METHODS as readonly string[]).includes(method.toLowerCase()) && !(field === EXTENSION && method === 'QUERY');
  if (fixed) return (where) => fixedMethodWarning(method, field, where);
  if (method === 'CONNECT')
    return (where) =>
      warning(
        'unsendable-method',
        `${field} key "CONNECT" asks a proxy for a tunnel (RFC 9110 §9.3.6), which no HTTP client sends as an API call; left out`,
        where,
      );
  if (taken.has(method))
    return (where) => warning('unsendable-method', `${field} key "${method}" is already an operation of this path item; left out`, where);
  return undefined;
}

/**
 * An additional operation keyed by a fixed field's method in other capitals (`get`, `Post`):
 * HTTP would read it as another method (RFC 9110 §9.1), which no API means, and the spec keeps
 * the fixed methods to their fields (OAS 3.2.0, Path Item Object): left out, saying so.
 */
function fixedMethodWarning(method: string, map: string, where: string): GenerationWarning {
  const field = method.toLowerCase();
  const sameCase = method === field.toUpperCase();
  return warning(
    'fixed-method-key',
    sameCase
      ? `${map} key "${method}" is the method of the path item's "${field}" field; left out: describe the operation under "${field}"`
      : `${map} key "${method}" is the method of the path item's "${field}" field in other capitals (HTTP methods are case-sensitive: it would be sent as "${method}", not ${field.toUpperCase()}); left out: describe the operation under "${field}"`,
    where,
  );
}

/** A method name is an HTTP token (RFC 9110 §9.1, §5.6.2); anything else could not be sent. */
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function operationOf(doc: JsonObject, path: string, item: JsonObject, method: string, op: JsonObject, where: string): Operation {
  const operationId = typeof op.operationId === 'string' && op.operationId.trim() !== '' ? op.operationId : undefined;
  return {
    method,
    path,
    ...(operationId ? { operationId } : {}),
    tags: asArray(op.tags).filter((t): t is string => typeof t === 'string'),
    op,
    item,
    doc,
    label: `${methodOnTheWire(method)} ${path}`,
    where,
  };
}

/**
 * The tool's name, claimed in `names`: the override, else the operationId, else one made of
 * method and path; `renamed` says why it is not what was asked for, when it is not.
 */
export function toolName(names: NameScope, operation: Operation, override: string | undefined): { name: string; renamed?: string } {
  const raw = override ?? operation.operationId ?? nameFromRoute(operation.method, operation.path);
  const wanted = sanitizeToolName(raw);
  const name = names.claim(wanted);
  if (name === raw) return { name };
  const renamed =
    name !== wanted
      ? 'name already taken'
      : raw === operation.operationId || raw === override
        ? 'not a valid MCP tool name'
        : 'no operationId';
  return { name, renamed };
}

/** A tool's arguments: the inputSchema, and where each argument goes in the request. */
export interface Arguments {
  inputSchema: JsonSchema;
  params: ParamSpec[];
  body?: BodySpec;
  /** Argument → example values, for completions of resource templates. */
  examples: Map<string, string[]>;
  /** A GET or HEAD request body was left out (see RequestBodyArgument). */
  ignoredBody: boolean;
}

/** The parameters, then the body, as one closed inputSchema; `skip` when no request could be made. */
export function buildArguments(
  ctx: SpecContext,
  place: OperationPlace,
  item: JsonObject,
  op: JsonObject,
  refs: Set<string>,
): Arguments | { skip: string } {
  const { params, properties, required, examples, scope } = buildParameters(ctx, place, item, op, refs);
  const requestBody = buildRequestBody(ctx, place, op, scope, refs);
  if (requestBody.kind === 'unusable') return { skip: requestBody.reason };
  if (requestBody.kind === 'body') {
    Object.assign(properties, requestBody.properties);
    required.push(...requestBody.required);
  }
  const inputSchema: JsonSchema = { type: 'object', properties };
  if (required.length) inputSchema.required = required;
  inputSchema.additionalProperties = false;
  return {
    inputSchema,
    params,
    ...(requestBody.kind === 'body' ? { body: requestBody.body } : {}),
    examples,
    ignoredBody: requestBody.kind === 'ignored',
  };
}

/** The arguments without these parameters (the server fills them: credentials), and so the inputSchema without them. */
export function withoutParameters(args: Arguments, filled: Set<ParamSpec>): Arguments {
  if (!filled.size) return args;
  const gone = new Set([...filled].map((p) => p.arg));
  const properties = Object.fromEntries(
    Object.entries(args.inputSchema.properties as Record<string, JsonSchema>).filter(([k]) => !gone.has(k)),
  );
  const required = ((args.inputSchema.required as string[] | undefined) ?? []).filter((k) => !gone.has(k));
  const inputSchema: JsonSchema = { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
  const examples = new Map([...args.examples].filter(([arg]) => !gone.has(arg)));
  return { ...args, inputSchema, params: args.params.filter((p) => !filled.has(p)), examples };
}

/** The tool's description: the one the config file or x-mcp gives, else the spec's summary and description. */
export function descriptionOf(override: string | undefined, op: JsonObject, item: JsonObject, label: string, max: number): string {
  if (override !== undefined) return truncate(override.trim() || label, max);
  const parts: string[] = [];
  if (op.deprecated === true) parts.push('[DEPRECATED]');
  const summary = typeof op.summary === 'string' ? op.summary.trim() : typeof item.summary === 'string' ? item.summary.trim() : '';
  const details =
    typeof op.description === 'string' ? op.description.trim() : typeof item.description === 'string' ? item.description.trim() : '';
  if (summary) parts.push(summary);
  if (details && details !== summary) parts.push((summary ? '\n\n' : '') + details);
  if (!summary && !details) parts.push(label);
  return truncate(parts.join(' ').replace(/ \n\n/, '\n\n').trim(), max);
}

/** A description that tells an agent little: only the route, or fewer than three words. */
export function isPoorDescription(description: string, label: string): boolean {
  return (
    description === label ||
    description
      .replace(/^\[DEPRECATED\]\s*/, '')
      .trim()
      .split(/\s+/).length < 3
  );
}

/** The operation's summary on one line, as the tool's title; none when missing or too long for a title. */
export function titleOf(op: JsonObject): string | undefined {
  const title = typeof op.summary === 'string' ? oneLine(op.summary) : '';
  return title && title.length <= 120 ? title : undefined;
}

/**
 * MCP tool annotations from what HTTP says of the method as sent (`GET`, `PROPFIND`): a safe
 * method is read-only, an idempotent one says so, and one HTTP knows nothing of is neither.
 */
export function annotationsFor(method: string): ToolSpec['annotations'] {
  if (isSafeMethod(method)) return { readOnlyHint: true, openWorldHint: true };
  if (method === 'DELETE') return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
  if (isIdempotentMethod(method)) return { readOnlyHint: false, idempotentHint: true, openWorldHint: true };
  return { readOnlyHint: false, openWorldHint: true };
}

/** The config file's per-operation toolset, else its first matching rule, else x-mcp, else the default rule. */
export function toolsetFor(
  verdict: { toolset?: string; specToolset?: string },
  rules: Record<string, ToolsetRule>,
  op: Pick<OperationRef, 'method' | 'path' | 'operationId' | 'tags'>,
): string {
  if (verdict.toolset !== undefined && toolsetSlug(verdict.toolset)) return toolsetSlug(verdict.toolset);
  for (const [name, rule] of Object.entries(rules)) if (ruleMatches(rule, op, 'any')) return toolsetSlug(name);
  if (verdict.specToolset !== undefined && toolsetSlug(verdict.specToolset)) return toolsetSlug(verdict.specToolset);
  return defaultToolset(op.tags, op.path);
}
