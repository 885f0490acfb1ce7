// Request Body Objects (OAS 3.1.1 §4.8.13): the body argument, its schema per media type, the
// media types it may be sent as (preferred first), and the Encoding Objects of forms and
// multipart bodies (§4.8.15).

import { asArray, followRefs, isObject, type Json, type JsonObject } from '../parse/pointer.js';
import { ownValue, type BodySpec, type EncodingSpec, type JsonSchema, type ParamStyle } from '../contract/table.js';
import { bodyKindOf, concreteMediaType, isPlainJson, mediaKind, type MediaKind, type ValueShape } from '../contract/media.js';
import { warning } from '../warnings.js';
import type { NameScope } from './naming.js';
import type { SchemaConverter } from './schema.js';
import type { OperationPlace, SpecContext } from './context.js';

/** What an operation's requestBody gives its tool. */
export type RequestBodyArgument =
  /** No body, or one that cannot be resolved (then with a warning). */
  | { kind: 'none' }
  /**
   * A GET or HEAD body: OAS 3.0.3 Operation Object: where HTTP gives a body no meaning the
   * requestBody SHALL be ignored by consumers, and RFC 9110 §9.3.1 gives such content no
   * meaning (servers may reject it).
   */
  | { kind: 'ignored' }
  /** A body no request could carry: the operation cannot be a tool. */
  | { kind: 'unusable'; reason: string }
  /** The body argument (and the contentType argument when there is a choice), and how to send them. */
  | { kind: 'body'; body: BodySpec; properties: Record<string, JsonSchema>; required: string[] };

/** The body argument of an operation; `scope` holds the argument names the parameters took. */
export function buildRequestBody(
  ctx: SpecContext,
  place: OperationPlace,
  op: JsonObject,
  scope: NameScope,
  refs: Set<string>,
): RequestBodyArgument {
  const { doc, converter } = ctx;
  const requestBody = followRefs(doc, op.requestBody);
  if (requestBody !== undefined && (place.method === 'get' || place.method === 'head')) return { kind: 'ignored' };
  if (!isObject(requestBody) || !isObject(requestBody.content) || Object.keys(requestBody.content).length === 0) {
    if (op.requestBody !== undefined && !isObject(requestBody))
      ctx.warnings.push(warning('unresolved-request-body', 'cannot be resolved; the tool takes no body', `${place.where}/requestBody`));
    return { kind: 'none' };
  }
  const content = requestBody.content;
  const accepted = bodyMedia(doc, content);
  // A form is a set of named fields: a form body whose schema is an array or a scalar (PeerTube's
  // studio edit) has no field names to send. Drop that media type; with none left, drop the tool.
  const usable = accepted.filter((m) => !['form', 'multipart'].includes(bodyKindOf(m.sent)) || canBeObject(doc, mediaSchema(content, m)));
  if (usable.length === 0)
    return {
      kind: 'unusable',
      reason: `its ${accepted.map((m) => m.key).join(', ')} request body is not an object, so it has no form fields to send`,
    };
  const mediaTypes = usable.map((m) => m.sent);
  const preferred = mediaTypes[0] as string;
  const arg = scope.claim(scope.has('body') ? 'requestBody' : 'body');
  const choice = mediaTypes.length > 1 ? scope.claim('contentType') : undefined;
  const encoding = encodingsOf(doc, content, usable, place.styledMultipart);
  const shaped = bodyArgument(converter, refs, content, usable, choice ?? 'contentType', encoding);
  const notes = [
    typeof requestBody.description === 'string' ? requestBody.description.trim() : '',
    shaped.variants ? `Request body, in the form of its ${choice} (default ${preferred}).` : `Request body (${preferred}).`,
  ];
  const properties: Record<string, JsonSchema> = { [arg]: { ...shaped.schema, description: notes.filter(Boolean).join(' ') } };
  const isRequired = requestBody.required === true;
  const body: BodySpec = { arg, required: isRequired, mediaTypes };
  if (encoding) body.encoding = encoding;
  if (choice !== undefined) {
    properties[choice] = { type: 'string', enum: mediaTypes, description: `Media type to send the body as (default ${preferred}).` };
    body.contentTypeArg = choice;
  }
  if (shaped.variants) body.variants = shaped.variants;
  return { kind: 'body', body, properties, required: isRequired ? [arg] : [] };
}

