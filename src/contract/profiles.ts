// What tools/list shows of each tool, adapted to what the client accepts (--client-profile).
// tools.json keeps every schema whole, and arguments are always checked against the whole
// schema (checks.ts); a profile only changes the listing:
//   portable       compact, and no construct some client rejects: shared schemas inlined a few
//                  levels deep (stubs below), single `type`s, no untyped or boolean schemas
//                  (what `inspector --cli --strict` accepts without a warning)
//   openai-strict  OpenAI's strict function calling: every property required (optional ones
//                  nullable), `additionalProperties: false`, its keyword subset
//   gemini         Gemini's function declarations: an OpenAPI 3.0 Schema subset
//   full           the schemas as generated, with `$defs` (large ones listed in part)
// Compact profiles cut descriptions to their first paragraph (≤ 300 characters) and list an
// outputSchema only where it is small (portable) or never (openai-strict, gemini).
// Where a profile cannot express a value (a free-form object under openai-strict), it asks
// for JSON text; the call reads such text back (checks.ts, repairArguments).

import { stubSchema, type JsonSchema, type ToolSpec, type ToolTable } from './table.js';
import { subschemaKeywords, valueKeywords } from './schema-keywords.js';

export const CLIENT_PROFILES = ['portable', 'openai-strict', 'gemini', 'full'] as const;
export type ClientProfile = (typeof CLIENT_PROFILES)[number];

/** Longest description listed by the compact profiles. */
const DESCRIPTION_CHARS = 300;
/** Most `$ref` hops inlined into one listed schema, and the bytes of shared schemas that may take. */
const INLINE_HOPS = 3;
const INLINE_BYTES = 8 * 1024;
/** An outputSchema is listed (portable) only when this small once inlined: it documents, it does not instruct. */
const OUTPUT_BYTES = 1024;

/**
 * Whether a profile lists a tool's outputSchema: a call's answer is held to the schema only
 * where it was advertised, and the call decides so from this, without listing the tool.
 */
export const listsOutputSchema = (profile: ClientProfile): boolean => profile === 'portable' || profile === 'full';

/** A tool as tools/list shows it (the SDK's Tool, without depending on its types here). */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: object;
  /** `taskSupport: optional` on a tool that may run as a task, when the server offers tasks. */
  execution?: { taskSupport?: string };
}

export interface Lister {
  readonly profile: ClientProfile;
  /** The tool as listed (memoised). */
  tool(tool: ToolSpec): ListedTool;
  /** A hand-written tool (meta-tools) adapted to the profile. */
  adapt(tool: ListedTool): ListedTool;
}

/** The first paragraph, on one line, cut at a word to at most `max` characters. */
export function firstParagraph(text: string, max = DESCRIPTION_CHARS): string {
  const end = text.search(/\n[ \t]*\n/);
  const paragraph = (end === -1 ? text : text.slice(0, end)).replace(/\s+/g, ' ').trim();
  if (paragraph.length <= max) return paragraph;
  const cut = paragraph.slice(0, max - 1);
  const atWord = cut.replace(/\s+\S*$/, '');
  return `${atWord.length > max / 2 ? atWord : cut}…`;
}

/** The last paragraph mcp-gen adds to a paginated tool's description (src/model/pagination.ts). */
const PAGING = /\n\n(Paginated: [^\n]*)$/;

/**
 * A description as compact profiles list it: its first paragraph, and the sentence on paging
 * when there is one (an agent cannot fetch the rest of a list without it).
 */
export function compactDescription(text: string): string {
  const paging = PAGING.exec(text);
  if (paging?.[1] === undefined) return firstParagraph(text);
  const sentence = paging[1];
  const head = firstParagraph(text.slice(0, paging.index), DESCRIPTION_CHARS - sentence.length - 1);
  return head ? `${head} ${sentence}` : sentence;
}

/**
 * The listing of a table under a profile. `full` uses the generated listing (`fullInput` /
 * `fullOutput`: the schemas with their `$defs`, large ones in part).
 */
