// Values for a JSON Schema, to compare validators on: one built to fit the schema (as far as a
// small generator can: a pattern it does not read may fail), and mutations of it that each break
// one thing (a wrong type, a missing or extra property, a number out of range, a long string).

import type { JsonSchema } from '../../../../../src/contract/table.js';

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2026-11-29T10:00:00Z',
  date: '2026-11-29',
  time: '10:00:00Z',
  email: 'a@example.com',
  uri: 'https://example.com/a',
  'uri-reference': '/a/b',
  url: 'https://example.com/a',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  ipv4: '10.0.0.1',
  ipv6: '::1',
  hostname: 'example.com',
  byte: 'aGVsbG8=',
};

/** How deep optional properties are still given values (recursive schemas stop there). */
const OPTIONAL_DEPTH = 4;
const MAX_DEPTH = 10;

/** A value built to fit `schema`; `$ref`s are `#/$defs/<key>` into the root's `$defs`. */
export function instanceOf(root: JsonSchema): unknown {
  const defs = (root.$defs ?? {}) as Record<string, JsonSchema>;
  return build(root, defs, 0);
}

function build(schema: unknown, defs: Record<string, JsonSchema>, depth: number): unknown {
  if (schema === true || schema === undefined) return 'any';
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return null;
  const s = schema as JsonSchema;
  if (typeof s.$ref === 'string') return build(defs[s.$ref.slice('#/$defs/'.length)], defs, depth + 1);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.allOf)) return mergeAll(s.allOf.map((part) => build(part, defs, depth + 1)));
  const choice = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(choice) && choice.length > 0) {
    const notNull = choice.find((part) => (part as JsonSchema | undefined)?.type !== 'null') ?? choice[0];
    return build(notNull, defs, depth + 1);
  }
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (s.properties ? 'object' : s.items ? 'array' : 'string');
  return ofType(type, s, defs, depth);
}

function ofType(type: string, s: JsonSchema, defs: Record<string, JsonSchema>, depth: number): unknown {
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return numberIn(s, type === 'integer');
    case 'array':
      return Array.from({ length: Math.max(1, Number(s.minItems ?? 0)) }, (_, i) => {
        const item = build(s.items, defs, depth + 1);
        return s.uniqueItems && (typeof item === 'number' || typeof item === 'string') && i > 0 ? `${String(item)}${i}` : item;
      });
    case 'object': {
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      const properties = Object.entries((s.properties ?? {}) as Record<string, unknown>).filter(
        ([name]) => required.has(name) || depth < OPTIONAL_DEPTH,
      );
      return Object.fromEntries(properties.map(([name, part]) => [name, build(part, defs, depth + 1)]));
    }
    default: {
      const text = (typeof s.format === 'string' ? FORMAT_SAMPLES[s.format] : undefined) ?? 'text';
      const min = Number(s.minLength ?? 0);
      return text.length >= min ? text : text + 'x'.repeat(min - text.length);
    }
  }
}

function numberIn(s: JsonSchema, integer: boolean): number {
  if (typeof s.minimum === 'number') return s.minimum;
  if (typeof s.exclusiveMinimum === 'number') return integer ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum + 0.5;
  if (typeof s.multipleOf === 'number') return s.multipleOf;
  return typeof s.maximum === 'number' && s.maximum < 1 ? s.maximum : 1;
}

/** The parts of an allOf as one value: objects merged, anything else the first part. */
function mergeAll(parts: unknown[]): unknown {
  if (parts.every((part) => typeof part === 'object' && part !== null && !Array.isArray(part))) return Object.assign({}, ...parts);
  return parts[0];
}

/** Values that each differ from `value` in one place: every place of it, a few ways each. */
export function mutationsOf(value: unknown): unknown[] {
  const out: unknown[] = [];
  for (const replaced of variantsOf(value)) out.push(replaced);
  return out;
}

function* variantsOf(value: unknown): Generator<unknown> {
  yield* replacementsOf(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) for (const part of variantsOf(value[i])) yield value.map((item, j) => (j === i ? part : item));
    if (value.length > 0) yield [...value, value[0]];
    yield [];
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    yield { ...record, zz_extra: 1 };
    for (const name of Object.keys(record)) {
      const { [name]: _dropped, ...rest } = record;
      yield rest;
      for (const part of variantsOf(record[name])) yield { ...record, [name]: part };
    }
  }
}

/** `value` replaced whole: by a value of each other type, and by one past a likely bound of its own type. */
function replacementsOf(value: unknown): unknown[] {
  const others: unknown[] = [null, 'x', 1.5, {}, []];
  if (typeof value === 'number') return [...others, value - 1, value + 0.5, -(2 ** 31) - 1, 2 ** 63, 1e21, -value];
  if (typeof value === 'string') return [...others, 7, '', 'x'.repeat(5000), `${value}\u{1F600}`, value.toUpperCase(), `not-${value}`];
  if (typeof value === 'boolean') return [...others, !value];
  return [...others, true, 3];
}
