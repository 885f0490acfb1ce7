// The schema checks of a call: its arguments against the tool's whole inputSchema (coerced and
// repaired where a client only wrote them differently), a meta-tool's arguments against its own
// schema, and an answer against the advertised outputSchema. The validator (validator.ts)
// compiles each schema once.

import type { Logger } from '../../start/log.js';
import { coerceArguments } from './coerce.js';
import { asNumbers, exactIntegers, withExactTexts } from './exact-integers.js';
import { argumentsTooBig } from '../../../contract/limits.js';
import type { OutputCheck } from '../../mcp/output.js';
import { chooseMediaType } from './request.js';
import { ArgumentError } from '../../../contract/argument-error.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../contract/table.js';
import { perTool, type ToolSchemas } from '../../mcp/tool-schemas.js';
import { DEFAULT_VALIDATOR, type SchemaError, type Validate, type Validator, type ValidatorName } from './validator.js';
import { loadValidator } from './validators/load.js';

export interface Checks {
  /** The arguments the request is built from (coerced, repaired), or why they do not fit the tool. */
  arguments(tool: ToolSpec, args: Record<string, unknown>): Promise<{ args: Record<string, unknown> } | { problem: string }>;
  /** Arguments of a tool that is not an operation (the meta-tools) against its schema: why they do not fit, or undefined. */
  schema(schema: JsonSchema, args: Record<string, unknown>): Promise<string | undefined>;
  /** The check of a tool's answer against its listed outputSchema; only after its arguments were checked. */
  output(tool: ToolSpec): OutputCheck;
}

/** Rounds of repairArguments before the errors stand: each round fixes what the last one uncovered. */
const REPAIR_ROUNDS = 8;

/** A schema compiled for `tool`; `what` names the schema in the warning when it cannot be checked. */
type Compile = (tool: ToolSpec, schema: JsonSchema, what: string) => Validate;

export function createChecks(
  table: ToolTable,
  schemas: ToolSchemas,
  log: Logger,
  validatorName: ValidatorName = DEFAULT_VALIDATOR,
): Checks {
  // Set by the first check (load), before any compile.
  let validator: Validator | undefined;
  const load = async () => (validator ??= await loadValidator(validatorName, (message) => log.warn(message)));
  // What a tool's schemas need before any of them is compiled: its whole input (its body's forms
  // are parts of it) and its listed output.
  const ready = perTool(async (tool) => {
    const loaded = await load();
    await loaded.prepare?.(schemas.wholeInput(tool));
    await loaded.prepare?.(schemas.listedOutput(tool) ?? {});
  });
  // Compiled on first use and kept: compiling every schema at start-up would cost seconds
  // for a large API, and compiling per call would cost that on every call.
  const compile: Compile = (tool, schema, what) => {
    if (!validator) throw new Error('internal: schema compiled before the validator was loaded');
    try {
      return validator.compile(schema);
    } catch (error) {
      // A schema the validator cannot compile must not make the tool unusable: the upstream validates too.
      log.warn(`tool ${tool.name}: ${what} schema not checkable (${(error as Error).message})`);
      return () => undefined;
    }
  };
  // Arguments are checked against the whole schema, also where the listing shows it in part,
  // so that a wrong nested field is named here rather than by the upstream.
  const inputValidator = perTool((tool) => compile(tool, schemas.wholeInput(tool), 'input'));
  const outputValidator = perTool((tool) => compile(tool, schemas.listedOutput(tool) ?? {}, 'output'));
  const formProblem = bodyFormCheck(table, schemas, compile);
  const outputCheck = perTool((tool): OutputCheck => {
    const validate = outputValidator(tool);
    let errors: SchemaError[] = [];
    const fits = (value: unknown) => (errors = validate(value) ?? []).length === 0;
    return Object.assign(fits, { describe: () => describeErrors(errors, 'field') });
  });

  const metaValidators = new WeakMap<JsonSchema, Validate>();
  return {
    async arguments(tool, given) {
      const tooBig = argumentsTooBig(given);
      if (tooBig) return { problem: tooBig };
      const coerced = coerceArguments(given, tool.inputSchema, table.defs);
      const integers = exactIntegers(tool, coerced, table.defs);
      if ('problem' in integers) return integers;
      let args = asNumbers(coerced, integers.exact);
      await ready(tool);
      const validate = inputValidator(tool);
      for (let round = 0, errors = validate(args); errors; round++, errors = validate(args)) {
        const repaired = round < REPAIR_ROUNDS ? repairArguments(args, errors) : undefined;
        if (!repaired) return { problem: formProblem(tool, args) ?? describeErrors(errors) };
        args = repaired;
      }
      const wrongForm = formProblem(tool, args);
      return wrongForm ? { problem: wrongForm } : { args: withExactTexts(args, integers.exact) };
    },
    async schema(schema, args) {
      const loaded = await load();
      let validate = metaValidators.get(schema);
      if (!validate) {
        await loaded.prepare?.(schema);
        metaValidators.set(schema, (validate = loaded.compile(schema)));
      }
      const errors = validate(args);
      return errors ? describeErrors(errors) : undefined;
    },
    output: outputCheck,
  };
}

