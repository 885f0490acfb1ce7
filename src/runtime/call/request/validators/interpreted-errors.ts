// cfworker's errors (its OutputUnits) in ajv's shape and words, so that checks.ts words them as
// it words ajv's: `argument "id": must be integer`. cfworker reports every keyword on the way to
// a failure (`properties`, `$ref`, `allOf`, ...): those are dropped, and the leaves say what is
// wrong, with the keyword's value read from the schema at the error's keywordLocation.

import type { OutputUnit, Schema } from '@cfworker/json-schema';
import type { JsonSchema } from '../../../../contract/table.js';
import type { SchemaError } from '../validator.js';

/** Checks put into a schema in place of a keyword (interpreted.ts), with the error ajv gives for that keyword. */
export type Marks = WeakMap<object, Omit<SchemaError, 'instancePath'>>;

/** Keywords that only lead to the errors below them. */
const ON_THE_WAY = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'allOf',
  'items',
  'prefixItems',
  'additionalItems',
  'dependentSchemas',
  'unevaluatedItems',
]);

/** Keywords whose error sums up the errors below it. */
const SUMS = new Set(['anyOf', 'oneOf', 'if', 'propertyNames']);

/** ajv's words for a keyword that failed, from the keyword's value in the schema. */
const WORDS: Record<string, (value: unknown) => string> = {
  type: (type) => `must be ${Array.isArray(type) ? type.join(',') : String(type)}`,
  enum: () => 'must be equal to one of the allowed values',
  const: () => 'must be equal to constant',
  minimum: (n) => `must be >= ${String(n)}`,
  maximum: (n) => `must be <= ${String(n)}`,
  exclusiveMinimum: (n) => `must be > ${String(n)}`,
  exclusiveMaximum: (n) => `must be < ${String(n)}`,
  multipleOf: (n) => `must be multiple of ${String(n)}`,
  minLength: (n) => `must NOT have fewer than ${String(n)} characters`,
  maxLength: (n) => `must NOT have more than ${String(n)} characters`,
  minItems: (n) => `must NOT have fewer than ${String(n)} items`,
  maxItems: (n) => `must NOT have more than ${String(n)} items`,
  minProperties: (n) => `must NOT have fewer than ${String(n)} properties`,
  maxProperties: (n) => `must NOT have more than ${String(n)} properties`,
  format: (name) => `must match format "${String(name)}"`,
  anyOf: () => 'must match a schema in anyOf',
  oneOf: () => 'must match exactly one schema in oneOf',
  not: () => 'must NOT be valid',
  contains: () => 'must contain at least 1 valid item(s)',
  minContains: (n) => `must contain at least ${String(n)} valid item(s)`,
  maxContains: (n) => `must contain at most ${String(n)} valid item(s)`,
  propertyNames: () => 'property name must be valid',
  false: () => 'boolean schema is false',
};

export function translateErrors(units: OutputUnit[], root: unknown, lookup: Record<string, unknown>, marks: Marks): SchemaError[] {
  const ordered = leavesBeforeTheirSums(units);
  const errors: SchemaError[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const unit = ordered[i] as OutputUnit;
    const instancePath = pointerOf(unit.instanceLocation);
    if (ON_THE_WAY.has(unit.keyword) || (unit.keyword === 'dependencies' && unit.error.includes('dependant schema'))) continue;
    const place = unit.keyword === 'false' ? undefined : parentSchema(unit.keywordLocation, root, lookup);
    const mark = place ? marks.get(place) : undefined;
    if (mark) {
      errors.push({ instancePath, ...mark });
      continue;
    }
    if (unit.keyword === 'additionalProperties' || unit.keyword === 'unevaluatedProperties') {
      // a `false` schema below names the property; a schema below speaks for itself
      const next = ordered[i + 1];
      if (next?.keyword === 'false') {
        errors.push(unknownProperty(unit.keyword, instancePath, pointerOf(next.instanceLocation)));
        i++;
      }
      continue;
    }
    errors.push(leafError(unit, instancePath, place));
  }
  return errors;
}

