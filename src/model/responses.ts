// Responses Objects (OAS 3.1.1 §4.8.16-17): the success answer's JSON schema becomes the tool's
// outputSchema, and the success answers' Link Objects (§4.8.20) name the operations an agent
// may call next.

import { followRefs, isObject, parsePointer, type JsonObject } from '../parse/pointer.js';
import type { JsonSchema, OutputSpec, ToolSpec } from '../contract/table.js';
import { mediaKind } from '../contract/media.js';
import type { SchemaConverter } from './schema.js';
import { oneLine } from './text.js';

/**
 * outputSchema from the first 2xx response with a JSON schema. MCP wants an object at the
 * root, so any other answer (array, string, or a schema that may be either) is wrapped as
 * `{ result }`. The shared schemas it names are added to `refs`.
 */
export function buildOutput(doc: JsonObject, converter: SchemaConverter, op: JsonObject, refs: Set<string>): OutputSpec | undefined {
  const responses = isObject(op.responses) ? op.responses : {};
  const codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort();
  for (const code of codes) {
    const response = followRefs(doc, responses[code]);
    if (!isObject(response) || !isObject(response.content)) continue;
    const media = Object.keys(response.content).find((m) => mediaKind(m) === 'json');
    const entry = media ? response.content[media] : undefined;
    if (!isObject(entry) || entry.schema === undefined) continue;
    const schema = converter.convert(entry.schema, 'response', refs);
    const wrap = !isObjectRoot(schema, converter);
    const root: JsonSchema = wrap ? { type: 'object', properties: { result: schema } } : { ...schema, type: 'object' };
    // OAS 3.2's response `summary` says what the answer is, where the schema may not
    const summary = typeof response.summary === 'string' ? oneLine(response.summary) : '';
    if (summary && root.description === undefined) root.description = summary;
    return { schema: root, wrap };
  }
  return undefined;
}

/**
 * The first 2xx answer of a sequential media type whose items OAS 3.2's `itemSchema` describes
 * (JSON Lines, JSON Text Sequences, server-sent events…): its media type and each item's schema.
 */
export function buildSequence(doc: JsonObject, converter: SchemaConverter, op: JsonObject, refs: Set<string>): ToolSpec['sequence'] {
  const responses = isObject(op.responses) ? op.responses : {};
  for (const code of Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()) {
    const response = followRefs(doc, responses[code]);
    if (!isObject(response) || !isObject(response.content)) continue;
    for (const [mediaType, entry] of Object.entries(response.content)) {
      if (isObject(entry) && entry.itemSchema !== undefined) {
        return { mediaType, itemSchema: converter.convert(entry.itemSchema, 'response', refs) };
      }
    }
  }
  return undefined;
}

/** True when every value the schema allows (besides null) is an object. */
export function isObjectRoot(schema: JsonSchema, converter: Pick<SchemaConverter, 'defs'>, depth = 0): boolean {
  if (depth > 20) return false;
  if (typeof schema.$ref === 'string') {
    const target = converter.defs[schema.$ref.slice('#/$defs/'.length)];
    return target !== undefined && isObjectRoot(target, converter, depth + 1);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length) return types.every((t) => t === 'object' || t === 'null') && types.includes('object');
  const allOf = schema.allOf as JsonSchema[] | undefined;
  if (allOf?.length) return allOf.some((s) => isObjectRoot(s, converter, depth + 1));
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length) return anyOf.every((s) => isObjectRoot(s, converter, depth + 1) || s.type === 'null');
  return schema.properties !== undefined;
}

/**
 * The operations a success response's links name (Link Object: `operationId`, or an
 * `operationRef` pointing into this document), as operationIds or `METHOD /path`.
 */
export function linkedOperations(doc: JsonObject, op: JsonObject): string[] {
  const out: string[] = [];
  for (const [code, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
    if (!/^2/.test(code)) continue;
    const response = followRefs(doc, raw);
    if (!isObject(response) || !isObject(response.links)) continue;
    for (const rawLink of Object.values(response.links)) {
      const target = linkTarget(followRefs(doc, rawLink));
      if (target !== undefined) out.push(target);
    }
  }
  return out;
}

function linkTarget(link: unknown): string | undefined {
  if (!isObject(link)) return undefined;
  if (typeof link.operationId === 'string') return link.operationId;
  if (typeof link.operationRef !== 'string' || !link.operationRef.startsWith('#/paths/')) return undefined;
  const tokens = parsePointer(link.operationRef);
  return tokens && tokens.length === 3 ? `${tokens[2]?.toUpperCase()} ${tokens[1]}` : undefined;
}

/** Each tool's `then`: the tools its links lead to, by name, tools only, in link order. */
export function linkSequences(tools: ToolSpec[], targets: Map<ToolSpec, string[]>): void {
  const byKey = new Map<string, ToolSpec>();
  for (const t of tools) {
    if (t.asTool === false) continue;
    if (t.operationId) byKey.set(t.operationId, t);
    byKey.set(`${t.http.method} ${t.http.path}`, t);
  }
  for (const [tool, keys] of targets) {
    const names = [...new Set(keys.map((k) => byKey.get(k)?.name).filter((n): n is string => n !== undefined && n !== tool.name))];
    if (names.length) tool.then = names;
  }
}
