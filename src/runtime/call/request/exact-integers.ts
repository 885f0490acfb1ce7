// Integers beyond 2^53. A JSON number there reaches the server already rounded (the SDK parses
// the request with JSON.parse: 9007199254740993 arrives as …992, another id), so it is refused
// rather than sent; the same integer given as a text of digits is exact, and a parameter (path,
// query, header, cookie) sends it as those digits, as any HTTP client would. A JSON body cannot
// (Node 20 has no JSON.rawJSON to write a number it cannot hold), so there it stays refused.

import type { JsonSchema, ToolSpec } from '../../../contract/table.js';
import { typesOf } from './coerce.js';

const DIGITS = /^-?(?:0|[1-9]\d*)$/;

const unsafeInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
const digits = (value: unknown): value is string => typeof value === 'string' && DIGITS.test(value);

/** int64's range, which the validator sees only rounded (2^63-1 as a double is 2^63), compared exactly. */
const outsideInt64 = (schema: JsonSchema | undefined, text: string) =>
  schema?.format === 'int64' && (BigInt(text) < -(2n ** 63n) || BigInt(text) > 2n ** 63n - 1n);

/**
 * The top-level integer arguments given as digits that a parameter sends as they are (`exact`, by
 * argument name: an int64 parameter is listed as an integer or its digits), or why an integer
 * beyond 2^53 cannot be sent exactly.
 */
export function exactIntegers(
  tool: ToolSpec,
  args: Record<string, unknown>,
  defs: Record<string, JsonSchema>,
): { exact: Map<string, string> } | { problem: string } {
  const exact = new Map<string, string>();
  const properties = tool.inputSchema.properties as Record<string, JsonSchema> | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (!unsafeInteger(value) && !digits(value)) continue;
    if (!typesOf(properties?.[name], defs)?.includes('integer')) continue;
    if (unsafeInteger(value))
      return {
        problem: `argument "${name}": ${String(value)} is beyond 2^53, where a JSON number may already be another integer; give it as a text of digits`,
      };
    if (tool.http.params.some((p) => p.arg === name && p.contentType === undefined)) {
      if (outsideInt64(properties?.[name], value as string))
        return { problem: `argument "${name}": ${String(value)} is outside int64 (-2^63 to 2^63-1)` };
      exact.set(name, value as string);
    } else if (!Number.isSafeInteger(Number(value)))
      return { problem: `argument "${name}": ${String(value)} is beyond 2^53, which JSON cannot carry exactly` };
  }
  return { exact };
}

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