export function createLister(
  table: ToolTable,
  profile: ClientProfile,
  full: { input(tool: ToolSpec): JsonSchema; output(tool: ToolSpec): JsonSchema | undefined },
  /**
   * With it, each distinct schema is listed once, for tools whose schemas have the same JSON
   * text (Kubernetes repeats one parameter set in hundreds of tools); their listed tools then
   * share the listed schema. For a caller that measures every tool once: the memo holds the texts.
   * The shared schemas' sizes are read from it too.
   */
  textOf?: (schema: JsonSchema) => string,
): Lister {
  const sizes = new Map<string, number>();
  // with textOf, the texts the caller made of the defs already (model/listing.ts measures them too)
  const text = textOf ?? ((schema: JsonSchema) => JSON.stringify(schema));
  const defSize = (key: string) => sizes.get(key) ?? (sizes.set(key, text(table.defs[key] ?? {}).length), sizes.get(key) as number);
  const cache = new Map<string, ListedTool>();
  const base = (t: ToolSpec): ListedTool => ({
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: t.description,
    inputSchema: t.inputSchema,
    annotations: t.annotations,
  });

  const adapt = (tool: ListedTool): ListedTool => {
    if (profile === 'full') return tool;
    const { outputSchema, ...rest } = tool;
    const listed: ListedTool = {
      ...rest,
      description: compactDescription(tool.description),
      inputSchema: toProfile(tool.inputSchema, profile, true),
    };
    if (outputSchema && listsOutputSchema(profile))
      listed.outputSchema = shallowWithin(toProfile(outputSchema, profile, true), OUTPUT_BYTES);
    return listed;
  };

  // With its text at hand, a schema that names no shared schema is not expanded: expanding it
  // would copy it as it is, and the profile copies it anyway (Stripe's inputs name none).
  const expanded = (schema: JsonSchema, budget: number) =>
    textOf && !textOf(schema).includes(DEFS_REF_TEXT) ? schema : expandWithin(schema, table.defs, defSize, budget);
  // adapt() of the tool with its schemas expanded, one schema at a time
  const listedInput = onceEach(textOf, (schema: JsonSchema) => toProfile(expanded(schema, INLINE_BYTES), profile as CompactProfile, true));
  const listedOutput = onceEach(textOf, (schema: JsonSchema) =>
    shallowWithin(toProfile(expanded(schema, OUTPUT_BYTES), profile as CompactProfile, true), OUTPUT_BYTES),
  );
  const list = (t: ToolSpec): ListedTool => {
    if (profile === 'full') {
      const output = t.output ? full.output(t) : undefined;
      return { ...base(t), inputSchema: full.input(t), ...(output ? { outputSchema: output } : {}) };
    }
    const listed: ListedTool = { ...base(t), description: compactDescription(t.description), inputSchema: listedInput(t.inputSchema) };
    if (listsOutputSchema(profile) && t.output) listed.outputSchema = listedOutput(t.output.schema);
    return listed;
  };

  return {
    profile,
    tool: (t) => cache.get(t.name) ?? (cache.set(t.name, list(t)), cache.get(t.name) as ListedTool),
    adapt,
  };
}

type CompactProfile = Exclude<ClientProfile, 'full'>;

/** `make`, or with `textOf` the same answered for schemas of the same text (made once each). */
function onceEach(
  textOf: ((schema: JsonSchema) => string) | undefined,
  make: (schema: JsonSchema) => JsonSchema,
): (schema: JsonSchema) => JsonSchema {
  if (!textOf) return make;
  const made = new Map<string, JsonSchema>();
  return (schema) => {
    const key = textOf(schema);
    let found = made.get(key);
    if (!found) made.set(key, (found = make(schema)));
    return found;
  };
}

// ---------------------------------------------------------------------------------------
// Walking schemas: only subschema positions, never values (an enum of objects is data).

