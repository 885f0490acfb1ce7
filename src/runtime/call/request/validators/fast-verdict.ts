// A fast verdict for the interpreted validator (interpreted.ts): whether a value fits a prepared
// schema, from closures built once per schema node (never code from strings). cfworker walks the
// schema as data and builds location strings and error lists at every node, even for a value
// that fits: ~100 µs of a Petstore call's CPU, milliseconds for a large answer.
//
// The rule: the verdict says "valid" only when cfworker says so too. It covers the keywords
// generated tables use; a schema that reaches any other keyword cfworker checks gets no fast
// verdict (fastVerdict returns undefined), and a value it finds invalid goes to cfworker, whose
// errors are the ones reported. Each keyword copies cfworker's semantics (validate.ts of
// @cfworker/json-schema 4.1.6, draft 2020-12): its deep equality and string length are its own
// functions, its multipleOf is copied, and formats are its format table's checks.
// For JSON data (what the checks see: parsed arguments and answers) the verdicts are equal; a
// value holding undefined, a function or a bigint where the verdict looks is "not valid" here,
// so cfworker decides it (it throws, and interpreted.ts reports that).

import type { JsonSchema } from '../../../../contract/table.js';
import { subschemaKeywords, valueKeywords } from '../../../../contract/schema-keywords.js';

/** Whether a value fits: true only when cfworker would say so. */
export type Verdict = (value: unknown) => boolean;

/** What the verdict borrows from cfworker, so that equality and length mean what they mean there. */
export interface CfworkerParts {
  deepCompareStrict(a: unknown, b: unknown): boolean;
  ucs2length(text: string): number;
  /** The format table cfworker's validate() reads (ajv-formats' checks and the spec patterns). */
  formats: Record<string, ((value: string) => boolean) | undefined>;
}

const isNumber = (value: unknown) => typeof value === 'number';
const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
const isMap = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The keywords the verdict checks, with the shape it expects of each one's value (a schema with
 * another shape gets no fast verdict). const, uniqueItems, not and additionalProperties are
 * checked whatever their value; `$ref` by refCheck.
 */
