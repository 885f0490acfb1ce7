// Code mode's view of an operation: a TypeScript method declaration written from the tool's
// JSON Schemas (arguments and answer), as an agent writing a program against `api` reads it.
// Printed from data at run time, never evaluated; cut by size, so that a huge schema costs a
// few KB, not a page, while the fields a program reads (those of list items and nested objects)
// show as deep as the budget allows. The text is valid TypeScript: it is an interface's body.

import type { JsonSchema, ToolSpec } from '../../contract/table.js';

/** Bytes one printed type (the arguments, or the answer) may take before it is printed shallower. */
const ARGUMENTS_BUDGET_BYTES = 1_500;
const ANSWER_BUDGET_BYTES = 3_000;
/** Objects nested in objects printed at most; deeper ones are `object`. */
const MAX_NESTING = 8;
/** Properties of one object printed; the rest are summed up as an index signature. */
const MAX_PROPERTIES = 25;
/** Enum members printed before `| …` (then the type is its base type). */
const MAX_ENUM = 12;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** How a union that allows null ends: a type ending so is such a union (inside brackets it would end with the bracket). */
const NULLABLE = ' | null';
/** Keywords that make a schema more than an object's properties (see objectParts). */
const NOT_PLAIN = ['oneOf', 'anyOf', 'enum', 'const', 'items', 'not'];
/** Keywords that say what a value is; a schema without any (a description, say) adds nothing to an intersection. */
const TYPE_KEYWORDS = ['type', 'properties', 'additionalProperties', 'items', 'enum', 'const', 'oneOf', 'anyOf', '$ref'];

/**
 * Where a program finds the tool: `api.<operation>`, or for a server of several APIs
 * `api.<namespace>.<operation>`, the operation's name without its namespace's prefix. Tool names
 * have no dot (naming.ts), so the path as `<namespace>.<operation>` is unambiguous.
 */
export function apiPath(tool: Pick<ToolSpec, 'name' | 'api'>): string {
  const prefix = `${tool.api}_`;
  return tool.api !== undefined && tool.name.startsWith(prefix) ? `${tool.api}.${tool.name.slice(prefix.length)}` : tool.name;
}

/** `interface Api`'s body: the declarations as members, in an object per namespace when the tools have one. */
export function apiMembers(declared: { tool: ToolSpec; declaration: string }[]): string {
  if (declared.every(({ tool }) => tool.api === undefined)) return declared.map((d) => d.declaration).join('\n');
  const byNamespace = new Map<string, string[]>();
  for (const { tool, declaration } of declared) {
    const namespace = tool.api ?? '';
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), indented(declaration, '    ')]);
  }
  return [...byNamespace].map(([namespace, members]) => `  ${memberName(namespace)}: {\n${members.join('\n')}\n  };`).join('\n');
}

const indented = (text: string, by: string) => text.replace(/^/gm, by);

/** A method of `api` (or of its namespace's object): its doc comment and signature. */
export function declarationOf(tool: ToolSpec, input: JsonSchema, output: JsonSchema | undefined, wrapped: boolean): string {
  const summary = firstParagraph(tool.title ?? tool.description);
  const access = tool.annotations.readOnlyHint === true ? 'read-only' : 'writes';
  const answer =
    output === undefined
      ? 'unknown'
      : printed(programAnswer(tool, wrapped ? (property(output, 'result') ?? output) : output), output, ANSWER_BUDGET_BYTES);
  return [
    `/** ${comment(summary)} (${access}; ${tool.http.method} ${tool.http.path}) */`,
    `${memberName(operationName(tool))}(args: ${printed(input, input, ARGUMENTS_BUDGET_BYTES)}): Promise<${answer}>;`,
  ].join('\n');
}