const MAP_KEYS: readonly string[] = subschemaKeywords((k) => k.shape === 'map');
const ONE_KEYS: readonly string[] = subschemaKeywords((k) => k.shape === 'one');
const LIST_KEYS: readonly string[] = subschemaKeywords((k) => k.shape === 'list');
/** Where `true`/`false` is a setting rather than a schema standing for "anything"/"nothing". */
const BOOLEAN_SETTINGS = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The shape of each subschema keyword's value (`items` may also be a draft-04 list). */
const SHAPE = new Map<string, 'map' | 'list' | 'one'>([
  ...MAP_KEYS.map((k) => [k, 'map'] as const),
  ...LIST_KEYS.map((k) => [k, 'list'] as const),
  ...ONE_KEYS.map((k) => [k, 'one'] as const),
]);

/**
 * A copy of `node` with each value first passed through `keep(value, key)` (`undefined` drops
 * it), then each subschema replaced by `map(child, keyword)` (`undefined` drops it).
 */
function mapChildren(
  node: JsonSchema,
  map: (child: unknown, keyword: string) => unknown,
  keep: (value: unknown, key: string) => unknown = (value) => value,
): JsonSchema {
  const out: JsonSchema = {};
  for (const key in node) {
    const value = keep(node[key], key);
    if (value === undefined) continue;
    const shape = SHAPE.get(key);
    if (shape === 'map' && isSchema(value)) {
      const mapped: JsonSchema = {};
      for (const name in value) {
        const m = map(value[name], key);
        if (m !== undefined) mapped[name] = m;
      }
      out[key] = mapped;
    } else if ((shape === 'list' || key === 'items') && Array.isArray(value)) {
      out[key] = value.map((child) => map(child, key)).filter((m) => m !== undefined);
    } else if (shape === 'one' && (isSchema(value) || typeof value === 'boolean')) {
      const m = map(value, key);
      if (m !== undefined) out[key] = m;
    } else out[key] = value;
  }
  return out;
}

/** How a reference expand() replaces starts in a schema's JSON text. */
const DEFS_REF_TEXT = '"$ref":"#/$defs/';

/** Thrown to give up an expansion over budget; not an Error, so that no stack trace is captured for it (thousands of throws per large spec). */
class OverBudget {}

/**
 * The schema with its `#/$defs/…` references replaced by what they name, up to `hops` deep
 * and `budget` bytes of shared schemas; deeper (or recursive) ones become stubs.
 */
function expand(
  schema: JsonSchema,
  defs: Record<string, JsonSchema>,
  defSize: (key: string) => number,
  hops: number,
  budget: number,
): JsonSchema {
  let spent = 0;
  const visit = (node: unknown, depth: number, stack: string[]): unknown => {
    if (!isSchema(node)) return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/')) {
      const key = node.$ref.slice('#/$defs/'.length);
      const def = defs[key];
      let target: JsonSchema;
      if (def === undefined || depth >= hops || stack.includes(key)) target = stubSchema(def);
      else {
        spent += defSize(key);
        if (spent > budget) throw new OverBudget();
        target = visit(def, depth + 1, [...stack, key]) as JsonSchema;
      }
      // most references stand alone: only one beside other keywords is copied without its $ref
      if (Object.keys(node).length === 1) return target;
      const { $ref: _ref, ...siblings } = node;
      const rest = visit(siblings, depth, stack) as JsonSchema;
      // Annotations beside a $ref describe this use of it: they win. Assertions add to it:
      // side by side when they cannot interact with the target's, else through allOf.
      const both = sharedTypes(target.type, rest.type);
      const mergeable = Object.entries(rest).every(([k, v]) =>
        k === 'type'
          ? both !== undefined
          : ANNOTATIONS.has(k) || !(k in target)
            ? !INTERACTING.has(k) || !Object.keys(target).some((t) => INTERACTING.has(t))
            : JSON.stringify(target[k]) === JSON.stringify(v),
      );
      return mergeable ? { ...target, ...rest, ...(both !== undefined ? { type: both } : {}) } : { allOf: [target, rest] };
    }
    return mapChildren(node, (child) => visit(child, depth, stack));
  };
  return visit(schema, 0, []) as JsonSchema;
}

const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
/** Keywords whose meaning depends on their neighbours: never merged side by side. */
const INTERACTING = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'if',
  'then',
  'else',
  'contains',
  'minContains',
  'maxContains',
]);

