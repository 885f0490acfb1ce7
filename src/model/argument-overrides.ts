// The config file's argument overrides (toolOverrides.<operation>.arguments): a tool's arguments
// hidden and always sent, renamed (the wire keeps the spec's name), described anew, given a
// default, or narrowed to fewer enum values. The result is data in the table: the listed
// inputSchema already changed, the hidden arguments with their value or variable.

import type { HiddenArgument, JsonSchema } from '../contract/table.js';
import { didYouMean } from '../contract/did-you-mean.js';
import { OptionsError } from '../errors.js';
import type { ArgumentOverride } from './model-options.js';
import { sanitizeArgName } from './naming.js';
import type { Arguments } from './operation.js';

/** The tool's arguments once overridden, with what the server fills in. */
export interface OverriddenArguments extends Arguments {
  hidden?: Record<string, HiddenArgument>;
  defaults?: Record<string, unknown>;
}

/** Where the overrides come from, for errors: the config place of the operation's override (`config "toolOverrides"."<key>"`) and its `METHOD /path`. */
export interface OverridePlace {
  at: string;
  label: string;
}

/** `args` with `overrides` applied; an OptionsError naming the operation and argument when one cannot be. */
export function applyArgumentOverrides(
  args: Arguments,
  overrides: Record<string, ArgumentOverride> | undefined,
  place: OverridePlace,
  defs: Record<string, JsonSchema>,
): OverriddenArguments {
  if (!overrides || Object.keys(overrides).length === 0) return args;
  const properties = { ...(args.inputSchema.properties as Record<string, JsonSchema>) };
  const required = new Set((args.inputSchema.required as string[] | undefined) ?? []);
  const hidden: Record<string, HiddenArgument> = {};
  const defaults: Record<string, unknown> = {};
  const renames = new Map<string, string>();
  for (const [arg, override] of Object.entries(overrides)) {
    const at = `${place.at}.arguments."${arg}"`;
    const schema = Object.hasOwn(properties, arg) ? properties[arg] : undefined;
    if (schema === undefined) {
      throw new OptionsError(`${at}: ${place.label} has no argument "${arg}"${didYouMean(arg, Object.keys(properties), (n) => `"${n}"`)}`);
    }
    if (override.hidden === true) {
      hidden[arg] =
        override.env !== undefined ? { env: override.env } : { value: checkedValue(override.value, schema, defs, `${at}.value`) };
      delete properties[arg];
      required.delete(arg);
      continue;
    }
    properties[arg] = listedSchema(schema, override, defs, at);
    if (override.default !== undefined) {
      defaults[arg] = override.default;
      required.delete(arg);
    }
    if (override.name !== undefined && override.name !== arg) renames.set(arg, override.name);
  }
  checkRenames(renames, Object.keys(properties), Object.keys(hidden), place);
  return renamed({ ...args, inputSchema: schemaOf(properties, required), hidden, defaults }, renames);
}

/** The argument's listed schema with the override's description, enum and default. */
function listedSchema(schema: JsonSchema, override: ArgumentOverride, defs: Record<string, JsonSchema>, at: string): JsonSchema {
  const listed: JsonSchema = { ...schema };
  if (override.description !== undefined) listed.description = override.description;
  if (override.enum !== undefined) listed.enum = narrowedEnum(override.enum, schema, defs, `${at}.enum`);
  if (override.default !== undefined) listed.default = checkedValue(override.default, listed, defs, `${at}.default`);
  return listed;
}

/** The override's enum: values of the argument's type, within the spec's enum when it has one. */
function narrowedEnum(values: unknown[], schema: JsonSchema, defs: Record<string, JsonSchema>, at: string): unknown[] {
  values.forEach((value, i) => checkType(value, schema, defs, `${at}[${i}]`));
  const specEnum = resolved(schema, defs).enum;
  if (!Array.isArray(specEnum)) return values;
  const known = new Set(specEnum.map((v) => JSON.stringify(v)));
  const outside = values.filter((v) => !known.has(JSON.stringify(v)));
  if (outside.length) {
    throw new OptionsError(
      `${at}: ${outside.map((v) => JSON.stringify(v)).join(', ')} not among the spec's values (${specEnum.map((v) => JSON.stringify(v)).join(', ')}); an override can only narrow an enum`,
    );
  }
  return values;
}