/**
 * The check that a body whose media types' schemas differ (BodySpec.variants) fits the form of
 * the type it is sent as: why it does not, or undefined.
 */
function bodyFormCheck(
  table: ToolTable,
  schemas: ToolSchemas,
  compile: Compile,
): (tool: ToolSpec, args: Record<string, unknown>) => string | undefined {
  const formValidators = new Map<string, Validate>();
  return (tool, args) => {
    const body = tool.http.body;
    const value = body ? args[body.arg] : undefined;
    if (!body?.variants || value === undefined || value === null) return undefined;
    const chosen = body.contentTypeArg ? args[body.contentTypeArg] : undefined;
    let media: string;
    try {
      media = chooseMediaType(body, typeof chosen === 'string' ? chosen : undefined);
    } catch (error) {
      if (error instanceof ArgumentError) return error.message;
      throw error;
    }
    const forms = ((tool.inputSchema.properties as Record<string, JsonSchema> | undefined)?.[body.arg]?.anyOf ?? []) as JsonSchema[];
    const index = body.variants[media];
    const form = index === undefined ? undefined : forms[index];
    if (!form) return undefined;
    const stray = strayField(value, form, forms, body.variants, table.defs);
    if (stray) {
      const how = body.contentTypeArg ? ` (set ${body.contentTypeArg} to ${stray.media})` : '';
      return `argument "${body.arg}": field "${stray.field}" belongs to the ${stray.media} form of the body, not to ${media}${how}`;
    }
    const key = `${tool.name}\n${index}`;
    let validate = formValidators.get(key);
    if (!validate) {
      validate = compile(tool, schemas.withReachedDefs({ type: 'object', properties: { [body.arg]: form } }), `${media} body`);
      formValidators.set(key, validate);
    }
    const errors = validate({ [body.arg]: value });
    return errors ? `${describeErrors(errors)} (as ${media})` : undefined;
  };
}

/**
 * A field of `value` that another form of the body declares and `form` does not (a JSON field
 * sent as multipart), with the media type of the form it belongs to.
 */
function strayField(
  value: unknown,
  form: JsonSchema,
  forms: JsonSchema[],
  variants: Record<string, number>,
  defs: Record<string, JsonSchema>,
): { field: string; media: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const own = new Set(fieldsOf(form, defs));
  for (const [field, given] of Object.entries(value)) {
    if (own.has(field) || given === null) continue; // null sends nothing (and is openai-strict's "absent")
    const other = forms.findIndex((f) => f !== form && fieldsOf(f, defs).includes(field));
    const media = Object.keys(variants).find((m) => variants[m] === other);
    if (media !== undefined) return { field, media };
  }
  return undefined;
}