/** The types both `type` keywords allow (either may be absent: no limit); undefined when none. */
function sharedTypes(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const list = (t: unknown) => (Array.isArray(t) ? t : [t]);
  const shared = list(a).filter((t) => list(b).includes(t) || (t === 'integer' && list(b).includes('number')));
  const more = list(b).filter((t) => t === 'integer' && list(a).includes('number') && !shared.includes('integer'));
  const all = [...shared, ...more];
  return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
}

/** expand() at the most hops that fit the budget (0 hops always fits: every reference a stub). */
function expandWithin(schema: JsonSchema, defs: Record<string, JsonSchema>, defSize: (key: string) => number, budget: number): JsonSchema {
  for (let hops = INLINE_HOPS; hops > 0; hops--) {
    try {
      return expand(schema, defs, defSize, hops, budget);
    } catch (error) {
      if (!(error instanceof OverBudget)) throw error;
    }
  }
  return expand(schema, defs, defSize, 0, budget);
}

// ---------------------------------------------------------------------------------------
// Profiles, applied to a schema without references.

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
/**
 * Keywords that make a schema constrain something (what inspector --strict looks for): every
 * one but annotations and definitions; `if` counts only with `then` or `else` (see portable).
 */
const CONSTRAINING = new Set<string>([
  'type',
  ...valueKeywords((k) => k.role !== 'annotation'),
  ...subschemaKeywords((k) => !k.definitions).filter((k) => k !== 'if' && k !== 'then' && k !== 'else'),
]);
/** Listing noise: never helps a model choose or fill a tool. */
const DROPPED = new Set([
  'examples',
  'example',
  '$schema',
  '$id',
  '$comment',
  '$anchor',
  'readOnly',
  'writeOnly',
  'xml',
  'externalDocs',
  'discriminator',
]);

const typeList = (node: JsonSchema): string[] | undefined =>
  typeof node.type === 'string'
    ? [node.type]
    : Array.isArray(node.type)
      ? (node.type as unknown[]).filter((t): t is string => typeof t === 'string' && JSON_TYPES.includes(t))
      : undefined;

/** Descriptions cut, noise dropped, vendor keys dropped: what every compact profile starts from. */
function compact(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key in node) {
    const value = compactValue(node[key], key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A value as compact() keeps it: undefined when dropped. */
function compactValue(value: unknown, key: string): unknown {
  if (DROPPED.has(key) || key.startsWith('x-')) return undefined;
  return key === 'description' && typeof value === 'string' ? cutDescription(value) : value;
}

/** firstParagraph of a schema description, once per text: expanded shared schemas repeat theirs in every tool. */
const cutDescriptions = new Map<string, string>();
function cutDescription(text: string): string {
  let cut = cutDescriptions.get(text);
  if (cut === undefined) {
    if (cutDescriptions.size >= 50_000) cutDescriptions.clear(); // bounded: a server lists many tables' worth at most once
    cutDescriptions.set(text, (cut = firstParagraph(text)));
  }
  return cut;
}

/** `schema` (the whole listed input or output schema) as `profile` lists it. */
function toProfile(schema: JsonSchema, profile: CompactProfile, top: boolean): JsonSchema {
  if (profile === 'portable') return portable(schema, undefined) as JsonSchema;
  const { $defs: _defs, definitions: _definitions, ...rest } = schema;
  return profile === 'openai-strict' ? strictSchema(rest, top ? 0 : 1, { enums: 0 }) : geminiSchema(rest, top);
}

// portable ---------------------------------------------------------------------------------

/**
 * An outputSchema documents the answer and costs context on every turn: over `budget` bytes
 * it is listed shallow (its properties' types only), and over four times that as a bare
 * object. Either still accepts every answer the whole one does, and structuredContent keeps
 * its shape, so clients that check it against the listed schema still pass it.
 */
function shallowWithin(schema: JsonSchema, budget: number): JsonSchema {
  const top: JsonSchema = { ...schema, type: 'object' };
  // a composition at the top is what strict clients reject first: such a schema goes shallow
  const composed = ['anyOf', 'oneOf', 'allOf', 'not', 'if'].some((k) => k in top);
  if (!composed && JSON.stringify(top).length <= budget) return top;
  const properties = isSchema(schema.properties) ? schema.properties : undefined;
  const shallow: JsonSchema = { type: 'object' };
  if (properties) shallow.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, typeOnly(v)]));
  return JSON.stringify(shallow).length <= budget * 4 ? shallow : { type: 'object' };
}

