// OpenAPI 3.2 documents, which swagger-parser does not read: its references are resolved by the
// resolver swagger-parser itself is built on (json-schema-ref-parser, with the same SourceGuard
// hooks), `$self` serves as their base URI (OAS 3.2.0 §4.1.2.2), and the document is checked
// against the official 3.2 JSON Schema (vendored in ./schemas, with its license).

import { createRequire } from 'node:module';
import { posix, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { SpecError } from '../errors.js';
import { escapeToken, followRefs, isObject, type JsonObject } from './pointer.js';

/** `openapi` values read as 3.2 (the schema's own pattern: `3.2.<patch>`, an optional suffix). */
export const isOpenApi32 = (version: unknown): boolean => typeof version === 'string' && /^3\.2\.\d+(-.+)?$/.test(version);

const require = createRequire(import.meta.url);

/** json-schema-ref-parser: parse() and bundle() as swagger-parser's, without its version check. */
export function refParser(): {
  parse(source: string, options: object): Promise<unknown>;
  bundle(source: string, doc: unknown, options: object): Promise<unknown>;
} {
  const { $RefParser } = require('@apidevtools/json-schema-ref-parser') as {
    $RefParser: new () => ReturnType<typeof refParser>;
  };
  return new $RefParser();
}

/** Where the entry document's `$self` says the documents are: a URI under `uri` is read under `read`. */
export interface SelfMapping {
  uri: string;
  read: string;
}

/** The mapping the entry document's `$self` makes, or undefined when it has none. */
export function selfMappingOf(doc: JsonObject, source: string): SelfMapping | undefined {
  const retrieval = retrievalUrl(source);
  const self = selfUri(doc, retrieval);
  return self && { uri: new URL('.', self).href, read: new URL('.', retrieval).href };
}

/**
 * The document with its `$ref`s made relative to where it was read, resolved against its base
 * URI first: `$self` for the document (OAS 3.2.0 §4.1.2.2, Appendix F), a schema's `$id` within
 * it (JSON Schema 2020-12 §8.2.1). A reference to the document itself, or to a schema of it that
 * an `$id` names, becomes a fragment of it; one to a resource under the entry's `$self` is read
 * under the entry's folder (the spec lets a tool map URIs to where the documents are). Others
 * are left as written, for the source rules. `source` is the path or URL the document was read from.
 */
export function withSelfBase(doc: JsonObject, source: string, mapping: SelfMapping | undefined): JsonObject {
  const retrieval = retrievalUrl(source);
  const own = selfUri(doc, retrieval) ?? retrieval;
  const copy = structuredClone(doc);
  const { ids, refs } = basesOf(copy, own);
  if (!ids.size && own.href === retrieval.href) return doc;
  for (const { holder, base } of refs) {
    const ref = holder.$ref as string;
    if (ref.startsWith('#') && base.href === own.href) continue;
    holder.$ref = rebased(ref, base, { own, ids, retrieval, mapping });
  }
  return copy;
}

/** The URL a document was read from: its http(s) URL, or its file's. */
function retrievalUrl(source: string): URL {
  return /^https?:\/\//i.test(source) || source.startsWith('file:') ? new URL(source) : pathToFileURL(resolvePath(source));
}

/** `$self` made absolute against the retrieval URI, or undefined when absent or not a URI. */
function selfUri(doc: JsonObject, retrieval: URL): URL | undefined {
  return typeof doc.$self === 'string' && doc.$self !== '' ? absoluteBase(doc.$self, retrieval) : undefined;
}

interface RefHolder {
  holder: JsonObject;
  /** The base URI the `$ref` resolves against. */
  base: URL;
}

/**
 * Each `$ref` with its base URI, and each schema `$id` (absolute, without fragment) with the
 * pointer of its schema in the document; a loop over an explicit stack (deep documents).
 */
function basesOf(doc: JsonObject, own: URL): { ids: Map<string, string>; refs: RefHolder[] } {
  const ids = new Map<string, string>();
  const refs: RefHolder[] = [];
  const stack: { node: unknown; base: URL; at: string }[] = [{ node: doc, base: own, at: '' }];
  while (stack.length) {
    const { node, base: outer, at } = stack.pop()!;
    if (!isObject(node) && !Array.isArray(node)) continue;
    const base = isObject(node) && typeof node.$id === 'string' ? (absoluteBase(node.$id, outer) ?? outer) : outer;
    if (base !== outer) ids.set(base.href, at);
    if (isObject(node) && typeof node.$ref === 'string') refs.push({ holder: node, base });
    for (const [key, child] of Object.entries(node)) stack.push({ node: child, base, at: `${at}/${escapeToken(key)}` });
  }
  return { ids, refs };
}

/** A `$self` or `$id` made absolute against the base around it, without fragment; undefined when it is not a URI. */
function absoluteBase(id: string, outer: URL): URL | undefined {
  try {
    const base = new URL(id, outer);
    base.hash = '';
    return base;
  } catch {
    return undefined;
  }
}

/** A `$ref` resolved against `base` and written as the reader finds it: a fragment, a relative path, or as it was. */
function rebased(
  ref: string,
  base: URL,
  at: { own: URL; ids: Map<string, string>; retrieval: URL; mapping: SelfMapping | undefined },
): string {
  let target: URL;
  try {
    target = new URL(ref, base);
  } catch {
    return ref;
  }
  const hash = ref.indexOf('#');
  const fragment = hash < 0 ? '' : ref.slice(hash);
  target.hash = '';
  if (target.href === at.own.href) return fragment || '#';
  const schema = at.ids.get(target.href);
  if (schema !== undefined)
    return fragment.startsWith('#/') || fragment === '' || fragment === '#' ? `#${schema}${fragment.slice(1)}` : ref;
  const mapped =
    at.mapping && target.href.startsWith(at.mapping.uri) ? new URL(target.href.slice(at.mapping.uri.length), at.mapping.read) : target;
  if (mapped.protocol !== at.retrieval.protocol || mapped.host !== at.retrieval.host) return ref;
  return relativePath(at.retrieval, mapped) + fragment;
}

/** `to` relative to the document at `from` (same scheme and host). */
function relativePath(from: URL, to: URL): string {
  const path = posix.relative(posix.dirname(from.pathname), to.pathname);
  return path.startsWith('../') || path.startsWith('./') ? path : `./${path}`;
}

/** json-schema-ref-parser's options with every document it reads rebased on its own `$self` and `$id`s (withSelfBase). */
export function selfAwareOptions(options: object, mapping: SelfMapping | undefined): object {
  const { parse } = options as { parse: Record<string, { parse: (file: { url: string; data: unknown }) => Promise<unknown> }> };
  const aware = (read: (file: { url: string; data: unknown }) => Promise<unknown>) => async (file: { url: string; data: unknown }) => {
    const value = await read(file);
    return isObject(value) ? withSelfBase(value, file.url, mapping) : value;
  };
  return {
    ...options,
    parse: Object.fromEntries(Object.entries(parse).map(([name, parser]) => [name, { ...parser, parse: aware(parser.parse) }])),
  };
}

/**
 * Media Type Objects that are references to `components.mediaTypes` (OAS 3.2), replaced in place
 * by what they name, so that every reader of a `content` map finds the object itself; the
 * schemas inside keep their own references.
 */
export function inlineMediaTypes(doc: JsonObject): void {
  const stack: unknown[] = [doc];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    if (!isObject(node)) continue;
    if (isObject(node.content)) {
      for (const [media, entry] of Object.entries(node.content)) {
        const target =
          isObject(entry) && typeof entry.$ref === 'string' && entry.$ref.startsWith('#/components/mediaTypes/')
            ? followRefs(doc, entry)
            : undefined;
        if (isObject(target)) node.content[media] = target;
      }
    }
    stack.push(...Object.values(node));
  }
}