function firstParagraph(text: string): string {
  const paragraph = text.split(/\n\s*\n/)[0] ?? '';
  const line = paragraph.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Text safe inside a block comment. */
function comment(text: string): string {
  return text.replace(/\*\//g, '* /');
}

/** The operation's name under `api` or its namespace's object. */
const operationName = (tool: ToolSpec): string => apiPath(tool).slice(tool.api === undefined ? 0 : tool.api.length + 1);

function memberName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function property(schema: JsonSchema, name: string): JsonSchema | undefined {
  const properties = (schema as { properties?: Record<string, JsonSchema> }).properties;
  return properties?.[name];
}

/**
 * What a program gets of a streaming tool's answer: the items alone (code-mode.ts), an array of
 * the outputSchema's `items`, beside the one JSON answer where the operation also gives one.
 */
function programAnswer(tool: ToolSpec, answer: JsonSchema): JsonSchema {
  if (tool.sequence === undefined) return answer;
  const shapes = (answer.anyOf as JsonSchema[] | undefined) ?? [answer];
  const read = shapes.map((shape) => (isStreamRead(shape) ? (property(shape, 'items') as JsonSchema) : shape));
  return read.length === 1 ? (read[0] as JsonSchema) : { anyOf: read };
}

/** The `{ items, ended, … }` schema of a streamed answer (model/responses.ts's sequenceOutput). */
const isStreamRead = (schema: JsonSchema): boolean =>
  property(schema, 'items')?.type === 'array' && property(schema, 'ended') !== undefined;

/** One printing of a type: `root` holds the `$defs` references point into. */
interface Printing {
  root: JsonSchema;
  /** Objects nested deeper than this print as `object`. */
  nesting: number;
  budget: number;
  /** When the deepest level does not fit whole: what its objects may still add, first come first served. */
  slack?: number;
  /** Whether an object was left as `object`: a deeper printing would show more. */
  cut: boolean;
}

/** Thrown when a printing outgrows its budget. */
const OVER_BUDGET = Symbol('over budget');

/**
 * The type of `schema`, nested as deep as fits `budget`: the size cuts it, not the wrappers
 * (allOf, anyOf, oneOf, nullable, $ref) it is made of. Each level is printed whole while it
 * fits; the first that does not shows its objects in order while they fit. One level always prints.
 */
function printed(schema: JsonSchema, root: JsonSchema, budget: number): string {
  const shallowest: Printing = { root, nesting: 1, budget: Infinity, cut: false };
  let best = typeOf(schema, shallowest, 1, []);
  let more = shallowest.cut;
  for (let nesting = 2; more && nesting <= MAX_NESTING; nesting++) {
    const deeper: Printing = { root, nesting, budget, cut: false };
    try {
      best = typeOf(schema, deeper, 1, []);
    } catch (error) {
      if (error !== OVER_BUDGET) throw error;
      return typeOf(schema, { root, nesting, budget: Infinity, slack: budget - best.length, cut: false }, 1, []);
    }
    more = deeper.cut;
  }
  return best;
}

/** `text`, unless it outgrows the printing's budget. */
function fit(p: Printing, text: string): string {
  if (text.length > p.budget) throw OVER_BUDGET;
  return text;
}

/**
 * The TypeScript type of `schema` at object `level`; `hops`: the references followed since the
 * last object, so that a loop of references without an object between them ends.
 */
function typeOf(schema: JsonSchema | boolean | undefined, p: Printing, level: number, hops: readonly string[]): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') {
    if (hops.includes(s.$ref)) return 'unknown';
    return typeOf(resolve(p.root, s.$ref), p, level, [...hops, s.$ref]);
  }
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return enumType(p, s.enum);
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key]))
      return union(
        p,
        (s[key] as JsonSchema[]).map((member) => typeOf(member, p, level, hops)),
      );
  }
  if (Array.isArray(s.allOf)) return allOfType(s, p, level, hops);
  const given = typeList(s);
  const types = given.length > 0 ? given : inferred(s);
  return union(
    p,
    types.map((type) => namedType(type, s, p, level, hops)),
  );
}

function inferred(s: Record<string, unknown>): string[] {
  if (s.properties !== undefined || s.additionalProperties !== undefined) return ['object'];
  if (s.items !== undefined) return ['array'];
  return [];
}

function namedType(type: string, s: Record<string, unknown>, p: Printing, level: number, hops: readonly string[]): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      // `X | null[]` would read as `X | (null[])`: anything but a name goes in Array<…>.
      const item = typeOf(s.items as JsonSchema | undefined, p, level, hops);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(s, p, level);
    default:
      return 'unknown';
  }
}

function objectType(s: Record<string, unknown>, p: Printing, level: number): string {
  const properties = Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {});
  const more = properties.length > MAX_PROPERTIES || (s.additionalProperties !== undefined && s.additionalProperties !== false);
  if (properties.length === 0 && !more) return 'object';
  if (level > p.nesting) return cut(p);
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const members: string[] = [];
  let length = 0;
  for (const [name, schema] of properties.slice(0, MAX_PROPERTIES)) {
    const member = `${memberName(name)}${required.has(name) ? '' : '?'}: ${typeOf(schema, p, level + 1, [])}`;
    length += member.length + 2;
    if (length > p.budget) throw OVER_BUDGET;
    members.push(member);
  }
  if (more) members.push('[key: string]: unknown');
  const text = fit(p, `{ ${members.join('; ')} }`);
  if (level < p.nesting || p.slack === undefined) return text;
  // The deepest level, partly: this object shows if what it adds to `object` still fits.
  const added = text.length - 'object'.length;
  if (added > p.slack) return cut(p);
  p.slack -= added;
  return text;
}

