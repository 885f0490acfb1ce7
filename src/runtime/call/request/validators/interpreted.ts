// The interpreted validator (validator.ts): @cfworker/json-schema walks each schema as data and
// never makes code from strings, so it runs where `eval` and `new Function` are forbidden
// (Cloudflare Workers). Two of its parts are replaced so that it checks what ajv checks, as safely:
// - `pattern`: cfworker would run a spec's pattern on the backtracking RegExp engine, where
//   `^(a+)+$` can take minutes on a short string. Each pattern is taken out of the schema and put
//   back as a format of its own, which re2js runs in linear time (limits.ts), as ajv's does.
//   `patternProperties` cannot be put back so: it is not checked here, and neither are the
//   `additionalProperties` / `unevaluatedProperties` beside it (which depend on its matches), so
//   no argument is refused wrongly; the API still checks them.
// - `format`: the checks are ajv-formats' own (cfworker's `url` backtracks catastrophically);
//   the number formats (int32, int64), which cfworker checks only on strings, become bounds.
// Errors come out in ajv's shape and words (interpreted-errors.ts). A value that fits is told so
// by fast-verdict.ts where it covers the schema; cfworker decides the rest and words the errors.

import type { Schema } from '@cfworker/json-schema';
import type { JsonSchema } from '../../../../contract/table.js';
import { linearRegExpEngine } from '../../../../contract/limits.js';
import type { SchemaError, Validator } from '../validator.js';
import { translateErrors, type Marks } from './interpreted-errors.js';
import { fastVerdict } from './fast-verdict.js';

type FormatCheck = (value: string) => boolean;
type FormatDefinition = RegExp | FormatCheck | true | { type?: string; validate: RegExp | FormatCheck };

/** ajv-formats' number formats, as the bounds that say the same (its int32 and int64 are integers in range). */
const NUMBER_FORMATS: Record<string, JsonSchema | undefined> = {
  int32: { multipleOf: 1, minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
  int64: { multipleOf: 1, minimum: -(2 ** 63), maximum: 2 ** 63 - 1 },
  float: undefined,
  double: undefined,
};

/** The format names that stand for spec patterns in cfworker's format table. */
const PATTERN_FORMAT = 'mcp-gen pattern ';

/** The keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SUBSCHEMA = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
]);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAP = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);

export async function createValidator(warn: (message: string) => void): Promise<Validator> {
  const [cfworker, formatsModule] = await Promise.all([import('@cfworker/json-schema'), import('ajv-formats/dist/formats.js')]);
  // CommonJS: the exports are the module itself, or its `default` under some loaders
  const { fullFormats } = ((formatsModule as { default?: unknown }).default ?? formatsModule) as {
    fullFormats: Record<string, FormatDefinition>;
  };
  const formats = cfworker.format as Record<string, FormatCheck>;
  useAjvFormats(formats, fullFormats);
  // re2js (~150 kB) loads with the first schema that has a pattern: many tables have none
  let regExp: ReturnType<typeof linearRegExpEngine> | undefined;
  const loadRegExp = async () => {
    const { RE2JS } = await import('re2js');
    regExp ??= linearRegExpEngine(RE2JS, (pattern, reason) =>
      warn(`pattern ${JSON.stringify(pattern.slice(0, 80))} is not checked here (${reason}); the API still checks it`),
    );
  };
  const patternFormat = (pattern: string): string => {
    const name = PATTERN_FORMAT + pattern;
    if (!Object.hasOwn(formats, name)) {
      if (!regExp) throw new Error('internal: a pattern compiled before its engine was loaded (prepare the schema first)');
      const compiled = regExp(pattern, 'u');
      formats[name] = (value) => compiled.test(value);
    }
    return name;
  };
  return {
    async prepare(schema) {
      if (!regExp && hasPattern(schema)) await loadRegExp();
    },
    compile(schema) {
      const marks: Marks = new WeakMap();
      const refs: JsonSchema[] = [];
      const rewrite = { formats, patternFormat, marks, refs, warn };
      const prepared = rewriteSchema(schema, rewrite);
      const lookup = cfworker.dereference(prepared as Schema);
      for (const node of refs) {
        const target = (node as Schema).__absolute_ref__ ?? String(node.$ref);
        if (!lookup[target]) throw new Error(`unresolved $ref ${JSON.stringify(node.$ref)}`);
      }
      const fits = fastVerdict(prepared, lookup, { ...cfworker, formats });
      return (value) => {
        let result;
        try {
          // first the verdict alone (the fast one where it covers the schema), which stops at the
          // first error; all errors only for a value that fails: checks.ts names up to three, and
          // repairs all it can. Inside the try: a value nested past the stack fails both alike.
          if (fits?.(value) || cfworker.validate(value, prepared as Schema, '2020-12', lookup, true).valid) return undefined;
          result = cfworker.validate(value, prepared as Schema, '2020-12', lookup, false);
        } catch {
          return [{ instancePath: '', keyword: 'json', message: 'must be JSON data', params: {} } satisfies SchemaError];
        }
        return translateErrors(result.errors, prepared, lookup, marks);
      };
    },
  };
}

/** Whether a `pattern` with a string value is anywhere in `value` (in data too, which only loads the engine sooner). */
function hasPattern(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasPattern);
  return Object.entries(value).some(([key, part]) => (key === 'pattern' && typeof part === 'string') || hasPattern(part));
}

