// The schema checks of a call: its arguments against the tool's whole inputSchema (coerced and
// repaired where a client only wrote them differently), a meta-tool's arguments against its own
// schema, and an answer against the advertised outputSchema. ajv compiles each schema once.

import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Logger } from '../../start/log.js';
import { coerceArguments } from './coerce.js';
import { argumentsTooBig, linearRegExpEngine } from '../../../contract/limits.js';
import type { OutputCheck } from '../../mcp/output.js';
import { chooseMediaType } from './request.js';
import { ArgumentError } from '../../../contract/argument-error.js';
import type { JsonSchema, ToolSpec, ToolTable } from '../../../contract/table.js';
import { perTool, type ToolSchemas } from '../../mcp/tool-schemas.js';

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

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

export function createChecks(table: ToolTable, schemas: ToolSchemas, log: Logger): Checks {
  // JSON Schema 2020-12, the dialect of MCP tool schemas (prefixItems, $defs, unevaluated*).
  // Set by the first check (loadAjv), before any compile.
  let ajv: Ajv2020 | undefined;
  // Compiled on first use and kept: compiling every schema at start-up would cost seconds
  // for a large API, and compiling per call would cost that on every call.
  const compile = (tool: ToolSpec, schema: JsonSchema, what: string): Validate => {
    if (!ajv) throw new Error('internal: schema compiled before ajv was loaded');
    try {
      return ajv.compile(schema) as Validate;
    } catch (error) {
      // A schema ajv cannot compile must not make the tool unusable: the upstream validates too.
      log.warn(`tool ${tool.name}: ${what} schema not checkable (${(error as Error).message})`);
      return (() => true) as Validate;
    }
  };
  // Arguments are checked against the whole schema, also where the listing shows it in part,
  // so that a wrong nested field is named here rather than by the upstream.
  const inputValidator = perTool((tool) => compile(tool, schemas.wholeInput(tool), 'input'));
  const outputValidator = perTool((tool) => compile(tool, schemas.listedOutput(tool) ?? {}, 'output'));

  // A body whose media types' schemas differ (BodySpec.variants) must fit the form of the type it is sent as.
  const formValidators = new Map<string, Validate>();
  const formProblem = (tool: ToolSpec, args: Record<string, unknown>): string | undefined => {
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
    return validate({ [body.arg]: value }) ? undefined : `${describeErrors(validate.errors ?? [])} (as ${media})`;
  };

  const outputCheck = perTool((tool): OutputCheck => {
    const validate = outputValidator(tool);
    return Object.assign((value: unknown) => validate(value), { describe: () => describeErrors(validate.errors ?? [], 'field') });
  });

  const metaValidators = new WeakMap<JsonSchema, Validate>();
  return {
    async arguments(tool, given) {
      const tooBig = argumentsTooBig(given);
      if (tooBig) return { problem: tooBig };
      let args = coerceArguments(given, tool.inputSchema, table.defs);
      ajv ??= await loadAjv(log);
      const validate = inputValidator(tool);
      for (let round = 0; !validate(args); round++) {
        const repaired = round < REPAIR_ROUNDS ? repairArguments(args, validate.errors ?? []) : undefined;
        if (!repaired) return { problem: formProblem(tool, args) ?? describeErrors(validate.errors ?? []) };
        args = repaired;
      }
      const wrongForm = formProblem(tool, args);
      return wrongForm ? { problem: wrongForm } : { args };
    },
    async schema(schema, args) {
      ajv ??= await loadAjv(log);
      let validate = metaValidators.get(schema);
      if (!validate) metaValidators.set(schema, (validate = ajv.compile(schema) as Validate));
      return validate(args) ? undefined : describeErrors(validate.errors ?? []);
    },
    output: outputCheck,
  };
}

/**
 * ajv, loaded on the first tool call rather than at start-up: importing it and its formats
 * costs ~130 ms, a third of a cold start, and `initialize` and `tools/list` never need it.
 */
let ajvLoading: Promise<Ajv2020> | undefined;
function loadAjv(log: Logger): Promise<Ajv2020> {
  return (ajvLoading ??= Promise.all([import('ajv/dist/2020.js'), import('ajv-formats'), import('re2js')]).then(
    ([ajvModule, formatsModule, re2]) => {
      // both are CommonJS: the export is the module itself, or its `default` under some loaders
      const { Ajv2020: AjvClass } = ((ajvModule as { default?: unknown }).default ?? ajvModule) as typeof import('ajv/dist/2020.js');
      const addFormats = ((formatsModule as { default?: unknown }).default ?? formatsModule) as unknown as (ajv: Ajv2020) => void;
      // Spec patterns run on a linear-time engine: no pattern can freeze the server (limits.ts).
      const regExp = linearRegExpEngine(re2.RE2JS, (pattern, reason) =>
        log.warn(`pattern ${JSON.stringify(pattern.slice(0, 80))} is not checked here (${reason}); the API still checks it`),
      );
      // ownProperties: an argument named `constructor` or `toString` is absent unless the client gave it.
      const ajv = new AjvClass({ strict: false, allErrors: true, validateFormats: true, ownProperties: true, code: { regExp } });
      addFormats(ajv);
      return ajv;
    },
  ));
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
export function repairArguments(args: Record<string, unknown>, errors: AjvError[]): Record<string, unknown> | undefined {
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

/** ajv's errors as one line that names the arguments: `argument "id": must be integer`. */
export function describeErrors(errors: AjvError[], noun = 'argument'): string {
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
