// JSON Schema keywords, described once for both halves: the generator converts spec schemas by
// them (src/model/schema.ts) and the runtime lists schemas by them (profiles.ts). Each side
// derives the lists it needs from these tables, so that a keyword one side walks the other
// cannot forget. Shared by generator and runtime: imports nothing.

/**
 * What a keyword's value must be: `bound` is a number in JSON Schema 2020-12 but a boolean
 * beside `maximum`/`minimum` in draft-04 (OpenAPI 3.0, Swagger 2.0); `values` is a non-empty
 * array of any values; `strings` an array of strings; `map` an object.
 */
type KeywordValue = 'string' | 'number' | 'bound' | 'boolean' | 'strings' | 'values' | 'map' | 'any';

export interface ValueKeyword {
  value: KeywordValue;
  /**
   * `assertion`: limits what is valid; `annotation`: tells about the value, checks nothing;
   * `content`: says how a string's content is encoded (2020-12 validation §8).
   */
  role: 'assertion' | 'annotation' | 'content';
  /** Only in drafts before 2020-12: read from such schemas, never written. */
  legacy?: true;
}

/**
 * Keywords whose value is data, never a schema (`type` aside: every reader treats it first),
 * in the order the generator writes them.
 */
export const VALUE_KEYWORDS = {
  title: { value: 'string', role: 'annotation' },
  description: { value: 'string', role: 'annotation' },
  default: { value: 'any', role: 'annotation' },
  const: { value: 'any', role: 'assertion' },
  enum: { value: 'values', role: 'assertion' },
  // an annotation in 2020-12 unless a validator asserts it, as ajv-formats does here
  format: { value: 'string', role: 'assertion' },
  pattern: { value: 'string', role: 'assertion' },
  multipleOf: { value: 'number', role: 'assertion' },
  maximum: { value: 'number', role: 'assertion' },
  minimum: { value: 'number', role: 'assertion' },
  exclusiveMaximum: { value: 'bound', role: 'assertion' },
  exclusiveMinimum: { value: 'bound', role: 'assertion' },
  maxLength: { value: 'number', role: 'assertion' },
  minLength: { value: 'number', role: 'assertion' },
  maxItems: { value: 'number', role: 'assertion' },
  minItems: { value: 'number', role: 'assertion' },
  uniqueItems: { value: 'boolean', role: 'assertion' },
  maxProperties: { value: 'number', role: 'assertion' },
  minProperties: { value: 'number', role: 'assertion' },
  required: { value: 'strings', role: 'assertion' },
  deprecated: { value: 'boolean', role: 'annotation' },
  readOnly: { value: 'boolean', role: 'annotation' },
  writeOnly: { value: 'boolean', role: 'annotation' },
  contentMediaType: { value: 'string', role: 'content' },
  contentEncoding: { value: 'string', role: 'content' },
  maxContains: { value: 'number', role: 'assertion' },
  minContains: { value: 'number', role: 'assertion' },
  dependentRequired: { value: 'map', role: 'assertion' },
  // draft-07: a map to schemas or to lists of names (2020-12 splits it in two)
  dependencies: { value: 'map', role: 'assertion', legacy: true },
} as const satisfies Record<string, ValueKeyword>;

export type ValueKeywordName = keyof typeof VALUE_KEYWORDS;

export interface SubschemaKeyword {
  /** The value: one schema (or a boolean standing for one), a list of them, or a map from names to them. */
  shape: 'one' | 'list' | 'map';
  /** Only in drafts before 2020-12: read from such schemas, never written. */
  legacy?: true;
  /** Annotation only (2020-12 validation §8.5): no validator checks it. */
  annotation?: true;
  /** Holds schemas for `$ref`s to name, not a part of this schema's own meaning. */
  definitions?: true;
}

/**
 * Every keyword whose value holds subschemas (2020-12 core §10, validation §8.5, and the older
 * drafts' `additionalItems` and `definitions`), in the order the generator writes them. `items`
 * may also be a list in draft-04 (tuples; 2020-12 calls that `prefixItems`).
 */
export const SUBSCHEMA_KEYWORDS = {
  items: { shape: 'one' },
  not: { shape: 'one' },
  if: { shape: 'one' },
  then: { shape: 'one' },
  else: { shape: 'one' },
  contains: { shape: 'one' },
  propertyNames: { shape: 'one' },
  additionalProperties: { shape: 'one' },
  unevaluatedProperties: { shape: 'one' },
  unevaluatedItems: { shape: 'one' },
  additionalItems: { shape: 'one', legacy: true },
  contentSchema: { shape: 'one', annotation: true },
  allOf: { shape: 'list' },
  anyOf: { shape: 'list' },
  oneOf: { shape: 'list' },
  prefixItems: { shape: 'list' },
  properties: { shape: 'map' },
  patternProperties: { shape: 'map' },
  dependentSchemas: { shape: 'map' },
  $defs: { shape: 'map', definitions: true },
  definitions: { shape: 'map', definitions: true, legacy: true },
} as const satisfies Record<string, SubschemaKeyword>;

export type SubschemaKeywordName = keyof typeof SUBSCHEMA_KEYWORDS;

/** The subschema keywords that `keep` accepts, in table order. */
export function subschemaKeywords(keep: (keyword: SubschemaKeyword) => boolean = () => true): SubschemaKeywordName[] {
  return (Object.entries(SUBSCHEMA_KEYWORDS) as [SubschemaKeywordName, SubschemaKeyword][])
    .filter(([, k]) => keep(k))
    .map(([name]) => name);
}

/** The value keywords that `keep` accepts, in table order. */
export function valueKeywords(keep: (keyword: ValueKeyword) => boolean = () => true): ValueKeywordName[] {
  return (Object.entries(VALUE_KEYWORDS) as [ValueKeywordName, ValueKeyword][]).filter(([, k]) => keep(k)).map(([name]) => name);
}
