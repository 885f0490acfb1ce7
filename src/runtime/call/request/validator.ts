// What the schema checks (checks.ts) need of a JSON Schema validator: compile a schema once,
// validate a value against it, and errors in one shape (ajv's) that checks.ts words as one line.
//
// Two validators stand behind it, each loaded by import() only when chosen (validators/load.ts):
// - 'interpreted' (validators/interpreted.ts): @cfworker/json-schema walks the schema as data, so
//   it runs where code from strings is forbidden (Cloudflare Workers, Deno deploy, strict CSPs).
//   Spec patterns run on re2js and formats are ajv-formats' own checks, as with ajv. A value that
//   fits is told so by closures built per schema node (validators/fast-verdict.ts); cfworker
//   walks the schema for a value that does not, and its errors are the ones reported.
// - 'ajv' (validators/ajv.ts): compiles each schema to JavaScript with `new Function`.
//
// The default is 'interpreted' everywhere, Node included (docs/benchmarks.md, section 12):
// spec text never becomes code (ajv's compile writes the spec's names and values into the
// JavaScript it evaluates), one validator gives the same answers on every platform, and its
// verdicts and messages are ajv's. Measured on the GitHub and Stripe tables: checking a value
// that fits costs it about what it costs ajv or less (~1 µs for a call's arguments at the
// median; an answer with a list of 30 objects, a seventh of its JSON.parse or less), compiling
// a schema some 10x less (a tool's first call, a fresh process); a value that does not fit
// costs it cfworker's walk and errors (milliseconds for a large answer), ajv far less.

import type { JsonSchema } from '../../../contract/table.js';

/** One way a value does not fit a schema, in ajv's shape. */
export interface SchemaError {
  /** JSON Pointer (RFC 6901) to the value that does not fit; '' for the root. */
  instancePath: string;
  /** The schema keyword that failed (`type`, `required`, `additionalProperties`, ...). */
  keyword: string;
  /** What the value must be, in ajv's words: `must be integer`. */
  message?: string;
  /** The keyword's details: `missingProperty`, `additionalProperty`, `allowedValues`, `type`. */
  params: Record<string, unknown>;
}

/** A compiled schema: the value's errors, or undefined when it fits. */
export type Validate = (value: unknown) => SchemaError[] | undefined;

export interface Validator {
  /**
   * Loads what compiling `schema` needs and is not loaded yet (the interpreted validator's
   * pattern engine, for a schema with a pattern): each schema is prepared before it is compiled.
   */
  prepare?(schema: JsonSchema): Promise<void>;
  /** A schema compiled for many validations; throws when the schema cannot be checked. */
  compile(schema: JsonSchema): Validate;
}

export type ValidatorName = 'ajv' | 'interpreted';

/** The validator a server uses unless told otherwise (see the header for why). */
export const DEFAULT_VALIDATOR: ValidatorName = 'interpreted';
