// OpenAPI 3.2 documents, which swagger-parser does not read: its references are resolved by the
// resolver swagger-parser itself is built on (json-schema-ref-parser, with the same SourceGuard
// hooks), `$self` serves as their base URI (OAS 3.2.0 §4.1.2.2), and the document is checked
// against the official 3.2 JSON Schema (vendored in ./schemas, with its license).

import { createRequire } from 'node:module';
import { resolve as resolvePath } from 'node:path';
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

/**
 * The document with its `$ref`s made relative to where it was read, resolved against `$self`
 * first (OAS 3.2.0 §4.1.2.2, Appendix F): a reference to `$self` itself is a fragment of this
 * document, and one to a resource beside `$self` is read beside the file (the spec lets a tool
 * map URIs to where the documents are). Others are left as written, for the source rules.
 */
export function withSelfBase(doc: JsonObject, source: string): JsonObject {
  const self = selfUri(doc, source);
  if (self === undefined) return doc;
  const folder = new URL('.', self).href;
  const rebase = (ref: string): string => {
    let target: URL;
    try {
      target = new URL(ref, self);
    } catch {
      return ref;
    }
    const fragment = target.hash;
    target.hash = '';
    if (target.href === self.href) return fragment || '#';
    return target.href.startsWith(folder) ? target.href.slice(folder.length) + fragment : ref;
  };
  return rebaseRefs(doc, rebase) as JsonObject;
}

/** `$self` made absolute against the retrieval URI, or undefined when absent or not a URI. */
function selfUri(doc: JsonObject, source: string): URL | undefined {
  if (typeof doc.$self !== 'string' || doc.$self === '') return undefined;
  const retrieval = /^https?:\/\//i.test(source) ? source : pathToFileURL(resolvePath(source)).href;
  try {
    const self = new URL(doc.$self, retrieval);
    self.hash = '';
    return self;
  } catch {
    return undefined;
  }
}

/** A copy of `node` with each `$ref` string passed through `rebase`; a loop over an explicit stack (deep documents). */
function rebaseRefs(node: unknown, rebase: (ref: string) => string): unknown {
  const root = { value: structuredClone(node) };
  const stack: unknown[] = [root.value];
  while (stack.length) {
    const current = stack.pop();
    if (Array.isArray(current)) stack.push(...(current as unknown[]));
    else if (isObject(current)) {
      if (typeof current.$ref === 'string') current.$ref = rebase(current.$ref);
      stack.push(...Object.values(current));
    }
  }
  return root.value;
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