const COVERED = new Map<string, (value: unknown) => boolean>([
  ...['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].map((key) => [key, isNumber] as const),
  ...['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'].map((key) => [key, isNumber] as const),
  ['type', (value: unknown) => typeof value === 'string' || isStrings(value)],
  ['required', isStrings],
  ['format', (value: unknown) => typeof value === 'string'],
  ['items', (value: unknown) => !Array.isArray(value)],
  ['properties', isMap],
  ...['enum', 'allOf', 'anyOf', 'oneOf'].map((key) => [key, Array.isArray] as const),
  ...['const', 'uniqueItems', 'not', 'additionalProperties'].map((key) => [key, () => true] as const),
]);

/**
 * The keywords cfworker checks that the verdict does not: every assertion and every subschema
 * keyword of the shared tables (contract/schema-keywords.ts) it does not cover, so that a keyword
 * added there is refused here until it is covered, and the core keywords that resolve by scope.
 * A schema reaching one gets no fast verdict; the rest (annotations, x-*, …) check nothing.
 */
const UNCOVERED = new Set(
  [
    ...valueKeywords((keyword) => keyword.role === 'assertion'),
    ...subschemaKeywords((keyword) => !keyword.annotation && !keyword.definitions),
    '$recursiveRef',
    '$recursiveAnchor',
    '$dynamicRef',
    '$dynamicAnchor',
  ].filter((key) => !COVERED.has(key)),
);

/** A JSON value's type as cfworker names it. */
type Kind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

/** One keyword's check of a value of a known kind. */
type Check = (value: unknown, kind: Kind) => boolean;

class NoFastVerdict extends Error {}

/**
 * The verdict of `prepared` (interpreted.ts's rewritten schema), with `$ref`s resolved through
 * cfworker's `lookup`, or undefined when the schema reaches a keyword the verdict does not cover.
 */
export function fastVerdict(prepared: unknown, lookup: Record<string, unknown>, cfworker: CfworkerParts): Verdict | undefined {
  const built = new Map<object, Verdict>();
  const verdictOf = (schema: unknown): Verdict => {
    if (schema === true) return () => true;
    if (schema === false) return () => false;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new NoFastVerdict();
    const known = built.get(schema);
    if (known) return known;
    // a schema that reaches itself (through $ref) meets this forwarder while it is being built
    const slot: { verdict?: Verdict } = {};
    built.set(schema, (value) => (slot.verdict as Verdict)(value));
    const verdict = nodeVerdict(schema as JsonSchema, { verdictOf, lookup, cfworker });
    slot.verdict = verdict;
    built.set(schema, verdict);
    return verdict;
  };
  try {
    return verdictOf(prepared);
  } catch (error) {
    if (error instanceof NoFastVerdict) return undefined;
    throw error;
  }
}

interface Build {
  verdictOf(schema: unknown): Verdict;
  lookup: Record<string, unknown>;
  cfworker: CfworkerParts;
}

/** One schema object's verdict: the value's kind, then each of its keywords' checks. */
function nodeVerdict(schema: JsonSchema, build: Build): Verdict {
  refuseUnsupported(schema);
  const checks = [
    ...refCheck(schema, build),
    ...typeCheck(schema.type),
    ...equalityChecks(schema, build.cfworker.deepCompareStrict),
    ...combinationChecks(schema, build.verdictOf),
    ...objectChecks(schema, build.verdictOf),
    ...arrayChecks(schema, build),
    ...numberChecks(schema),
    ...stringChecks(schema, build.cfworker),
  ];
  return (value) => {
    const kind = kindOf(value);
    if (kind === undefined) return false;
    for (const check of checks) if (!check(value, kind)) return false;
    return true;
  };
}

/** Throws NoFastVerdict for a keyword the verdict does not cover, or a keyword value of a shape it does not expect. */
function refuseUnsupported(schema: JsonSchema): void {
  for (const key in schema) {
    if (UNCOVERED.has(key)) throw new NoFastVerdict();
    const expected = COVERED.get(key);
    if (expected && !expected(schema[key])) throw new NoFastVerdict();
  }
}

/** The value's kind; undefined for what JSON has not (undefined, a function, a bigint: cfworker throws on it). */
function kindOf(value: unknown): Kind | undefined {
  switch (typeof value) {
    case 'boolean':
    case 'number':
    case 'string':
      return typeof value as Kind;
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

/** `$ref`, to the entry cfworker's lookup resolves (dereference set `__absolute_ref__`); its siblings apply too (2020-12). */
function refCheck(schema: JsonSchema, build: Build): Check[] {
  if (schema.$ref === undefined) return [];
  if (typeof schema.$ref !== 'string' || schema.$ref === '') throw new NoFastVerdict();
  const target = build.lookup[(schema as { __absolute_ref__?: string }).__absolute_ref__ || schema.$ref];
  if (target === undefined) throw new NoFastVerdict();
  return [build.verdictOf(target)];
}

/** `type`: `integer` is a number with no fraction (cfworker lets Infinity pass as one, unless in a list of types). */
function typeCheck(type: unknown): Check[] {
  if (type === undefined) return [];
  if (Array.isArray(type)) {
    const types = type as string[];
    const integer = types.includes('integer');
    return [(value, kind) => types.includes(kind) || (integer && kind === 'number' && (value as number) % 1 === 0 && value === value)];
  }
  if (type === 'integer') return [(value, kind) => kind === 'number' && !((value as number) % 1) && value === value];
  return [(_value, kind) => kind === type];
}

/** `const` and `enum`: deep equality for objects and arrays, `===` for the rest, as cfworker. */
function equalityChecks(schema: JsonSchema, deepEqual: CfworkerParts['deepCompareStrict']): Check[] {
  const equals = (value: unknown, kind: Kind, expected: unknown) =>
    kind === 'object' || kind === 'array' ? deepEqual(value, expected) : value === expected;
  const checks: Check[] = [];
  const { const: constant, enum: allowed } = schema;
  if (constant !== undefined) checks.push((value, kind) => equals(value, kind, constant));
  if (allowed !== undefined) checks.push((value, kind) => (allowed as unknown[]).some((expected) => equals(value, kind, expected)));
  return checks;
}

/** `not`, `anyOf`, `allOf` and `oneOf`: their subschemas' verdicts on the same value. */
function combinationChecks(schema: JsonSchema, verdictOf: Build['verdictOf']): Check[] {
  const checks: Check[] = [];
  const list = (key: string) => (schema[key] as unknown[]).map(verdictOf);
  if (schema.not !== undefined) {
    const not = verdictOf(schema.not);
    checks.push((value) => !not(value));
  }
  if (schema.anyOf !== undefined) {
    const anyOf = list('anyOf');
    checks.push((value) => anyOf.some((verdict) => verdict(value)));
  }
  if (schema.allOf !== undefined) {
    const allOf = list('allOf');
    checks.push((value) => allOf.every((verdict) => verdict(value)));
  }
  if (schema.oneOf !== undefined) {
    const oneOf = list('oneOf');
    checks.push((value) => exactlyOne(oneOf, value));
  }
  return checks;
}

function exactlyOne(verdicts: Verdict[], value: unknown): boolean {
  let matches = 0;
  for (const verdict of verdicts) if (verdict(value) && ++matches > 1) return false;
  return matches === 1;
}

/** The object keywords, on objects only. */
function objectChecks(schema: JsonSchema, verdictOf: Build['verdictOf']): Check[] {
  const checks: Check[] = [];
  const onObjects = (check: (value: Record<string, unknown>) => boolean): Check => {
    return (value, kind) => kind !== 'object' || check(value as Record<string, unknown>);
  };
  const { required, minProperties, maxProperties } = schema as Record<string, number | string[] | undefined>;
  if (required !== undefined) checks.push(onObjects((value) => (required as string[]).every((key) => Object.hasOwn(value, key))));
  if (minProperties !== undefined) checks.push(onObjects((value) => Object.keys(value).length >= (minProperties as number)));
  if (maxProperties !== undefined) checks.push(onObjects((value) => Object.keys(value).length <= (maxProperties as number)));
  const properties = Object.entries((schema.properties ?? {}) as Record<string, unknown>).map(
    ([name, part]) => [name, verdictOf(part)] as const,
  );
  if (properties.length > 0) checks.push(onObjects((value) => declaredPropertiesFit(value, properties)));
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
    const declared = new Set(properties.map(([name]) => name));
    const additional = verdictOf(schema.additionalProperties);
    checks.push(onObjects((value) => additionalPropertiesFit(value, declared, additional)));
  }
  return checks;
}

/** Each of the value's own properties that `properties` declares fits its schema. */
function declaredPropertiesFit(value: Record<string, unknown>, properties: (readonly [string, Verdict])[]): boolean {
  for (const [name, verdict] of properties) {
    const part = value[name];
    // undefined: absent, or an own undefined (not JSON: cfworker decides); a part that does not
    // fit counts only when it is the value's own (not an inherited `constructor`)
    if (part === undefined ? Object.hasOwn(value, name) : !verdict(part) && Object.hasOwn(value, name)) return false;
  }
  return true;
}

/**
 * Every property `properties` does not cover fits `additional`. As in cfworker: all enumerable
 * names (for...in), and a declared name covers only an own property.
 */
function additionalPropertiesFit(value: Record<string, unknown>, declared: Set<string>, additional: Verdict): boolean {
  for (const name in value) {
    if (declared.has(name) && Object.hasOwn(value, name)) continue;
    if (!additional(value[name])) return false;
  }
  return true;
}

/** The array keywords, on arrays only. */
function arrayChecks(schema: JsonSchema, build: Build): Check[] {
  const checks: Check[] = [];
  const onArrays = (check: (value: unknown[]) => boolean): Check => {
    return (value, kind) => kind !== 'array' || check(value as unknown[]);
  };
  const { minItems, maxItems } = schema as Record<string, number | undefined>;
  if (minItems !== undefined) checks.push(onArrays((value) => value.length >= minItems));
  if (maxItems !== undefined) checks.push(onArrays((value) => value.length <= maxItems));
  if (schema.items !== undefined && schema.items !== true) {
    const item = build.verdictOf(schema.items);
    checks.push(onArrays((value) => value.every((part) => item(part))));
  }
  if (schema.uniqueItems) checks.push(onArrays((value) => allDistinct(value, build.cfworker.deepCompareStrict)));
  return checks;
}

/** No two items equal: `===`, or deep equality between two objects or arrays (cfworker's uniqueItems). */
function allDistinct(items: unknown[], deepEqual: CfworkerParts['deepCompareStrict']): boolean {
  for (let j = 0; j < items.length; j++) {
    const a = items[j];
    const aIsObject = typeof a === 'object' && a !== null;
    for (let k = j + 1; k < items.length; k++) {
      const b = items[k];
      if (a === b || (aIsObject && typeof b === 'object' && b !== null && deepEqual(a, b))) return false;
    }
  }
  return true;
}

/** The number keywords, on numbers only; exclusiveMinimum and exclusiveMaximum are numbers (2020-12). */
function numberChecks(schema: JsonSchema): Check[] {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema as Record<string, number | undefined>;
  const checks: Check[] = [];
  const onNumbers = (check: (value: number) => boolean): Check => {
    return (value, kind) => kind !== 'number' || check(value as number);
  };
  if (minimum !== undefined) checks.push(onNumbers((value) => !(value < minimum)));
  if (maximum !== undefined) checks.push(onNumbers((value) => !(value > maximum)));
  if (exclusiveMinimum !== undefined) checks.push(onNumbers((value) => !(value <= exclusiveMinimum)));
  if (exclusiveMaximum !== undefined) checks.push(onNumbers((value) => !(value >= exclusiveMaximum)));
  if (multipleOf !== undefined) checks.push(onNumbers(multipleOfCheck(multipleOf)));
  return checks;
}

/**
 * cfworker's multipleOf: exact, on the decimal digits of both numbers. By 1 (the int32 and int64
 * formats' bounds) that is "finite with no fraction": the shortest decimal of a double with a
 * fraction has one, and every double from 2^53 on is an integer whose decimal has none.
 */
function multipleOfCheck(divisor: number): (value: number) => boolean {
  if (divisor === 1) return (value) => Number.isFinite(value) && value % 1 === 0;
  return (value) => isMultipleOf(value, divisor);
}

/** Copied from @cfworker/json-schema's validate.ts (not exported there). */
function isMultipleOf(instance: number, divisor: number): boolean {
  if (!Number.isFinite(instance) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [instanceCoefficient, instanceExponent] = decimalInteger(instance);
  const [divisorCoefficient, divisorExponent] = decimalInteger(divisor);
  const exponentDifference = instanceExponent - divisorExponent;
  if (exponentDifference >= 0) return (instanceCoefficient * 10n ** BigInt(exponentDifference)) % divisorCoefficient === 0n;
  return instanceCoefficient % (divisorCoefficient * 10n ** BigInt(-exponentDifference)) === 0n;
}

/** A number as an integer coefficient and a power of ten, from its shortest decimal (cfworker's). */
function decimalInteger(value: number): [coefficient: bigint, exponent: number] {
  const [coefficient = '', exponent = '0'] = Math.abs(value).toString().split('e');
  const point = coefficient.indexOf('.');
  const fractionLength = point === -1 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace('.', '')), Number(exponent) - fractionLength];
}

/** The string keywords, on strings only: length in code points, and the format table's check. */
function stringChecks(schema: JsonSchema, cfworker: CfworkerParts): Check[] {
  const { minLength, maxLength } = schema as Record<string, number | undefined>;
  const checks: Check[] = [];
  const onStrings = (check: (value: string) => boolean): Check => {
    return (value, kind) => kind !== 'string' || check(value as string);
  };
  if (minLength !== undefined) checks.push(onStrings((value) => cfworker.ucs2length(value) >= minLength));
  if (maxLength !== undefined) checks.push(onStrings((value) => cfworker.ucs2length(value) <= maxLength));
  // read when the schema is built: interpreted.ts fills the table before (patterns) and never changes an entry
  const format = typeof schema.format === 'string' ? cfworker.formats[schema.format] : undefined;
  if (format) checks.push(onStrings((value) => format(value)));
  return checks;
}