/** An object left as `object`. */
function cut(p: Printing): string {
  p.cut = true;
  return 'object';
}

/**
 * allOf: the one object its parts add up to when each part is an object's properties (a base
 * and its extension, as specs use it); else the parts' intersection, each union in brackets
 * (`A | null & B` reads as `A | (null & B)`).
 */
function allOfType(s: Record<string, unknown>, p: Printing, level: number, hops: readonly string[]): string {
  const parts = objectParts(s, p.root, hops, []);
  if (parts !== undefined) return mergedObjectType(parts, p, level);
  const { allOf, ...own } = s;
  const members = [...(TYPE_KEYWORDS.some((k) => k in own) ? [own] : []), ...(allOf as JsonSchema[])]
    .map((member) => typeOf(member, p, level, hops))
    .filter((type) => type !== 'unknown');
  const distinct = [...new Set(members)];
  if (distinct.length <= 1) return distinct[0] ?? 'unknown';
  return fit(p, distinct.map((type) => (type.includes('|') ? `(${type})` : type)).join(' & '));
}

/** The plain object schemas `s` is the sum of (itself, its allOf parts, theirs…), or undefined if one is something else. */
function objectParts(
  s: Record<string, unknown>,
  root: JsonSchema,
  hops: readonly string[],
  parts: Record<string, unknown>[],
): Record<string, unknown>[] | undefined {
  if (typeof s.$ref === 'string') {
    const target = hops.includes(s.$ref) ? undefined : resolve(root, s.$ref);
    return isSchemaObject(target) ? objectParts(target, root, [...hops, s.$ref], parts) : undefined;
  }
  if (NOT_PLAIN.some((k) => k in s) || typeList(s).some((type) => type !== 'object' && type !== 'null')) return undefined;
  parts.push(s);
  const allOf = Array.isArray(s.allOf) ? (s.allOf as unknown[]) : [];
  for (const part of allOf) if (!isSchemaObject(part) || objectParts(part, root, hops, parts) === undefined) return undefined;
  return parts;
}

/** The object of several parts: their properties, required ones, and null if every typed part allows it. */
function mergedObjectType(parts: Record<string, unknown>[], p: Printing, level: number): string {
  const typed = parts.filter((part) => part.type !== undefined);
  const nullable = typed.length > 0 && typed.every((part) => typeList(part).includes('null'));
  const merged = {
    // fromEntries defines each name as an own property, `__proto__` included.
    properties: Object.fromEntries(parts.flatMap((part) => Object.entries((part.properties as Record<string, JsonSchema>) ?? {}))),
    required: parts.flatMap((part) => (Array.isArray(part.required) ? (part.required as string[]) : [])),
    additionalProperties: parts.find((part) => part.additionalProperties !== undefined)?.additionalProperties,
  };
  const object = objectType(merged, p, level);
  return nullable ? union(p, [object, 'null']) : object;
}

function typeList(s: Record<string, unknown>): string[] {
  return Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function enumType(p: Printing, values: unknown[]): string {
  if (values.length > MAX_ENUM) return union(p, [...new Set(values.map((v) => (v === null ? 'null' : typeof v)))]);
  return union(p, values.map(literal));
}

function literal(value: unknown): string {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? JSON.stringify(value) : 'unknown';
}

/**
 * Members that are intersections need no brackets here: `&` binds tighter than `|`. A member's
 * own trailing `| null` (a nullable object among others) is said once, at the end.
 */
function union(p: Printing, members: string[]): string {
  const nullable = members.some((m) => m === 'null' || m.endsWith(NULLABLE));
  const distinct = [...new Set(members.map((m) => (m.endsWith(NULLABLE) ? m.slice(0, -NULLABLE.length) : m)))].filter(
    (m) => m !== '' && m !== 'null',
  );
  if (distinct.includes('unknown') || (distinct.length === 0 && !nullable)) return 'unknown';
  return fit(p, [...distinct, ...(nullable ? ['null'] : [])].join(' | '));
}

/** A local reference (`#/$defs/Name`, `#/definitions/Name`); anything else is unknown. */
function resolve(root: JsonSchema, ref: string): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = (root as Record<string, Record<string, JsonSchema> | undefined>)[match[1] as string];
  return defs?.[decodeURIComponent((match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~'))];
}
