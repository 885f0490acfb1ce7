// Parameter Objects (OAS 3.1.1 §4.8.12): path, query, header and cookie parameters become
// arguments, each with where and how it is sent (location, style, explode, media type); OAS
// 3.2's `querystring` parameter is one argument that is the whole query string.

import { asArray, followRefs, isObject, type Json, type JsonObject } from '../parse/pointer.js';
import type { JsonSchema, ParamLocation, ParamSpec, ParamStyle } from '../contract/table.js';
import { concreteMediaType } from '../contract/media.js';
import { unsendableCookieName, unsendableHeaderName } from '../contract/headers.js';
import { warning } from '../warnings.js';
import { NameScope, sanitizeArgName } from './naming.js';
import { exampleValues } from './routes.js';
import { encodingsOf } from './request-body.js';
import type { OperationPlace, SpecContext } from './context.js';

/** Where name collisions are settled: the first location keeps the plain name. */
const LOCATION_ORDER: ParamLocation[] = ['path', 'query', 'querystring', 'header', 'cookie'];
// OpenAPI 3.0.3 §4.7.12: header parameters with these names SHALL be ignored.
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** Every style the runtime can send (request.ts); `tabDelimited` comes from Swagger 2.0's `tsv`. */
const KNOWN_STYLES: Record<ParamStyle, true> = {
  simple: true,
  label: true,
  matrix: true,
  form: true,
  spaceDelimited: true,
  pipeDelimited: true,
  tabDelimited: true,
  deepObject: true,
};

/** The operation's parameters as arguments; `scope` holds their names, for the body's to come. */
export interface ParameterArguments {
  params: ParamSpec[];
  properties: Record<string, JsonSchema>;
  required: string[];
  /** Argument → its parameter's examples, offered by completions when the operation is a resource template. */
  examples: Map<string, string[]>;
  scope: NameScope;
}

/** A parameter with the pointer it is defined at (a shared one: its component), for warnings. */
interface Declared {
  p: JsonObject;
  at: string;
}

export function buildParameters(
  ctx: SpecContext,
  place: OperationPlace,
  item: JsonObject,
  op: JsonObject,
  refs: Set<string>,
): ParameterArguments {
  const declared = declaredParameters(ctx, place, item, op);
  addUndeclaredPathVariables(declared, place, ctx);
  const out: ParameterArguments = { params: [], properties: {}, required: [], examples: new Map(), scope: new NameScope() };
  for (const parameter of inLocationOrder(declared)) addParameter(ctx, parameter, refs, out);
  return out;
}

/**
 * The operation's Idempotency-Key header parameter (draft-ietf-httpapi-idempotency-key-header),
 * its name as the spec spells it: Mastodon's spec writes `Idempotency-Key`, Svix's `idempotency-key`.
 */
export function idempotencyKeyOf(params: ParamSpec[]): string | undefined {
  return params.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')?.name;
}