/** JSON first, then other JSON flavours, forms, text, anything else. */
function mediaRank(media: string): number {
  const kind = bodyKindOf(media);
  if (kind === 'json') return isPlainJson(media) ? 0 : 1;
  return { form: 2, multipart: 3, ndjson: 4, text: 4, binary: 5 }[kind];
}

/** A request body's Media Type Object: its key (perhaps a range) and the concrete type it is sent as. */
export interface BodyMedia {
  key: string;
  sent: string;
}

/** The accepted media types, each as the type it is sent as, preferred first; a range that comes to a type already listed is left out. */
function bodyMedia(doc: JsonObject, content: JsonObject): BodyMedia[] {
  const seen = new Set<string>();
  return Object.keys(content)
    .map((key) => ({ key, sent: concreteMediaType(key, valueShape(doc, mediaSchema(content, { key }))) }))
    .sort((a, b) => mediaRank(a.sent) - mediaRank(b.sent))
    .filter((m) => !seen.has(m.sent.toLowerCase()) && Boolean(seen.add(m.sent.toLowerCase())));
}

const mediaSchema = (content: JsonObject, media: { key: string }): Json | undefined => {
  const entry = content[media.key];
  return isObject(entry) ? entry.schema : undefined;
};

/** What a range such as `*\/*` is sent as depends on this (media.ts, concreteMediaType). */
function valueShape(doc: JsonObject, schema: Json | undefined): ValueShape {
  const s = followRefs(doc, schema);
  if (!isObject(s) || s.type !== 'string') return 'value';
  const binary = s.format === 'binary' || s.format === 'base64' || s.contentEncoding !== undefined || s.contentMediaType !== undefined;
  return binary ? 'bytes' : 'string';
}

const STRUCTURED: MediaKind[] = ['json', 'form', 'multipart', 'ndjson'];

/**
 * The body argument's schema. Media types whose schemas are the same share one form, as
 * the first of them shapes it; text and base64 types add a string. Where the structured
 * types' schemas differ (pdfbroker's pdfconcat: JSON fields, or multipart file fields),
 * each schema is one branch of an `anyOf`, below the top where every profile accepts it,
 * and `variants` says which branch each media type is checked against.
 */
function bodyArgument(
  converter: SchemaConverter,
  refs: Set<string>,
  content: JsonObject,
  usable: BodyMedia[],
  choice: string,
  encoding: BodySpec['encoding'],
): { schema: JsonSchema; variants?: Record<string, number> } {
  const forms: BodyForm[] = [];
  for (const m of usable.filter((u, i) => i === 0 || STRUCTURED.includes(bodyKindOf(u.sent)))) {
    const own = new Set<string>();
    const converted: ConvertedSchema = { schema: converter.convert(mediaSchema(content, m), 'request', own) };
    const same = forms.find((f) => sameSchema(f.converted, converted));
    if (same) same.media.push(m.sent);
    else {
      forms.push({ schema: bodySchema(converted.schema, m.sent, converter, encoding?.[m.sent] ?? {}), converted, media: [m.sent] });
      for (const ref of own) refs.add(ref);
    }
  }
  const first = forms[0] as (typeof forms)[number];
  const stringTypes = usable.map((m) => m.sent).filter((m) => ['text', 'binary'].includes(bodyKindOf(m)) && !first.media.includes(m));
  const text: JsonSchema = {
    type: 'string',
    description: `The body as text (base64 for binary) when ${choice} is ${stringTypes.join(' or ')}.`,
  };
  if (forms.length === 1) {
    // One schema serves every media type: it is the argument's schema itself, no anyOf.
    if (!stringTypes.length || first.schema.type === 'string') return { schema: first.schema };
    return { schema: { anyOf: [first.schema, text] } };
  }
  const branches = forms.map((f, i) =>
    formBranch(f.schema, `${choice} is ${f.media.join(' or ')}${i === 0 ? ' (the default)' : ''}`, converter),
  );
  const variants: Record<string, number> = {};
  forms.forEach((f, i) => f.media.forEach((m) => (variants[m] = i)));
  if (stringTypes.length) {
    stringTypes.forEach((m) => (variants[m] = branches.length));
    branches.push(text);
  }
  return { schema: { anyOf: branches }, variants };
}

