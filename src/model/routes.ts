// Route mapping: whether an operation becomes a tool (the default), an MCP resource or resource
// template, both, or nothing. Steered, first match winning, by the config file's `routes`
// rules, the spec's `x-mcp: { kind }`, and the `--resources get` preset. Resources are read
// with the same HTTP request a tool call makes, so only side-effect-free GETs (and QUERYs) may be one.

import { isObject, type Json, type JsonObject } from '../parse/pointer.js';
import type { ParamSpec, ResourceSpec } from '../contract/table.js';
import { ruleMatches, type OperationRef } from './rules.js';
import { ROUTE_KINDS, type ResourcePreset, type RouteKind, type RouteRule } from './model-options.js';

export function routeKind(
  ref: OperationRef,
  rules: RouteRule[],
  preset: ResourcePreset,
  params: ParamSpec[],
): { kind: RouteKind; from: string } {
  const method = ref.method.toUpperCase();
  for (const [i, rule] of rules.entries()) {
    if (ruleMatches(rule, ref, 'all')) return { kind: rule.kind, from: `config routes[${i}]` };
  }
  for (const node of [ref.op['x-mcp'], ref.item['x-mcp']] as (Json | undefined)[]) {
    if (isObject(node) && typeof node.kind === 'string' && (ROUTE_KINDS as string[]).includes(node.kind)) {
      return { kind: node.kind as RouteKind, from: 'x-mcp' };
    }
  }
  // A QUERY without a body reads as a GET does (draft-ietf-httpbis-safe-method-w-body: safe, idempotent)
  const readsLikeGet = method === 'GET' || (method === 'QUERY' && ref.op.requestBody === undefined);
  if (preset === 'get' && readsLikeGet && !params.some((p) => p.required && p.in !== 'path'))
    return { kind: 'both', from: '--resources get' };
  return { kind: 'tool', from: 'default' };
}

/** The URI scheme of an API's resources: its package name without `-mcp` (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`, `.`). */
export function resourceScheme(packageName: string): string {
  const base = packageName
    .replace(/-mcp$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9+.-]+/g, '-')
    .replace(/^[^a-z]+/, '');
  return base || 'api';
}

/** The most completion values kept per template variable: what one completion/complete answer holds. */
const MAX_SUGGESTIONS = 100;

/**
 * Values for completion/complete from a parameter's examples (Parameter Object `example` and
 * `examples`, their `value` or OAS 3.2 `dataValue`, then its schema's `example` and `examples`): text, numbers and booleans as text.
 */
export function exampleValues(param: JsonObject, schema: Json | undefined): string[] {
  if (!hasExamples(param) && !(isObject(schema) && hasExamples(schema))) return [];
  // OAS 3.2's `dataValue` is the value as data, what an argument holds; `serializedValue` is its
  // wire form (`species=dog`), no value to offer
  const exampleObjects = isObject(param.examples)
    ? Object.values(param.examples).map((e) => (isObject(e) ? (e.dataValue ?? e.value) : undefined))
    : [];
  const fromSchema = isObject(schema) ? [schema.example, ...(Array.isArray(schema.examples) ? schema.examples : [])] : [];
  const values = [param.example, ...exampleObjects, ...fromSchema]
    .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(String)
    .filter((v) => v.length <= 200);
  return [...new Set(values)].slice(0, MAX_SUGGESTIONS);
}

/** Most parameters and schemas give no example: they need no lists made to say so. */
const hasExamples = (o: JsonObject): boolean => o.example !== undefined || o.examples !== undefined;

/** A resource template with the examples of the arguments its variables fill, for completions. */
export function withExamples(resource: ResourceSpec, examples: ReadonlyMap<string, string[]>): ResourceSpec {
  const byVariable = Object.entries(resource.variables ?? {}).filter(([, arg]) => examples.has(arg));
  if (byVariable.length === 0) return resource;
  return { ...resource, examples: Object.fromEntries(byVariable.map(([variable, arg]) => [variable, examples.get(arg) as string[]])) };
}

/**
 * The resource (no path parameters) or RFC 6570 resource template (path variables, and query
 * parameters as `{?a,b}`) for a GET. Undefined, with the reason, when a read could not make the
 * request: a required header or cookie parameter, a request body, a literal query in the path.
 */
export function resourceFor(scheme: string, path: string, params: ParamSpec[], hasBody: boolean): ResourceSpec | { refused: string } {
  if (hasBody) return { refused: 'it takes a request body' };
  if (/[?#]/.test(path)) return { refused: 'its path has a literal query or fragment' };
  const blocked = params.find((p) => p.required && (p.in === 'header' || p.in === 'cookie' || p.in === 'querystring'));
  if (blocked) return { refused: `its ${blocked.in} parameter "${blocked.name}" is required, and a URI cannot carry it` };
  const variables: Record<string, string> = {};
  const taken = new Set<string>();
  // RFC 6570 §2.3 varname: ALPHA / DIGIT / "_" / pct-encoded, dot-separated; ours stay [A-Za-z0-9_].
  const varName = (arg: string) => {
    const base = arg.replace(/[^A-Za-z0-9_]/g, '_') || 'v';
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
    taken.add(name);
    return name;
  };
  const byName = new Map(params.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  let failed: string | undefined;
  const rest = path.replace(/^\/+/, '');
  const template = rest
    .split(/(\{[^{}]+\})/)
    .map((part) => {
      const m = /^\{([^{}]+)\}$/.exec(part);
      if (!m) return encodeURI(part).replace(/[{}]/g, (c) => encodeURIComponent(c));
      const param = byName.get(m[1] as string);
      if (!param) {
        failed = `its path variable {${m[1]}} has no parameter`;
        return '';
      }
      const name = varName(param.arg);
      variables[name] = param.arg;
      return `{${name}}`;
    })
    .join('');
  if (failed) return { refused: failed };
  // `/:id/info` (an Express path, not a template) would put ":id" where a URI has its host.
  try {
    new URL(`${scheme}://${template.replace(/\{[^{}]+\}/g, 'x1')}`);
  } catch {
    return { refused: `its path ${path} does not make a valid URI` };
  }
  const query = params.filter((p) => p.in === 'query');
  if (Object.keys(variables).length === 0 && !query.some((p) => p.required)) return { uri: `${scheme}://${template}` };
  const queryVars = query.map((p) => {
    const name = varName(p.arg);
    variables[name] = p.arg;
    return name;
  });
  return { uriTemplate: `${scheme}://${template}${queryVars.length ? `{?${queryVars.join(',')}}` : ''}`, variables };
}