/** An error for a keyword with a value (or `required` and friends, named in cfworker's text). */
function leafError(unit: OutputUnit, instancePath: string, place: JsonSchema | undefined): SchemaError {
  const value = place?.[unit.keyword];
  const quoted = [...unit.error.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] as string);
  switch (unit.keyword) {
    case 'required':
      return {
        instancePath,
        keyword: 'required',
        message: `must have required property '${quoted[0]}'`,
        params: { missingProperty: quoted[0] },
      };
    case 'dependentRequired':
    case 'dependencies':
      return {
        instancePath,
        keyword: unit.keyword,
        message: `must have property ${quoted[1]} when property ${quoted[0]} is present`,
        params: { property: quoted[0], missingProperty: quoted[1] },
      };
    case 'uniqueItems': {
      const [first, second] = unit.error.match(/\d+/g) ?? [];
      return {
        instancePath,
        keyword: 'uniqueItems',
        message: `must NOT have duplicate items (items ## ${first} and ${second} are identical)`,
        params: { i: Number(second), j: Number(first) },
      };
    }
    case 'if':
      return { instancePath, keyword: 'if', message: `must match "${unit.error.includes('"else"') ? 'else' : 'then'}" schema`, params: {} };
    case 'type':
      return {
        instancePath,
        keyword: 'type',
        message: WORDS.type?.(value),
        params: { type: Array.isArray(value) ? value.join(',') : value },
      };
    case 'enum':
      return { instancePath, keyword: 'enum', message: WORDS.enum?.(value), params: { allowedValues: value } };
    default: {
      const words = WORDS[unit.keyword];
      return { instancePath, keyword: unit.keyword, message: words ? words(value) : unit.error, params: {} };
    }
  }
}

function unknownProperty(keyword: string, instancePath: string, propertyPath: string): SchemaError {
  const name = propertyPath
    .slice(propertyPath.lastIndexOf('/') + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  return keyword === 'additionalProperties'
    ? { instancePath, keyword, message: 'must NOT have additional properties', params: { additionalProperty: name } }
    : { instancePath, keyword, message: 'must NOT have unevaluated properties', params: { unevaluatedProperty: name } };
}

/**
 * cfworker puts an `anyOf`, `oneOf`, `if` or `propertyNames` before the errors below it; ajv
 * after them, and checks.ts shows the first three: the errors below say more than "must match
 * a schema". A property name's errors are the object's, as in ajv.
 */
function leavesBeforeTheirSums(units: OutputUnit[]): OutputUnit[] {
  const ordered = [...units];
  for (let i = 0; i < ordered.length; i++) {
    const unit = ordered[i] as OutputUnit;
    if (!SUMS.has(unit.keyword)) continue;
    const below =
      unit.keyword === 'if'
        ? [unit.keywordLocation.replace(/\/if$/, '/then/'), unit.keywordLocation.replace(/\/if$/, '/else/')]
        : [`${unit.keywordLocation}/`];
    let end = i + 1;
    while (end < ordered.length && below.some((prefix) => (ordered[end] as OutputUnit).keywordLocation.startsWith(prefix))) end++;
    if (end === i + 1) continue;
    const leaves = ordered.slice(i + 1, end);
    const placed = unit.keyword === 'propertyNames' ? leaves.map((leaf) => ({ ...leaf, instanceLocation: unit.instanceLocation })) : leaves;
    ordered.splice(i, end - i, ...placed, unit);
    i--; // the first leaf now stands at i: it may sum up leaves of its own
  }
  return ordered;
}

/** cfworker's `#/a%20b/c~1d` as ajv's instancePath `/a b/c~1d` (RFC 6901, not URI-encoded). */
function pointerOf(location: string): string {
  return decodeURI(location.slice(1));
}

/** The schema object that holds the keyword at `keywordLocation`, through `$ref`s. */
function parentSchema(keywordLocation: string, root: unknown, lookup: Record<string, unknown>): JsonSchema | undefined {
  const tokens = pointerOf(keywordLocation)
    .split('/')
    .slice(1, -1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = root;
  for (const token of tokens) {
    if (typeof node !== 'object' || node === null) return undefined;
    const here = node as Schema & Record<string, unknown>;
    node = token === '$ref' && here.$ref !== undefined ? lookup[here.__absolute_ref__ ?? here.$ref] : here[token];
  }
  return typeof node === 'object' && node !== null ? (node as JsonSchema) : undefined;
}