/** Path-level parameters apply unless the operation redefines the same name + location; unsendable ones are left out. */
function declaredParameters(ctx: SpecContext, place: OperationPlace, item: JsonObject, op: JsonObject): Map<string, Declared> {
  const { where } = place;
  const byKey = new Map<string, Declared>();
  const itemWhere = where.slice(0, where.lastIndexOf('/'));
  const declared = [
    ...asArray(item.parameters).map((raw, i) => ({ raw, at: `${itemWhere}/parameters/${i}` })),
    ...asArray(op.parameters).map((raw, i) => ({ raw, at: `${where}/parameters/${i}` })),
  ];
  for (const { raw, at } of declared) {
    const p = followRefs(ctx.doc, raw);
    if (!isObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
    if (!LOCATION_ORDER.includes(p.in as ParamLocation)) continue;
    if (p.in === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    // A shared parameter is reported once, where it is defined.
    const source = isObject(raw) && typeof raw.$ref === 'string' && raw.$ref.startsWith('#') ? raw.$ref : at;
    const refused = unsendableParameter(p.in, p.name);
    if (refused !== undefined) {
      warnOnce(ctx, warning('unsendable-header', `${refused}; left out of the arguments`, source));
      continue;
    }
    byKey.set(`${p.in}:${p.name}`, { p, at: source });
  }
  return byKey;
}

/** Why a header or cookie parameter can never be sent, or undefined. */
function unsendableParameter(location: string, name: string): string | undefined {
  if (location === 'header') return unsendableHeaderName(name);
  return location === 'cookie' ? unsendableCookieName(name) : undefined;
}

/**
 * A `{name}` in the path template that no parameter declares: the spec is wrong, but the
 * operation is still usable once the caller can give the value.
 */
function addUndeclaredPathVariables(byKey: Map<string, Declared>, place: OperationPlace, ctx: SpecContext): void {
  if (!place.path.includes('{')) return;
  const fixedPart = place.path.split(/[?#]/)[0] ?? place.path;
  for (const match of fixedPart.matchAll(/\{([^{}]+)\}/g)) {
    const name = match[1] as string;
    if (byKey.has(`path:${name}`)) continue;
    byKey.set(`path:${name}`, { p: { name, in: 'path', required: true, schema: { type: 'string' } }, at: place.where });
    ctx.warnings.push(
      warning('missing-path-parameter', `path variable {${name}} has no parameter; added as a required string argument`, place.where),
    );
  }
}

/** Collisions: in location order path, query, header, cookie, then the body, the first claimant keeps the plain name. */
function inLocationOrder(byKey: Map<string, Declared>): Declared[] {
  const rank = (d: Declared) => LOCATION_ORDER.indexOf(d.p.in as ParamLocation);
  return [...byKey.values()].sort((a, b) => rank(a) - rank(b));
}

/** One parameter as an argument (later claimants are suffixed with their location: `id_query`) and its HTTP mapping. */
function addParameter(ctx: SpecContext, { p, at }: Declared, refs: Set<string>, out: ParameterArguments): void {
  const location = p.in as ParamLocation;
  const base = sanitizeArgName(p.name as string);
  const arg = out.scope.claim(out.scope.has(base) ? sanitizeArgName(`${base}_${location}`) : base);
  const isRequired = location === 'path' || p.required === true;
  // Parameter Object `content` (a map with one entry): the value is sent as that media type's text.
  const contentEntry = p.schema === undefined && isObject(p.content) ? Object.entries(p.content)[0] : undefined;
  const rawSchema: Json | undefined =
    contentEntry !== undefined ? (isObject(contentEntry[1]) ? contentEntry[1].schema : undefined) : p.schema;
  const suggested = exampleValues(p, followRefs(ctx.doc, rawSchema));
  if (suggested.length) out.examples.set(arg, suggested);
  out.properties[arg] = argumentSchema(ctx, p, arg, rawSchema, refs);
  if (isRequired) out.required.push(arg);
  const style = styleOf(ctx, p, at);
  const spec: ParamSpec = {
    arg,
    name: p.name as string,
    in: location,
    style,
    explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
    required: isRequired,
  };
  if (p.allowReserved === true) spec.allowReserved = true;
  if (contentEntry !== undefined) spec.contentType = concreteMediaType(contentEntry[0]);
  if (contentEntry !== undefined && location === 'querystring') addFormEncoding(ctx, p, contentEntry[0], spec);
  const type = typeOf(rawSchema, ctx.doc);
  if (type) spec.type = type;
  out.params.push(spec);
}

/** A querystring parameter's form is written as a form body is: with its media type's Encoding Objects (OAS 3.2). */
function addFormEncoding(ctx: SpecContext, p: JsonObject, media: string, spec: ParamSpec): void {
  const sent = spec.contentType ?? media;
  const encoding = encodingsOf(ctx.doc, p.content as JsonObject, [{ key: media, sent }], true)?.[sent];
  if (encoding) spec.encoding = encoding;
}

/** The argument's schema: the parameter's, with its description, deprecation, and the name it is sent as when that differs. */
function argumentSchema(ctx: SpecContext, p: JsonObject, arg: string, rawSchema: Json | undefined, refs: Set<string>): JsonSchema {
  let schema = ctx.converter.convert(rawSchema, 'request', refs);
  if (ctx.converter.extras.examples && p.example !== undefined && schema.examples === undefined)
    schema = { ...schema, examples: [p.example] };
  const description = [
    typeof p.description === 'string' ? p.description.trim() : '',
    p.deprecated === true ? '(deprecated)' : '',
    arg !== p.name ? `Sent as ${p.in} parameter "${p.name}".` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return description ? { ...schema, description } : schema;
}

/**
 * The parameter's style; absent, its location's default (OAS §4.8.12.4: form for query and
 * cookie, simple for path and header). A style the runtime does not know gets the default too,
 * with a warning: sent as written, it would reach the upstream in a shape nobody chose.
 */
function styleOf(ctx: SpecContext, p: JsonObject, at: string): ParamStyle {
  const byDefault: ParamStyle = p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple';
  if (p.style === undefined) return byDefault;
  if (typeof p.style === 'string' && Object.prototype.hasOwnProperty.call(KNOWN_STYLES, p.style)) return p.style as ParamStyle;
  warnOnce(
    ctx,
    warning(
      'unknown-style',
      `style ${JSON.stringify(p.style)} is not a parameter style; sent in the ${p.in} default style, ${byDefault}`,
      `${at}/style`,
    ),
  );
  return byDefault;
}

/** Adds `w` unless the same warning was given for the same place (a shared parameter, many operations). */
function warnOnce(ctx: SpecContext, w: ReturnType<typeof warning>): void {
  if (!ctx.warnings.some((known) => known.code === w.code && known.where === w.where)) ctx.warnings.push(w);
}

/** The parameter's JSON type (the first besides null), which the runtime coerces text arguments to. */
function typeOf(schema: Json | undefined, doc: JsonObject): string | undefined {
  const s = followRefs(doc, schema);
  if (!isObject(s)) return undefined;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') as string | undefined;
  return undefined;
}