/**
 * The property names a body form may have, through `$ref`s to shared defs and the members of
 * `allOf`, `oneOf` and `anyOf` (a field of any member belongs to the form: which member the
 * value matches is the schema check's business, not this one's).
 */
function fieldsOf(schema: JsonSchema, defs: Record<string, JsonSchema>, depth = 0): string[] {
  if (depth > 8) return [];
  if (typeof schema.$ref === 'string') {
    const target = defs[schema.$ref.slice('#/$defs/'.length)];
    return target ? fieldsOf(target, defs, depth + 1) : [];
  }
  const own = typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : [];
  const parts = [schema.allOf, schema.oneOf, schema.anyOf].flatMap((list) => (Array.isArray(list) ? (list as JsonSchema[]) : []));
  return [...own, ...parts.flatMap((part) => fieldsOf(part, defs, depth + 1))];
}

/**
 * Arguments that failed only for how a client wrote them, written as the schema wants them:
 * a `null` where null is not allowed means the argument is absent (models send null for what
 * they leave out, and the openai-strict profile asks them to), and JSON text where only an
 * object or array fits is read as JSON (profiles that cannot list a free-form object ask
 * for it so). Undefined when nothing could be repaired; the input is not changed.
 */
export function repairArguments(args: Record<string, unknown>, errors: SchemaError[]): Record<string, unknown> | undefined {
  let copy: Record<string, unknown> | undefined;
  for (const error of errors) {
    if (error.keyword !== 'type' || error.instancePath === '') continue;
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const key = path.pop() as string;
    const parentOf = (root: unknown) =>
      path.reduce<unknown>(
        (node, token) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined),
        root,
      );
    const original = parentOf(args);
    if (typeof original !== 'object' || original === null || !Object.hasOwn(original, key)) continue;
    const value = (original as Record<string, unknown>)[key];
    const wanted = String(error.params.type ?? '').split(',');
    let fixed: { value: unknown } | 'delete' | undefined;
    if (value === null && !Array.isArray(original)) fixed = 'delete';
    else if (typeof value === 'string' && (wanted.includes('object') || wanted.includes('array'))) {
      try {
        const parsed: unknown = JSON.parse(value);
        const kind = Array.isArray(parsed) ? 'array' : typeof parsed === 'object' && parsed !== null ? 'object' : undefined;
        if (kind && wanted.includes(kind)) fixed = { value: parsed };
      } catch {
        // not JSON: the error stands
      }
    }
    if (!fixed) continue;
    copy ??= structuredClone(args);
    const parent = parentOf(copy) as Record<string, unknown>;
    if (fixed === 'delete') delete parent[key];
    else parent[key] = fixed.value;
  }
  return copy;
}

/** A validator's errors as one line that names the arguments: `argument "id": must be integer`. */
export function describeErrors(errors: SchemaError[], noun = 'argument'): string {
  const seen = new Set<string>();
  for (const e of errors) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
      .join('.');
    let text: string;
    if (e.keyword === 'additionalProperties') {
      const extra = String(e.params.additionalProperty);
      text = path ? `${noun} "${path}": unknown property "${extra}"` : `unknown ${noun} "${extra}"`;
    } else if (e.keyword === 'required') {
      const missing = String(e.params.missingProperty);
      text = path ? `${noun} "${path}": missing property "${missing}"` : `missing required ${noun} "${missing}"`;
    } else if (e.keyword === 'enum') {
      text = `${noun} "${path}": must be one of ${JSON.stringify(e.params.allowedValues)}`;
    } else if (path) {
      text = `${noun} "${path}": ${e.message ?? e.keyword}`;
    } else {
      text = `${noun}s ${e.message ?? e.keyword}`;
    }
    seen.add(text);
    if (seen.size === 3) break;
  }
  return [...seen].join('; ') || 'arguments do not match the input schema';
}