/** `value` when it is of the argument's type and among its values (the override's enum, else the spec's). */
function checkedValue(value: unknown, schema: JsonSchema, defs: Record<string, JsonSchema>, at: string): unknown {
  checkType(value, schema, defs, at);
  const s = resolved(schema, defs);
  const listed = [schema.enum, s.enum].find(Array.isArray) as unknown[] | undefined;
  if (listed && !listed.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
    throw new OptionsError(
      `${at}: ${JSON.stringify(value)} is not one of the argument's values (${listed.map((v) => JSON.stringify(v)).join(', ')})`,
    );
  }
  return value;
}

/** Throws unless `value` is of the argument's type, when the schema names one. */
function checkType(value: unknown, schema: JsonSchema, defs: Record<string, JsonSchema>, at: string): void {
  const s = resolved(schema, defs);
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : [];
  if (types.length && !types.some((t) => isOfType(value, t))) {
    throw new OptionsError(`${at}: ${JSON.stringify(value)} is not of the argument's type (${types.join(' or ')})`);
  }
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

/** The schema behind `$ref`s to the shared schemas. */
function resolved(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  let s = schema;
  for (let i = 0; typeof s.$ref === 'string' && s.$ref.startsWith('#/$defs/') && i < 20; i++) {
    const target = defs[s.$ref.slice('#/$defs/'.length)];
    if (!target) break;
    s = target;
  }
  return s;
}

/** Each new name a valid argument name that no other argument has (compared as NameScope does, without case). */
function checkRenames(renames: Map<string, string>, listed: string[], hidden: string[], place: OverridePlace): void {
  const final = new Map<string, string>();
  for (const arg of [...listed, ...hidden]) final.set(arg, renames.get(arg) ?? arg);
  for (const [arg, name] of renames) {
    const at = `${place.at}.arguments."${arg}".name`;
    if (sanitizeArgName(name) !== name)
      throw new OptionsError(`${at}: "${name}" is not an argument name (A-Z, a-z, 0-9, "_", "." and "-", at most 64)`);
    const other = [...final].find(([o, n]) => o !== arg && n.toLowerCase() === name.toLowerCase());
    if (other) throw new OptionsError(`${at}: "${name}" is already the name of ${place.label}'s argument "${other[0]}"`);
  }
}

/** The arguments with each renamed one under its new name: in the schema, where it is sent, and what the server fills. */
function renamed(args: OverriddenArguments, renames: Map<string, string>): OverriddenArguments {
  const to = (arg: string) => renames.get(arg) ?? arg;
  const rekey = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).map(([k, v]) => [to(k), v]));
  const { inputSchema, body } = args;
  const required = (inputSchema.required as string[] | undefined)?.map(to);
  const out: OverriddenArguments = {
    ...args,
    inputSchema: schemaOf(rekey(inputSchema.properties as Record<string, JsonSchema>), new Set(required)),
    params: args.params.map((p) => ({ ...p, arg: to(p.arg) })),
    examples: new Map([...args.examples].map(([arg, values]) => [to(arg), values])),
  };
  if (body) out.body = { ...body, arg: to(body.arg), ...(body.contentTypeArg ? { contentTypeArg: to(body.contentTypeArg) } : {}) };
  if (args.defaults && Object.keys(args.defaults).length) out.defaults = rekey(args.defaults);
  else delete out.defaults;
  if (!args.hidden || Object.keys(args.hidden).length === 0) delete out.hidden;
  return out;
}

const schemaOf = (properties: Record<string, JsonSchema>, required: Set<string>): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.size ? { required: [...required] } : {}),
  additionalProperties: false,
});
