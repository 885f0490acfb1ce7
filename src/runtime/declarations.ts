// Code mode's view of an operation: a TypeScript method declaration written from the tool's
// JSON Schemas (arguments and answer), as an agent writing a program against `api` reads it.
// Printed from data at run time, never evaluated; bounded in depth and length, so that a huge
// schema costs a few hundred bytes, not a page.

import type { JsonSchema, ToolSpec } from '../contract/table.js';

/** Nesting printed before a type is left as `object`/`unknown`: enough to call and filter. */
const MAX_DEPTH = 4;
/** Properties of one object printed; the rest are summed up as an index signature. */
const MAX_PROPERTIES = 25;
/** Enum members printed before `| …` (then the type is its base type). */
const MAX_ENUM = 12;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A method of `api`: its doc comment and signature. */
export function declarationOf(tool: ToolSpec, input: JsonSchema, output: JsonSchema | undefined, wrapped: boolean): string {
  const summary = firstParagraph(tool.title ?? tool.description);
  const access = tool.annotations.readOnlyHint === true ? 'read-only' : 'writes';
  const answer = output === undefined ? 'unknown' : typeOf(wrapped ? (property(output, 'result') ?? output) : output, output, 0);
  return [
    `/** ${comment(summary)} (${access}; ${tool.http.method} ${tool.http.path}) */`,
    `${memberName(tool.name)}(args: ${typeOf(input, input, 0)}): Promise<${answer}>;`,
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

function memberName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function property(schema: JsonSchema, name: string): JsonSchema | undefined {
  const properties = (schema as { properties?: Record<string, JsonSchema> }).properties;
  return properties?.[name];
}

/** The TypeScript type of `schema`; `root` holds the `$defs` its references point into. */
function typeOf(schema: JsonSchema | boolean | undefined, root: JsonSchema, depth: number): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  // A chain of references that loops, or a schema nested past reason.
  if (depth > MAX_DEPTH * 4) return 'unknown';
  const s = schema as Record<string, unknown>;
  // A reference is no level of its own, but a loop of them must end: a quarter of one.
  if (typeof s.$ref === 'string') return typeOf(resolve(root, s.$ref), root, depth + 0.25);
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return enumType(s.enum);
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key])) return union((s[key] as JsonSchema[]).map((member) => typeOf(member, root, depth + 1)));
  }
  if (Array.isArray(s.allOf)) return union([(s.allOf as JsonSchema[]).map((member) => typeOf(member, root, depth + 1)).join(' & ')]);
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : inferred(s);
  return union(types.map((type) => namedType(type, s, root, depth)));
}

function inferred(s: Record<string, unknown>): string[] {
  if (s.properties !== undefined || s.additionalProperties !== undefined) return ['object'];
  if (s.items !== undefined) return ['array'];
  return [];
}

function namedType(type: string, s: Record<string, unknown>, root: JsonSchema, depth: number): string {
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
      const item = depth >= MAX_DEPTH ? 'unknown' : typeOf(s.items as JsonSchema | undefined, root, depth + 1);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return depth >= MAX_DEPTH ? 'object' : objectType(s, root, depth);
    default:
      return 'unknown';
  }
}

function objectType(s: Record<string, unknown>, root: JsonSchema, depth: number): string {
  const properties = Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {});
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const members = properties
    .slice(0, MAX_PROPERTIES)
    .map(([name, schema]) => `${memberName(name)}${required.has(name) ? '' : '?'}: ${typeOf(schema, root, depth + 1)}`);
  const more = properties.length > MAX_PROPERTIES || (s.additionalProperties !== undefined && s.additionalProperties !== false);
  if (more) members.push('[key: string]: unknown');
  return members.length === 0 ? 'object' : `{ ${members.join('; ')} }`;
}

function enumType(values: unknown[]): string {
  if (values.length > MAX_ENUM) return union([...new Set(values.map((v) => (v === null ? 'null' : typeof v)))]);
  return union(values.map(literal));
}

function literal(value: unknown): string {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? JSON.stringify(value) : 'unknown';
}

function union(members: string[]): string {
  const distinct = [...new Set(members.filter((m) => m !== ''))];
  if (distinct.length === 0) return 'unknown';
  return distinct.includes('unknown') ? 'unknown' : distinct.join(' | ');
}

/** A local reference (`#/$defs/Name`, `#/definitions/Name`); anything else is unknown. */
function resolve(root: JsonSchema, ref: string): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = (root as Record<string, Record<string, JsonSchema> | undefined>)[match[1] as string];
  return defs?.[decodeURIComponent((match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~'))];
}