/** A portable schema reduced to what type it has: `{type}`, an anyOf of `{type}`s, or any value. */
function typeOnly(schema: unknown): JsonSchema {
  if (!isSchema(schema)) return ANY_PORTABLE();
  if (typeof schema.type === 'string') return { type: schema.type };
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  if (branches.length && branches.every((b) => isSchema(b) && typeof b.type === 'string' && Object.keys(b).length === 1))
    return { anyOf: branches };
  return ANY_PORTABLE();
}

const ANY_PORTABLE = (): JsonSchema => ({ anyOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })) });

function portable(node: unknown, keyword: string | undefined): unknown {
  if (typeof node === 'boolean') {
    if (keyword !== undefined && BOOLEAN_SETTINGS.has(keyword)) return node;
    return node ? ANY_PORTABLE() : { not: {} };
  }
  if (!isSchema(node)) return node;
  return portableNode(mapChildren(node, portable, portableValue), keyword);
}

/** A value as portable() keeps it: as compact() does, and $defs dropped (they are inlined by then). */
const portableValue = (value: unknown, key: string): unknown =>
  key === '$defs' || key === 'definitions' ? undefined : compactValue(value, key);

/**
 * A schema whose values portable() has made, its type and its constraint made portable: apart
 * from portable(), which the compiler then optimises as a small function (Stripe: 2% fewer
 * instructions in the listing).
 */
function portableNode(mapped: JsonSchema, keyword: string | undefined): JsonSchema {
  let out = mapped;
  if (Array.isArray(out.type)) {
    const types = typeList(out) as string[];
    const { type: _type, ...rest } = out;
    out = rest;
    if (types.length === 1) out.type = types[0];
    else if (types.length > 1) {
      // type: [a, b] is an anyOf of single types; an anyOf already there must hold as well
      const branches = types.map((type) => ({ type }));
      if (Array.isArray(out.anyOf)) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: branches }];
      else out.anyOf = branches;
    }
  }
  if (!constrains(out) && keyword !== 'not') return { ...out, ...ANY_PORTABLE() };
  return out;
}

const constrains = (node: JsonSchema): boolean =>
  Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));

// shared by openai-strict and gemini ------------------------------------------------------

/** allOf folded into one schema (properties and required united), oneOf read as anyOf. */
function flatten(node: JsonSchema): JsonSchema {
  let out: JsonSchema = { ...node };
  if (Array.isArray(out.oneOf)) {
    const { oneOf, ...rest } = out;
    out = { ...rest, anyOf: [...(Array.isArray(rest.anyOf) ? rest.anyOf : []), ...(oneOf as unknown[])] };
  }
  if (Array.isArray(out.allOf)) {
    const { allOf, ...rest } = out;
    out = rest;
    for (const part of allOf as unknown[]) {
      if (!isSchema(part)) continue;
      const branch = flatten(compact(part));
      if (isSchema(branch.properties)) out.properties = { ...branch.properties, ...(isSchema(out.properties) ? out.properties : {}) };
      if (Array.isArray(branch.required))
        out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...branch.required])];
      for (const [key, value] of Object.entries(branch)) if (!(key in out) && key !== 'properties' && key !== 'required') out[key] = value;
    }
  }
  return out;
}

/**
 * An object that must have one of several sets of properties (`oneOf: [{required: [id]},
 * {required: [owner, repo]}]`, GitHub's way) as one object schema per set, which profiles
 * without such branches can list; undefined for any other shape.
 */
function requiredVariants(node: JsonSchema, type: string | undefined): JsonSchema[] | undefined {
  if (!Array.isArray(node.anyOf) || !(type === 'object' || (type === undefined && isSchema(node.properties)))) return undefined;
  const branches = node.anyOf as unknown[];
  if (
    !branches.every(
      (b) =>
        isSchema(b) && Array.isArray(b.required) && Object.keys(b).every((k) => k === 'required' || k === 'description' || k === 'title'),
    )
  )
    return undefined;
  const { anyOf: _anyOf, description: _description, ...rest } = node;
  const base = Array.isArray(node.required) ? (node.required as string[]) : [];
  return branches.map((b) => ({ ...rest, type: 'object', required: [...new Set([...base, ...((b as JsonSchema).required as string[])])] }));
}