/**
 * cfworker's table of string formats (its module's own, which its validate() reads), made
 * ajv-formats' (the number formats are bounds, see rewriteSchema).
 */
function useAjvFormats(formats: Record<string, FormatCheck>, fullFormats: Record<string, FormatDefinition>): void {
  for (const [name, definition] of Object.entries(fullFormats)) {
    if (typeof definition === 'object' && !(definition instanceof RegExp) && definition.type === 'number') continue;
    const check =
      definition === true ? true : definition instanceof RegExp || typeof definition === 'function' ? definition : definition.validate;
    formats[name] = check === true ? () => true : check instanceof RegExp ? (value) => check.test(value) : check;
  }
}

interface Rewrite {
  formats: Record<string, FormatCheck>;
  patternFormat(pattern: string): string;
  marks: Marks;
  refs: JsonSchema[];
  warn(message: string): void;
}

/**
 * A copy of `schema` for cfworker: patterns and number formats as the checks that replace them
 * (marked with the error ajv gives, for interpreted-errors.ts), unknown formats dropped (ajv
 * ignores them too), patternProperties dropped with what depends on them. A copy, because
 * cfworker writes onto the schema objects it is given, and these are the tool table's.
 */
function rewriteSchema(schema: unknown, rewrite: Rewrite): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return copyData(schema);
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (SUBSCHEMA.has(key)) copy[key] = rewriteSchema(value, rewrite);
    else if (SUBSCHEMA_LIST.has(key) && Array.isArray(value)) copy[key] = value.map((part) => rewriteSchema(part, rewrite));
    else if (SUBSCHEMA_MAP.has(key) && typeof value === 'object' && value !== null)
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, part]) => [name, rewriteSchema(part, rewrite)]));
    else copy[key] = copyData(value);
  }
  if (typeof copy.$ref === 'string') rewrite.refs.push(copy);
  const checks = [...patternCheck(copy, rewrite), ...formatCheck(copy, rewrite)];
  dropPatternProperties(copy, rewrite);
  if (checks.length > 0) copy.allOf = [...(Array.isArray(copy.allOf) ? copy.allOf : []), ...checks];
  return copy;
}

/** The schema's `pattern`, taken out and returned as a format that re2js runs. */
function patternCheck(copy: JsonSchema, rewrite: Rewrite): JsonSchema[] {
  const pattern = copy.pattern;
  if (typeof pattern !== 'string') return [];
  delete copy.pattern;
  const check: JsonSchema = { format: rewrite.patternFormat(pattern) };
  rewrite.marks.set(check, { keyword: 'pattern', message: `must match pattern "${pattern}"`, params: { pattern } });
  return [check];
}

/** The schema's number format, taken out and returned as bounds; an unknown format, dropped. */
function formatCheck(copy: JsonSchema, rewrite: Rewrite): JsonSchema[] {
  const format = copy.format;
  if (typeof format !== 'string') return [];
  if (Object.hasOwn(NUMBER_FORMATS, format)) {
    delete copy.format;
    const bounds = NUMBER_FORMATS[format];
    if (!bounds) return [];
    const check = { ...bounds };
    rewrite.marks.set(check, { keyword: 'format', message: `must match format "${format}"`, params: { format } });
    return [check];
  }
  if (!Object.hasOwn(rewrite.formats, format) || format.startsWith(PATTERN_FORMAT)) delete copy.format;
  return [];
}

function dropPatternProperties(copy: JsonSchema, rewrite: Rewrite): void {
  if (copy.patternProperties === undefined) return;
  rewrite.warn(
    `patternProperties ${JSON.stringify(Object.keys(copy.patternProperties as object)).slice(0, 80)} are not checked here ` +
      '(the validator would run them on a backtracking engine); the API still checks them',
  );
  delete copy.patternProperties;
  delete copy.additionalProperties;
  delete copy.unevaluatedProperties;
}

/** A deep copy of JSON data (enum values, defaults, extensions): cfworker marks objects it walks. */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, part]) => [key, copyData(part)]));
}
