// How an operation pages a long list, read from its spec: an RFC 8288 `Link` response header
// (GitHub), a cursor parameter whose next value the 2xx JSON answer carries (Stripe, Slack,
// Google), page numbers, or an offset. The runtime uses it to say where the next page is when
// an answer is cut to its byte budget; the tool's description says it to the agent.

import { followRefs, isObject, type Json, type JsonObject } from '../parse/pointer.js';
import type { Pagination, ParamSpec } from '../contract/table.js';
import { jsonMediaOf } from './media-kinds.js';
import { successCodes } from './responses.js';

/** A name as compared here: lower case, without `_`, `-` and `$` (`page_token`, `pageToken` and `PageToken` are one). */
const norm = (name: string) => name.toLowerCase().replace(/[_$-]/g, '');

/** Query parameters that carry a forward cursor. `before`/`ending_before` page backwards: not the next page. */
const CURSOR_PARAMS = new Set(
  [
    'cursor',
    'after',
    'starting_after',
    'page_token',
    'next_token',
    'continuation',
    'continuation_token',
    'marker',
    'next_cursor',
    'start_cursor',
    'page_cursor',
    'next_page_token',
    'skip_token',
  ].map(norm),
);
/** Answer fields that hold the next cursor (or the next page's URL), looked for two levels deep. */
const NEXT_FIELDS = new Set(
  [
    'next_cursor',
    'next_page_token',
    'next_token',
    'next_marker',
    'next_page_cursor',
    'continuation',
    'continuation_token',
    'end_cursor',
    'next',
    'cursor',
    'after',
    'next_link',
    'next_page',
    'odata.nextLink',
  ].map(norm),
);
const HAS_MORE_FIELDS = new Set(['has_more', 'has_next', 'has_next_page', 'more', 'is_truncated'].map(norm));
const PAGE_PARAMS = new Set(['page', 'page_number', 'page_no'].map(norm));
const OFFSET_PARAMS = new Set(['offset', 'skip', 'start', 'start_index', 'start_at'].map(norm));
const SIZE_PARAMS = new Set(['per_page', 'page_size', 'limit', 'size', 'count', 'max_results', 'top', 'max', 'first'].map(norm));

/** The operation's pagination, when its spec shows one; `params` are its tool's query arguments and where they go. */
export function detectPagination(doc: JsonObject, op: JsonObject, params: ParamSpec[]): Pagination | undefined {
  const query = params.filter((p) => p.in === 'query');
  const find = (names: Set<string>) => query.find((p) => names.has(norm(p.name)));
  const size = find(SIZE_PARAMS);
  const sized = size ? { sizeParam: size.arg } : {};
  const success = successResponses(doc, op);
  if (success.some((r) => isObject(r.headers) && Object.keys(r.headers).some((h) => h.toLowerCase() === 'link'))) {
    return { style: 'link-header', ...sized };
  }
  // Stripe's search pages with a string `page` that is a cursor (`next_page` in the answer).
  const cursor = find(CURSOR_PARAMS) ?? query.find((p) => PAGE_PARAMS.has(norm(p.name)) && p.type === 'string');
  const paged = pagedBy(find(PAGE_PARAMS), find(OFFSET_PARAMS), size);
  // Without an argument to page with, the answer's schema has nothing to say.
  if (!cursor && !paged) return undefined;
  const body = success.map((r) => jsonSchemaOf(doc, r)).find((s) => s !== undefined);
  if (body === undefined) return undefined;
  if (cursor) {
    const next = cursorField(doc, body, cursor.name);
    if (next) return { style: 'cursor', param: cursor.arg, ...next, ...sized };
  }
  return paged && hasList(doc, body) ? paged : undefined;
}

/** Page numbers, else an offset with a page size: how a list answer is paged, when its arguments say so. */
function pagedBy(page: ParamSpec | undefined, offset: ParamSpec | undefined, size: ParamSpec | undefined): Pagination | undefined {
  const sized = size ? { sizeParam: size.arg } : {};
  if (page && page.type !== 'string') return { style: 'page', param: page.arg, ...sized };
  if (offset && size && offset.type !== 'string') return { style: 'offset', param: offset.arg, ...sized };
  return undefined;
}