const hasTypeNull = (s: unknown) => isSchema(s) && (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')));

/** Free-form objects and maps cannot be listed by these profiles: the value goes as JSON text. */
const jsonText = (description: unknown, what: string): JsonSchema => ({
  type: 'string',
  description: `${typeof description === 'string' && description ? `${firstParagraph(description, DESCRIPTION_CHARS - 40)} ` : ''}(${what}, written as JSON text)`,
});

// openai-strict ----------------------------------------------------------------------------

const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const STRICT_KEYS: Record<string, string[]> = {
  string: ['pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  boolean: [],
  null: [],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
};
/** OpenAI's limits: 10 levels of objects, 1,000 enum values in all. */
const STRICT_DEPTH = 10;
const STRICT_ENUMS = 1000;
const ANY_STRICT = (): JsonSchema => ({ anyOf: ['string', 'number', 'boolean', 'null'].map((type) => ({ type })) });

function strictSchema(raw: unknown, level: number, budget: { enums: number }): JsonSchema {
  if (raw === false) return { type: 'null' };
  if (!isSchema(raw)) return ANY_STRICT();
  const node = flatten(compact(raw));
  const about = typeof node.description === 'string' && node.description ? { description: node.description } : {};
  const types = typeList(node);
  if (types && types.length > 1) {
    // one branch per type, each with the keywords that apply to it
    const { type: _type, ...rest } = node;
    const branches = types.map((type) => strictSchema({ ...rest, type, description: undefined }, level, budget));
    return { ...about, anyOf: branches };
  }
  const type = types?.[0];
  const variants = requiredVariants(node, type);
  if (variants) return { ...about, anyOf: variants.map((v) => strictSchema(v, level, budget)) };
  if (type === undefined) {
    if (Array.isArray(node.anyOf)) return { ...about, anyOf: (node.anyOf as unknown[]).map((b) => strictSchema(b, level, budget)) };
    if (node.const !== undefined) return { ...about, const: node.const };
    if (Array.isArray(node.enum) && budget.enums + node.enum.length <= STRICT_ENUMS) {
      budget.enums += node.enum.length;
      return { ...about, enum: node.enum };
    }
    if (isSchema(node.properties)) return strictSchema({ ...node, type: 'object' }, level, budget);
    return { ...about, ...ANY_STRICT() };
  }
  const out: JsonSchema = { type, ...about };
  if (node.const !== undefined) out.const = node.const;
  if (Array.isArray(node.enum)) {
    const values = node.enum.filter((v) => (v === null ? type === 'null' : typeof v === (type === 'integer' ? 'number' : type)));
    if (values.length && budget.enums + values.length <= STRICT_ENUMS) {
      budget.enums += values.length;
      out.enum = values;
    }
  }
  for (const key of STRICT_KEYS[type] ?? []) {
    const value = node[key];
    if (value === undefined) continue;
    if (key === 'format' && !STRICT_FORMATS.has(String(value))) continue;
    if (key === 'items' || key === 'properties' || key === 'required' || key === 'additionalProperties') continue;
    out[key] = value;
  }
  if (type === 'array') out.items = strictSchema(Array.isArray(node.items) ? node.items[0] : node.items, level, budget);
  if (type === 'object') {
    const properties = isSchema(node.properties) ? node.properties : {};
    const names = Object.keys(properties);
    if (level > 0 && (names.length === 0 || level >= STRICT_DEPTH))
      return jsonText(node.description, names.length ? 'an object' : 'a JSON object');
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const listed: JsonSchema = {};
    for (const name of names) {
      const property = properties[name];
      if (property === false) continue; // forbidden: not listed
      const schema = strictSchema(property, level + 1, budget);
      // Optional becomes "required, but null means absent": the executor drops such nulls.
      listed[name] = required.has(name) || acceptsNull(schema) ? schema : { anyOf: [schema, { type: 'null' }] };
    }
    out.properties = listed;
    out.required = Object.keys(listed);
    out.additionalProperties = false;
  }
  return out;
}

const acceptsNull = (schema: JsonSchema): boolean =>
  schema.type === 'null' || (Array.isArray(schema.anyOf) && schema.anyOf.some((b) => isSchema(b) && acceptsNull(b)));

// gemini -----------------------------------------------------------------------------------

const GEMINI_FORMATS: Record<string, string[]> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};
const GEMINI_KEYS: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  boolean: [],
  array: ['minItems', 'maxItems'],
  object: [],
};
const ANY_GEMINI = (): JsonSchema => ({ anyOf: ['string', 'number', 'boolean'].map((type) => ({ type })) });

