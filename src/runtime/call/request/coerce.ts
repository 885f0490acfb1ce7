// Lenient scalars. Models often send "5" where the schema says integer, or 5 where it says
// string, and the MCP Inspector CLI parses every --tool-arg as JSON (repo=1 arrives as a
// number). Where the conversion is unambiguous, a top-level scalar argument is converted to
// its schema's type before validation; objects and arrays are never touched, a text is never
// read as a number other than the one it says, and an argument that still does not fit is named
// by the validator as before.

import { ownValue, type JsonSchema } from '../../../contract/table.js';

const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The schema a `$ref` chain into `defs` ends at (at most ten links); the schema itself when it has none. */
export function followDefRefs(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): JsonSchema | undefined {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 10; i++) s = defs[s.$ref.replace(/^#\/\$defs\//, '')];
  return s;
}

/** The JSON types a schema allows, when it says so directly (a `$ref` is followed in `defs`). */
export function typesOf(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): string[] | undefined {
  const s = followDefRefs(schema, defs);
  if (!s || s.type === undefined) return undefined;
  return Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
}

/** `value` as one of `types`, when exactly one reading fits; otherwise `value` itself. */
function coerceScalar(value: unknown, types: string[]): unknown {
  const fits = (t: string) =>
    (t === 'string' && typeof value === 'string') ||
    (t === 'boolean' && typeof value === 'boolean') ||
    (t === 'null' && value === null) ||
    (t === 'number' && typeof value === 'number') ||
    (t === 'integer' && typeof value === 'number' && Number.isInteger(value));
  if (types.some(fits)) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if ((types.includes('integer') || types.includes('number')) && NUMBER_TEXT.test(text)) {
      const n = Number(text);
      // Beyond 2^53 a double holds every other integer only: "9007199254740993" would become
      // ...992, another id. Such a text is left as it is: exact-integers.ts decides.
      const exact = /^-?\d+$/.test(text) ? Number.isSafeInteger(n) : true;
      if (Number.isFinite(n) && exact && (types.includes('number') || Number.isSafeInteger(n))) return n;
    }
    if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  }
  if (typeof value === 'number' && Number.isFinite(value) && types.includes('string')) return String(value);
  if (typeof value === 'boolean' && types.includes('string')) return String(value);
  return value;
}

/** The arguments with top-level scalars converted where unambiguous; the input is not changed. */
export function coerceArguments(
  args: Record<string, unknown>,
  inputSchema: JsonSchema,
  defs: Record<string, JsonSchema>,
): Record<string, unknown> {
  const properties = inputSchema.properties as Record<string, JsonSchema> | undefined;
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (typeof value === 'object' && value !== null) continue; // objects and arrays: never
    const types = typesOf(ownValue(properties, name), defs);
    if (!types) continue;
    const coerced = coerceScalar(value, types);
    // spread, not assigned, so that every name stays the object's own (`__proto__` too)
    if (coerced !== value) out = { ...(out ?? args), ...Object.fromEntries([[name, coerced]]) };
  }
  return out ?? args;
}