/** A converted media type schema, with its JSON text once a comparison needed it. */
interface ConvertedSchema {
  schema: JsonSchema;
  text?: string;
}

/** The body's schema as one or more media types share it. */
interface BodyForm {
  schema: JsonSchema;
  converted: ConvertedSchema;
  media: string[];
}

/** Whether two converted schemas say the same; most bodies have one media type, and need no JSON text. */
function sameSchema(a: ConvertedSchema, b: ConvertedSchema): boolean {
  if (a.schema === b.schema) return true;
  a.text ??= JSON.stringify(a.schema);
  b.text ??= JSON.stringify(b.schema);
  return a.text === b.text;
}

/** One form of a body whose media types' schemas differ, saying which contentType it goes with. */
function formBranch(schema: JsonSchema, when: string, converter: SchemaConverter): JsonSchema {
  // a description beside a $ref replaces the target's where profiles inline it: keep the target's words
  const target = typeof schema.$ref === 'string' ? (converter.defs[schema.$ref.slice('#/$defs/'.length)] ?? schema) : schema;
  const own = typeof target.description === 'string' ? target.description.trim() : '';
  // first, so that compact profiles, which keep a description's first paragraph, keep it
  const which = `When ${when}.`;
  return { ...schema, description: own ? `${which} ${own}` : which };
}

const FILE_PART: JsonSchema = {
  type: 'object',
  description: 'A file: its bytes as base64, with an optional file name and media type.',
  properties: {
    content: { type: 'string', contentEncoding: 'base64', description: 'File content, base64-encoded.' },
    filename: { type: 'string' },
    contentType: { type: 'string' },
  },
  required: ['content'],
  additionalProperties: false,
};

/** The shape a client sends for a body of this media type (as request.ts will send it), given its Encoding Objects. */
function bodySchema(schema: JsonSchema, media: string, converter: SchemaConverter, encoding: Record<string, EncodingSpec>): JsonSchema {
  const kind = bodyKindOf(media);
  if (kind === 'json' || kind === 'form' || kind === 'ndjson') return schema;
  if (kind === 'text') return { type: 'string' };
  if (kind === 'binary') return { type: 'string', contentEncoding: 'base64', contentMediaType: media };
  // multipart: binary fields become file parts; a $ref'd object is inlined one level for that
  const target = typeof schema.$ref === 'string' ? converter.defs[schema.$ref.slice('#/$defs/'.length)] : schema;
  if (!target || !isObject(target.properties as Json)) return schema;
  const properties: JsonSchema = {};
  let changed = false;
  for (const [name, prop] of Object.entries(target.properties as Record<string, JsonSchema>)) {
    const part = filePart(prop, converter) ?? base64Text(prop, ownValue(encoding, name)?.contentType, converter);
    properties[name] = part ?? prop;
    changed ||= part !== undefined;
  }
  return changed ? { ...target, properties } : schema;
}

const resolved = (prop: JsonSchema, converter: SchemaConverter): JsonSchema =>
  typeof prop.$ref === 'string' ? (converter.defs[prop.$ref.slice('#/$defs/'.length)] ?? prop) : prop;

/**
 * A binary field as a file part, an array of them as an array of file parts. Binary is
 * `format: binary` (3.0), or 3.1's `contentMediaType` of a type that is not text with no
 * `contentEncoding` (OAS 3.1.1 "Working with Binary Data": it replaces `format: binary`).
 */
function filePart(prop: JsonSchema, converter: SchemaConverter): JsonSchema | undefined {
  const s = resolved(prop, converter);
  const describe = typeof s.description === 'string' ? { description: s.description } : {};
  const binary =
    s.format === 'binary' ||
    s.format === 'base64' ||
    (typeof s.contentMediaType === 'string' && s.contentEncoding === undefined && mediaKind(s.contentMediaType) === 'binary');
  if (s.type === 'string' && binary) return { ...FILE_PART, ...describe };
  if (s.type === 'array' && isObject(s.items as Json)) {
    const item = filePart(s.items as JsonSchema, converter);
    if (item) return { type: 'array', items: item, ...describe };
  }
  return undefined;
}