function geminiSchema(raw: unknown, top: boolean): JsonSchema {
  if (!isSchema(raw)) return ANY_GEMINI();
  const node = flatten(compact(raw));
  const about = typeof node.description === 'string' && node.description ? { description: node.description } : {};
  let types = typeList(node) ?? [];
  let nullable = types.includes('null') || node.nullable === true;
  types = types.filter((t) => t !== 'null');
  if (types.length > 1) {
    const { type: _type, ...rest } = node;
    return {
      ...about,
      anyOf: types.map((type) => geminiSchema({ ...rest, type, description: undefined }, false)),
      ...(nullable ? { nullable: true } : {}),
    };
  }
  let type = types[0];
  const variants = requiredVariants(node, type);
  if (variants) return { ...about, anyOf: variants.map((v) => geminiSchema(v, false)), ...(nullable ? { nullable: true } : {}) };
  if (type === undefined) {
    if (Array.isArray(node.anyOf)) {
      const branches = (node.anyOf as unknown[]).filter((b) => !(isSchema(b) && b.type === 'null'));
      nullable ||= branches.length < node.anyOf.length;
      if (branches.length === 1) return { ...geminiSchema(branches[0], false), ...about, ...(nullable ? { nullable: true } : {}) };
      return { ...about, anyOf: branches.map((b) => geminiSchema(b, false)), ...(nullable ? { nullable: true } : {}) };
    }
    if (isSchema(node.properties)) type = 'object';
    else if (typeof node.const === 'string' || (Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string' || v === null)))
      type = 'string';
    else if (hasTypeNull(node)) type = 'string';
    else return { ...about, ...ANY_GEMINI() };
  }
  const out: JsonSchema = { type, ...about };
  if (nullable) out.nullable = true;
  if (type === 'string') {
    const values = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : [];
    const strings = values.filter((v): v is string => typeof v === 'string');
    if (strings.length) out.enum = strings;
  } else if (Array.isArray(node.enum) && node.enum.length <= 20) {
    // Gemini takes enums of strings only: other values are said in words
    out.description = firstParagraph(
      `${about.description ? `${firstParagraph(about.description, 150)} ` : ''}One of: ${node.enum.map((v) => JSON.stringify(v)).join(', ')}.`,
    );
  }
  if (typeof node.format === 'string' && GEMINI_FORMATS[type]?.includes(node.format)) out.format = node.format;
  for (const key of GEMINI_KEYS[type] ?? [])
    if (typeof node[key] === 'number' || (key === 'pattern' && typeof node[key] === 'string')) out[key] = node[key];
  if (type === 'array') out.items = geminiSchema(Array.isArray(node.items) ? node.items[0] : node.items, false);
  if (type === 'object') {
    const properties = isSchema(node.properties) ? node.properties : {};
    const names = Object.keys(properties).filter((n) => properties[n] !== false);
    if (!top && names.length === 0) return { ...jsonText(node.description, 'a JSON object'), ...(nullable ? { nullable: true } : {}) };
    out.properties = Object.fromEntries(names.map((n) => [n, geminiSchema(properties[n], false)]));
    const required = (Array.isArray(node.required) ? node.required : []).filter((n) => names.includes(n as string));
    if (required.length) out.required = required;
  }
  return out;
}
