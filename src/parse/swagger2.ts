// Swagger 2.0 → OpenAPI 3.0 shape, so that the model speaks one dialect.
// Covers what changes a request on the wire: host/basePath/schemes → servers, `body` and
// `formData` → requestBody, consumes/produces → media types, collectionFormat → style/explode,
// securityDefinitions → securitySchemes. Schemas stay where they are (`#/definitions/...`):
// the model follows refs by pointer, whatever the dialect.

import { followRefs, isObject, type Json, type JsonObject } from './pointer.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { mediaKind } from '../contract/media.js';
import type { SubschemaKeywordName, ValueKeywordName } from '../contract/schema-keywords.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
// Keywords a Swagger 2.0 non-body parameter carries that belong in an OpenAPI 3 `schema`
// (Swagger 2.0 Parameter Object fields); checked against the shared keyword table.
const SCHEMA_KEYS = [
  'type',
  'format',
  'items',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'enum',
  'multipleOf',
] as const satisfies readonly ('type' | SubschemaKeywordName | ValueKeywordName)[];

export function convertSwagger2(spec: JsonObject, warnings: GenerationWarning[]): JsonObject {
  const globalConsumes = stringList(spec.consumes) ?? ['application/json'];
  const globalProduces = stringList(spec.produces) ?? ['application/json'];
  const paths: JsonObject = {};
  const convertedParams = new Map<JsonObject, JsonObject>();
  for (const [path, rawItem] of Object.entries(isObject(spec.paths) ? spec.paths : {})) {
    const item = followRefs(spec, rawItem, 'keep');
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    const out: JsonObject = {};
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const consumes = stringList(op.consumes) ?? globalConsumes;
      const produces = stringList(op.produces) ?? globalProduces;
      const params = mergeParams(spec, shared, Array.isArray(op.parameters) ? op.parameters : []);
      const converted: JsonObject = { ...op };
      delete converted.consumes;
      delete converted.produces;
      converted.parameters = [];
      const form: JsonObject[] = [];
      for (const p of params) {
        if (p.in === 'body') {
          converted.requestBody = {
            ...(typeof p.description === 'string' ? { description: p.description } : {}),
            required: p.required === true,
            content: Object.fromEntries(consumes.filter(isBodyMedia).map((m) => [m, { schema: p.schema ?? {} }])),
          };
          if (Object.keys((converted.requestBody as JsonObject).content as JsonObject).length === 0) {
            (converted.requestBody as JsonObject).content = { 'application/json': { schema: p.schema ?? {} } };
          }
        } else if (p.in === 'formData') {
          form.push(p);
        } else {
          converted.parameters.push(convertedOnce(p, convertedParams));
        }
      }
      if (form.length > 0) converted.requestBody = formBody(form, consumes);
      converted.responses = convertResponses(spec, op.responses, produces);
      out[method] = converted;
    }
    paths[path] = out;
  }

  const result: JsonObject = {
    openapi: '3.0.3',
    info: spec.info ?? { title: 'API', version: '1.0.0' },
    servers: servers(spec, warnings),
    paths,
    components: { securitySchemes: securitySchemes(spec.securityDefinitions) },
  };
  for (const key of ['security', 'tags', 'definitions', 'parameters', 'responses', 'externalDocs'] as const) {
    if (spec[key] !== undefined) result[key] = spec[key] as Json;
  }
  for (const [key, value] of Object.entries(spec)) if (key.startsWith('x-')) result[key] = value;
  return result;
}