/** One sentence for the tool's description that tells the agent how to page. */
export function paginationSentence(p: Pagination): string {
  const sizing = p.sizeParam ? ` (\`${p.sizeParam}\` sets the page size)` : '';
  switch (p.style) {
    case 'link-header':
      return `Paginated: when there are more results, the answer ends with a note giving the next page's arguments${sizing}.`;
    case 'cursor': {
      const source = p.next.endsWith('.-1.id') ? "the last item's id" : `the answer's \`${p.next}\``;
      const until = p.hasMore ? ` while \`${p.hasMore}\` is true` : '';
      return `Paginated: pass \`${p.param}\` = ${source}${until}${sizing}.`;
    }
    case 'page':
      return `Paginated: pass \`${p.param}\` = 2, 3, … for further pages${sizing}.`;
    case 'offset':
      return `Paginated: pass \`${p.param}\` = the number of items already seen${sizing}.`;
  }
}

/** `description` with the sentence after it, cut so that both stay within `max` characters (unchanged when the sentence cannot fit). */
export function withSentence(description: string, sentence: string, max: number): string {
  const room = max - sentence.length - 2;
  if (room < 20) return description;
  const head = description.length > room ? description.slice(0, room - 1).trimEnd() + '…' : description;
  return `${head}\n\n${sentence}`;
}

function successResponses(doc: JsonObject, op: JsonObject): JsonObject[] {
  const responses = isObject(op.responses) ? op.responses : {};
  return successCodes(responses)
    .map((code) => followRefs(doc, responses[code]))
    .filter(isObject);
}

function jsonSchemaOf(doc: JsonObject, response: JsonObject): JsonObject | undefined {
  if (!isObject(response.content)) return undefined;
  const media = jsonMediaOf(response.content);
  const entry = media ? followRefs(doc, response.content[media]) : undefined;
  const schema = isObject(entry) ? followRefs(doc, entry.schema) : undefined;
  return isObject(schema) ? schema : undefined;
}

/** An object schema's properties, through `$ref`s and `allOf` (and the object branches of anyOf/oneOf). */
function propertiesOf(doc: JsonObject, schema: Json | undefined, depth = 0): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const resolved = followRefs(doc, schema);
  if (!isObject(resolved) || depth > 8) return out;
  if (isObject(resolved.properties)) {
    for (const [name, sub] of Object.entries(resolved.properties)) {
      const target = followRefs(doc, sub);
      if (isObject(target)) out.set(name, target);
    }
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const parts = resolved[key];
    if (!Array.isArray(parts)) continue;
    for (const part of parts) for (const [name, sub] of propertiesOf(doc, part, depth + 1)) if (!out.has(name)) out.set(name, sub);
  }
  return out;
}

const isArraySchema = (s: JsonObject) => s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array')) || s.items !== undefined;

/** The answer is a list, or an object with a list at its first two levels. */
function hasList(doc: JsonObject, body: JsonObject): boolean {
  if (isArraySchema(body)) return true;
  for (const sub of propertiesOf(doc, body).values()) {
    if (isArraySchema(sub)) return true;
    for (const inner of propertiesOf(doc, sub).values()) if (isArraySchema(inner)) return true;
  }
  return false;
}

/**
 * Where the answer carries the next cursor. Stripe's `starting_after` takes the last item's
 * id, with `has_more` saying there is more; otherwise a `next_cursor`-like field at the top or
 * one level down (`meta.next_cursor`, `links.next`, Slack's `response_metadata.next_cursor`).
 */
function cursorField(doc: JsonObject, body: JsonObject, param: string): { next: string; hasMore?: string } | undefined {
  const top = propertiesOf(doc, body);
  const hasMoreName = [...top.keys()].find((name) => HAS_MORE_FIELDS.has(norm(name)));
  const hasMore = hasMoreName ? { hasMore: hasMoreName } : {};
  if (norm(param) === 'startingafter') {
    for (const [name, sub] of top) {
      if (isArraySchema(sub) && propertiesOf(doc, sub.items).has('id')) return { next: `${name}.-1.id`, ...hasMore };
    }
  }
  for (const [name, sub] of top)
    if (NEXT_FIELDS.has(norm(name)) && !isArraySchema(sub) && isScalarish(sub)) return { next: name, ...hasMore };
  for (const [outer, sub] of top) {
    for (const [name, inner] of propertiesOf(doc, sub)) {
      if (NEXT_FIELDS.has(norm(name)) && isScalarish(inner)) return { next: `${outer}.${name}`, ...hasMore };
    }
  }
  return undefined;
}

/** A schema whose value can be a cursor: a string or number, or undocumented. */
function isScalarish(schema: JsonObject): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return types.length === 0 ? schema.properties === undefined : types.some((t) => t === 'string' || t === 'integer' || t === 'number');
}