let validator: ValidateFunction | undefined;

/** The official 3.2 schema, compiled once (~130 ms), only when a 3.2 document is read. */
async function schemaValidator(): Promise<ValidateFunction> {
  if (validator) return validator;
  const { default: schema } = (await import('./schemas/openapi-3.2.schema.json', { with: { type: 'json' } })) as { default: object };
  const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
  const addFormats = (require('ajv-formats') as { default: (ajv: object) => void }).default;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addFormat('media-range', true); // RFC 9110 §12.5.1 media ranges: checked where they are used
  const compiled = ajv.compile(schema);
  validator = compiled;
  return compiled;
}

/** Refuses a document the official 3.2 schema refuses: one line, at the pointer of the deepest fault. */
export async function validateOpenApi32(doc: JsonObject, source: string): Promise<void> {
  const validate = await schemaValidator();
  if (validate(doc)) return;
  const fault = deepestError(validate.errors ?? []);
  if (!fault) throw new SpecError('not a valid OpenAPI 3.2 document', source + '#/');
  // a missing field, or a key whose name is wrong (propertyNames), is named in the pointer
  const key = fault.keyword === 'required' ? String(fault.params.missingProperty) : fault.propertyName;
  const where = key === undefined ? fault.instancePath : `${fault.instancePath}/${escapeToken(key)}`;
  const text = fault.propertyName === undefined ? faultText(fault) : `the name ${JSON.stringify(fault.propertyName)} ${faultText(fault)}`;
  throw new SpecError(`not a valid OpenAPI 3.2 document: ${text}`, `${source}#${where || '/'}`);
}