function stringList(value: Json | undefined): string[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

const isBodyMedia = (m: string) => !['form', 'multipart'].includes(mediaKind(m));

/** Path-level parameters apply unless the operation redefines the same name + location. */
function mergeParams(spec: JsonObject, shared: Json[], own: Json[]): JsonObject[] {
  const byKey = new Map<string, JsonObject>();
  for (const raw of [...shared, ...own]) {
    const p = followRefs(spec, raw, 'keep');
    if (isObject(p) && typeof p.name === 'string' && typeof p.in === 'string') byKey.set(`${p.in}:${p.name}`, p);
  }
  return [...byKey.values()];
}

function schemaOf(p: JsonObject): JsonObject {
  const schema: JsonObject = {};
  for (const key of SCHEMA_KEYS) if (p[key] !== undefined) schema[key] = p[key] as Json;
  if (schema.type === 'file') {
    schema.type = 'string';
    schema.format = 'binary';
  }
  if (isObject(schema.items)) schema.items = schemaOf(schema.items);
  if (p['x-nullable'] === true) schema.nullable = true;
  return schema;
}

/**
 * Swagger 2.0 Parameter Object `collectionFormat` (default csv) as an OpenAPI 3 style: csv is
 * `a,b,c` (form in a query or form body, simple in a path or header), ssv/pipes/tsv join with
 * a space, `|` or a tab, and `multi` (query and formData only) repeats the name.
 */
function collectionStyle(p: JsonObject): { style: string; explode: boolean } {
  const format = typeof p.collectionFormat === 'string' ? p.collectionFormat : 'csv';
  if (format === 'multi') return { style: 'form', explode: true };
  if (format === 'ssv') return { style: 'spaceDelimited', explode: false };
  if (format === 'pipes') return { style: 'pipeDelimited', explode: false };
  if (format === 'tsv') return { style: 'tabDelimited', explode: false };
  return { style: p.in === 'query' || p.in === 'formData' ? 'form' : 'simple', explode: false };
}

/**
 * A Parameter Object converted once however many operations share it (a path item's, a `$ref`'d
 * one): as in a 3.x document, they then share one object, whose schema the model converts once.
 */
function convertedOnce(p: JsonObject, converted: Map<JsonObject, JsonObject>): JsonObject {
  let out = converted.get(p);
  if (out === undefined) converted.set(p, (out = convertParam(p)));
  return out;
}

function convertParam(p: JsonObject): JsonObject {
  const out: JsonObject = { name: p.name as string, in: p.in as string, required: p.required === true || p.in === 'path' };
  if (typeof p.description === 'string') out.description = p.description;
  out.schema = schemaOf(p);
  if (p.type === 'array') Object.assign(out, collectionStyle(p));
  for (const [key, value] of Object.entries(p)) if (key.startsWith('x-')) out[key] = value;
  return out;
}

function formBody(form: JsonObject[], consumes: string[]): JsonObject {
  // `type: file` is the 2.0 way; an array of files is not 2.0 but springfox writes it
  const hasFile = form.some((p) => p.type === 'file' || (isObject(p.items) && p.items.type === 'file'));
  const media = hasFile || consumes.some((m) => mediaKind(m) === 'multipart') ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
  const properties: JsonObject = {};
  const required: string[] = [];
  const encoding: JsonObject = {};
  for (const p of form) {
    const schema = schemaOf(p);
    if (typeof p.description === 'string') schema.description = p.description;
    properties[p.name as string] = schema;
    if (p.required === true) required.push(p.name as string);
    // An array of files is a part per file, not a list in one field.
    const files = isObject(p.items) && p.items.type === 'file';
    if (p.type === 'array' && !files) encoding[p.name as string] = collectionStyle(p);
  }
  return {
    required: required.length > 0,
    content: {
      [media]: {
        schema: { type: 'object', properties, ...(required.length ? { required } : {}) },
        ...(Object.keys(encoding).length ? { encoding } : {}),
      },
    },
  };
}

function convertResponses(spec: JsonObject, responses: Json | undefined, produces: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [code, raw] of Object.entries(isObject(responses) ? responses : {})) {
    const r = followRefs(spec, raw, 'keep');
    if (!isObject(r)) continue;
    const converted: JsonObject = { description: typeof r.description === 'string' ? r.description : '' };
    if (r.schema !== undefined) {
      converted.content = Object.fromEntries(produces.map((m) => [m, { schema: r.schema as Json }]));
    }
    out[code] = converted;
  }
  return out;
}

function servers(spec: JsonObject, warnings: GenerationWarning[]): Json[] {
  const basePath = typeof spec.basePath === 'string' ? spec.basePath.replace(/\/+$/, '') : '';
  if (typeof spec.host !== 'string' || spec.host === '') {
    warnings.push(warning('no-base-url', 'Swagger 2.0 spec has no "host": the server needs --base-url or API_BASE_URL'));
    return basePath ? [{ url: basePath }] : [];
  }
  const schemes = stringList(spec.schemes) ?? ['https'];
  const ordered = [...schemes].sort((a, b) => Number(b === 'https') - Number(a === 'https'));
  return ordered.map((scheme) => ({ url: `${scheme}://${spec.host as string}${basePath}` }));
}

function securitySchemes(defs: Json | undefined): JsonObject {
  const out: JsonObject = {};
  for (const [name, def] of Object.entries(isObject(defs) ? defs : {})) {
    if (!isObject(def)) continue;
    const description: JsonObject = typeof def.description === 'string' ? { description: def.description } : {};
    if (def.type === 'basic') out[name] = { type: 'http', scheme: 'basic', ...description };
    else if (def.type === 'apiKey') out[name] = { type: 'apiKey', name: def.name ?? name, in: def.in ?? 'header', ...description };
    else if (def.type === 'oauth2') {
      const scopes = isObject(def.scopes) ? def.scopes : {};
      const flow = def.flow === 'accessCode' ? 'authorizationCode' : def.flow === 'application' ? 'clientCredentials' : String(def.flow);
      out[name] = {
        type: 'oauth2',
        ...description,
        flows: {
          [flow]: {
            ...(def.authorizationUrl !== undefined ? { authorizationUrl: def.authorizationUrl } : {}),
            ...(def.tokenUrl !== undefined ? { tokenUrl: def.tokenUrl } : {}),
            scopes,
          },
        },
      };
    }
  }
  return out;
}