/** A string field whose Encoding contentType makes its part bytes: request.ts reads it as base64, so it says so. */
function base64Text(prop: JsonSchema, contentType: string | undefined, converter: SchemaConverter): JsonSchema | undefined {
  const s = resolved(prop, converter);
  if (s.type !== 'string' || contentType === undefined || bodyKindOf(contentType, 'string') !== 'binary') return undefined;
  const own = typeof s.description === 'string' ? `${s.description.trim()} ` : '';
  return {
    ...s,
    contentEncoding: 'base64',
    description: `${own}Base64-encoded bytes (sent as ${concreteMediaType(contentType, 'string')}).`,
  };
}

/** False when the schema (after $refs) can only be an array or a scalar. */
function canBeObject(doc: JsonObject, schema: Json | undefined, depth = 0): boolean {
  const s = followRefs(doc, schema);
  if (!isObject(s) || depth > 10) return true;
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : [];
  if (types.length > 0) return types.includes('object');
  if (s.properties !== undefined || s.additionalProperties !== undefined) return true;
  const alternatives = [...asArray(s.oneOf), ...asArray(s.anyOf)];
  if (alternatives.length > 0) return alternatives.some((a) => canBeObject(doc, a, depth + 1));
  if (asArray(s.allOf).length > 0) return asArray(s.allOf).every((a) => canBeObject(doc, a, depth + 1));
  return true;
}

const STYLES = new Set(['form', 'spaceDelimited', 'pipeDelimited', 'tabDelimited', 'deepObject']);

/**
 * The Encoding Objects of the form and multipart media types (OAS 3.1.1 §4.8.15), reduced to
 * what changes the bytes (also those of a 3.2 `querystring` parameter's form, written alike). style/explode/allowReserved apply to forms, and to multipart from 3.1
 * on (3.0.3: "SHALL be ignored if the request body media type is not
 * application/x-www-form-urlencoded"); when they apply, contentType is ignored.
 */
export function encodingsOf(doc: JsonObject, content: JsonObject, usable: BodyMedia[], styledMultipart: boolean): BodySpec['encoding'] {
  const out: NonNullable<BodySpec['encoding']> = {};
  for (const { key, sent: media } of usable) {
    const kind = bodyKindOf(media);
    const entry = content[key];
    if ((kind !== 'form' && kind !== 'multipart') || !isObject(entry) || !isObject(entry.encoding)) continue;
    const properties: Record<string, EncodingSpec> = {};
    for (const [name, raw] of Object.entries(entry.encoding)) {
      const e = followRefs(doc, raw);
      if (!isObject(e)) continue;
      const spec: EncodingSpec = {};
      const styled =
        (kind === 'form' || styledMultipart) && (e.style !== undefined || e.explode !== undefined || e.allowReserved !== undefined);
      if (styled) {
        const style = typeof e.style === 'string' && STYLES.has(e.style) ? (e.style as ParamStyle) : 'form';
        spec.style = style;
        spec.explode = typeof e.explode === 'boolean' ? e.explode : style === 'form';
        if (e.allowReserved === true) spec.allowReserved = true;
      } else if (typeof e.contentType === 'string' && e.contentType.trim() !== '') {
        spec.contentType = e.contentType.trim();
      }
      if (kind === 'multipart' && isObject(e.headers)) {
        const headers: Record<string, string> = {};
        for (const [header, rawHeader] of Object.entries(e.headers)) {
          const fixed = fixedValue(doc, followRefs(doc, rawHeader));
          if (fixed !== undefined && !/[\r\n\0]/.test(fixed) && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) headers[header] = fixed;
        }
        if (Object.keys(headers).length) spec.headers = headers;
      }
      if (Object.keys(spec).length) properties[name] = spec;
    }
    if (Object.keys(properties).length) out[media] = properties;
  }
  return Object.keys(out).length ? out : undefined;
}

/** A Header Object's value when the spec fixes it: `const`, a single `enum` value, or `default`. */
function fixedValue(doc: JsonObject, header: Json | undefined): string | undefined {
  if (!isObject(header)) return undefined;
  const schema = followRefs(doc, header.schema);
  if (!isObject(schema)) return undefined;
  const value =
    schema.const !== undefined ? schema.const : Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : schema.default;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}