/** The methods that 3.0 and 3.1 give a Path Item field of their own (3.2 adds `query`). */
const FIXED_METHODS_31 = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];

/**
 * Refuses a 3.0 or 3.1 document whose `x-oai-additionalOperations` (the extension 3.2
 * standardised as `additionalOperations`) repeats a fixed field's method as 3.2's schema refuses
 * it there: one line, at the key's pointer. Other capitals (`get`) are the model's to leave out.
 */
export function checkAdditionalOperationsExtension(doc: JsonObject, source: string): void {
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const additional = isObject(item) ? item['x-oai-additionalOperations'] : undefined;
    const fixed = Object.keys(isObject(additional) ? additional : {}).find((key) => FIXED_METHODS_31.includes(key));
    if (fixed === undefined) continue;
    throw new SpecError(
      `the name ${JSON.stringify(fixed)} is a method with a field of its own: describe the operation under ${JSON.stringify(fixed.toLowerCase())}`,
      `${source}#/paths/${escapeToken(path)}/x-oai-additionalOperations/${escapeToken(fixed)}`,
    );
  }
}

/**
 * The error that says most: the deepest place, and there a keyword's own fault before "oneOf
 * failed", and the fault of a key's name before "property name must be valid".
 */
function deepestError(errors: ErrorObject[]): ErrorObject | undefined {
  const combinators = new Set(['oneOf', 'anyOf', 'if', 'not', '$ref', 'propertyNames']);
  const depth = (e: ErrorObject) => e.instancePath.split('/').length * 2 + (combinators.has(e.keyword) ? 0 : 1);
  return [...errors].sort((a, b) => depth(b) - depth(a))[0];
}

function faultText(fault: ErrorObject): string {
  const params = fault.params as Record<string, unknown>;
  // the schema's `not: { enum: [GET, …] }` on additionalOperations' keys (OAS 3.2.0, Path Item Object)
  if (fault.schemaPath.endsWith('/additionalOperations/propertyNames/not'))
    return `is a method with a field of its own: describe the operation under ${JSON.stringify(fault.propertyName?.toLowerCase())}`;
  switch (fault.keyword) {
    case 'required':
      return `${JSON.stringify(params.missingProperty)} is required here`;
    case 'unevaluatedProperties':
    case 'additionalProperties': {
      const name = params.unevaluatedProperty ?? params.additionalProperty;
      return `${JSON.stringify(name)} is not a field of this object (extensions start with "x-")`;
    }
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'false schema':
      return 'is not allowed here';
    case 'not':
      return 'holds fields that may not be used together';
    default:
      return fault.message ?? fault.keyword;
  }
}
