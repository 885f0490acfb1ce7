// Integers beyond 2^53. A JSON number there reaches the server already rounded (the SDK parses
// the request with JSON.parse: 9007199254740993 arrives as …992, another id), so it is refused
// rather than sent; the same integer given as a text of digits is exact, and a parameter (path,
// query, header, cookie) sends it as those digits, as any HTTP client would. A JSON body cannot
// (Node 20 has no JSON.rawJSON to write a number it cannot hold), so there it stays refused.

import { ownValue, type JsonSchema, type ToolSpec } from '../../../contract/table.js';
import { followDefRefs, typesOf } from './coerce.js';

const DIGITS = /^-?(?:0|[1-9]\d*)$/;

const unsafeInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
const digits = (value: unknown): value is string => typeof value === 'string' && DIGITS.test(value);

/** int64's range, which the validator sees only rounded (2^63-1 as a double is 2^63), compared exactly. */
const outsideInt64 = (schema: JsonSchema | undefined, text: string) =>
  schema?.format === 'int64' && (BigInt(text) < -(2n ** 63n) || BigInt(text) > 2n ** 63n - 1n);

/**
 * The integer arguments given as digits that a parameter sends as they are (`exact`, by argument
 * name), or why an integer beyond 2^53, at the top or inside an object or array, cannot be sent exactly.
 */
export function exactIntegers(
  tool: ToolSpec,
  args: Record<string, unknown>,
  defs: Record<string, JsonSchema>,
): { exact: Map<string, string> } | { problem: string } {
  const exact = new Map<string, string>();
  const properties = tool.inputSchema.properties as Record<string, JsonSchema> | undefined;
  for (const [name, value] of Object.entries(args)) {
    const schema = ownValue(properties, name);
    const nested = holdsUnsafeInteger(value, 0) ? roundedInside(value as object, schema, defs, name, 0) : undefined;
    if (nested !== undefined)
      return {
        problem: `argument "${nested.path}": ${BigInt(nested.value)} is beyond 2^53, where a JSON number may already be another integer, and a JSON body cannot carry it exactly`,
      };
    if (!unsafeInteger(value) && !digits(value)) continue;
    if (!typesOf(schema, defs)?.includes('integer')) continue;
    if (unsafeInteger(value))
      return {
        problem: `argument "${name}": ${BigInt(value as number)} is beyond 2^53, where a JSON number may already be another integer; give it as a text of digits`,
      };
    if (tool.http.params.some((p) => p.arg === name && p.contentType === undefined)) {
      if (outsideInt64(schema, value as string))
        return { problem: `argument "${name}": ${String(value)} is outside int64 (-2^63 to 2^63-1)` };
      exact.set(name, value as string);
    } else if (!Number.isSafeInteger(Number(value)))
      return { problem: `argument "${name}": ${String(value)} is beyond 2^53, which JSON cannot carry exactly` };
  }
  return { exact };
}

/** Deeper than this, a value is not looked into (the validator's own limits apply there). */
const MAX_DEPTH = 32;

/** Whether an object or array holds an integer beyond 2^53 anywhere: the schema is looked at only then (every call passes here). */
function holdsUnsafeInteger(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return false;
  for (const item of Array.isArray(value) ? value : Object.values(value))
    if (unsafeInteger(item) || holdsUnsafeInteger(item, depth + 1)) return true;
  return false;
}

/**
 * The first integer beyond 2^53 inside an object or array argument where its schema says
 * integer (an `id` in a JSON body): JSON.parse has already rounded it, so sending it would name
 * another integer. A number where the schema allows only `number` is data as it is.
 */
function roundedInside(
  value: object,
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
  path: string,
  depth: number,
): { path: string; value: number } | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  for (const [key, item] of entries) {
    const sub = childSchemas(schema, defs, key, Array.isArray(value));
    if (unsafeInteger(item) && sub.some((s) => allowsInteger(s, defs))) return { path: `${path}.${key}`, value: item as number };
    if (typeof item !== 'object' || item === null) continue;
    for (const s of sub.length ? sub : [undefined]) {
      const found = roundedInside(item, s, defs, `${path}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** The schema and the branches of its anyOf, oneOf and allOf, resolved. */
function branches(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): JsonSchema[] {
  const s = followDefRefs(schema, defs);
  if (!s) return [];
  const parts = (['anyOf', 'oneOf', 'allOf'] as const).flatMap((k) => (Array.isArray(s[k]) ? (s[k] as JsonSchema[]) : []));
  return [s, ...parts.map((part) => followDefRefs(part, defs)).filter((part): part is JsonSchema => part !== undefined)];
}

const allowsInteger = (schema: JsonSchema, defs: Record<string, JsonSchema>) => typesOf(schema, defs)?.includes('integer') ?? false;

/** The schemas a member (`key` of an object, or an item of an array) may have, by the schema of its container. */
function childSchemas(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>, key: string, inArray: boolean): JsonSchema[] {
  return branches(schema, defs).flatMap((s) => {
    if (inArray) {
      const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as JsonSchema[])[Number(key)] : undefined;
      return [prefix ?? (isSchema(s.items) ? s.items : undefined)].flatMap((x) => branches(x, defs));
    }
    const properties = isSchema(s.properties) ? (s.properties as Record<string, JsonSchema>) : {};
    const own = ownValue(properties, key) ?? (isSchema(s.additionalProperties) ? s.additionalProperties : undefined);
    return branches(own, defs);
  });
}

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The arguments as the validator checks them: each exact text as the nearest number, which has its type and (within rounding) its bounds. */
export function asNumbers(args: Record<string, unknown>, exact: Map<string, string>): Record<string, unknown> {
  if (exact.size === 0) return args;
  return { ...args, ...Object.fromEntries([...exact].map(([name, text]) => [name, Number(text)])) };
}

/** The checked arguments with each exact text back in place of its number. */
export function withExactTexts(args: Record<string, unknown>, exact: Map<string, string>): Record<string, unknown> {
  if (exact.size === 0) return args;
  return { ...args, ...Object.fromEntries([...exact].filter(([name]) => name in args).map(([name, text]) => [name, text])) };
}
