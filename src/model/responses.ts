// Responses Objects (OAS 3.1.1 §4.8.16-17): the success answer's JSON schema becomes the tool's
// outputSchema, and the success answers' Link Objects (§4.8.20) name the operations an agent
// may call next.

import { followRefs, isObject, parsePointer, type Json, type JsonObject } from '../parse/pointer.js';
import type { JsonSchema, OutputSpec, StreamEndMark, ToolSpec } from '../contract/table.js';
import { essence, sequenceFormat, type SequenceFormat } from '../contract/media.js';
import { jsonMediaOf, kindOf } from './media-kinds.js';
import { STREAM_ENDS } from '../contract/table.js';
import type { SchemaConverter } from './schema.js';
import { oneLine } from './text.js';

const SUCCESS_CODE = /^2(\d\d|XX)$/i;

/** The Responses Object's 2xx status codes (and `2XX`), in order. */
export const successCodes = (responses: JsonObject): string[] =>
  Object.keys(responses)
    .filter((c) => SUCCESS_CODE.test(c))
    .sort();

/**
 * outputSchema from the first 2xx response with a JSON schema. MCP wants an object at the
 * root, so any other answer (array, string, or a schema that may be either) is wrapped as
 * `{ result }`. The shared schemas it names are added to `refs`.
 */
export function buildOutput(doc: JsonObject, converter: SchemaConverter, op: JsonObject, refs: Set<string>): OutputSpec | undefined {
  const responses = isObject(op.responses) ? op.responses : {};
  for (const code of successCodes(responses)) {
    const response = followRefs(doc, responses[code]);
    if (!isObject(response) || !isObject(response.content)) continue;
    const media = jsonMediaOf(response.content);
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
 * The first 2xx answer's media type when every type it documents is bytes (`image/png`,
 * `application/pdf`); `*\/*` says nothing of what comes. Undefined when JSON or text may come.
 */
export function binaryAnswerOf(doc: JsonObject, op: JsonObject): string | undefined {
  const responses = isObject(op.responses) ? op.responses : {};
  const content = successCodes(responses)
    .map((c) => followRefs(doc, responses[c]))
    .map((r) => (isObject(r) && isObject(r.content) ? r.content : undefined))
    .find((c) => c !== undefined && Object.keys(c).length > 0);
  const types = Object.keys(content ?? {});
  if (types.length === 0 || !types.every((m) => kindOf(m) === 'binary')) return undefined;
  return types.map(essence).find((m) => m !== '*/*');
}

/**
 * The first 2xx answer of a sequential media type (server-sent events, JSON Lines, JSON Text
 * Sequences): its media type and, where OAS 3.2's `itemSchema` describes them, each item's
 * schema. For server-sent events the items are the events, whose `data` the server parses as
 * JSON: their schema takes the one `contentSchema` gives `data` (OAS 3.2 §4.14.4.2).
 */
export function buildSequence(
  doc: JsonObject,
  converter: SchemaConverter,
  op: JsonObject,
  refs: Set<string>,
  warn: (message: string) => void = () => undefined,
): ToolSpec['sequence'] {
  const responses = isObject(op.responses) ? op.responses : {};
  for (const code of successCodes(responses)) {
    const response = followRefs(doc, responses[code]);
    if (!isObject(response) || !isObject(response.content)) continue;
    for (const [mediaType, entry] of Object.entries(response.content)) {
      const format = sequenceFormat(mediaType);
      if (format === undefined) continue;
      const given = isObject(entry) ? (entry.itemSchema ?? recordSchemaBefore32(doc, format, entry.schema)) : undefined;
      const raw = format === 'sse' ? eventDataSchema(doc, given) : given;
      const ends =
        format === 'sse'
          ? streamEnds(isObject(entry) ? (entry[STREAM_END_KEY] ?? op[STREAM_END_KEY]) : op[STREAM_END_KEY], warn)
          : undefined;
      return {
        mediaType,
        ...(raw !== undefined ? { itemSchema: converter.convert(raw, 'response', refs) } : {}),
        ...(ends !== undefined ? { ends } : {}),
      };
    }
  }
  return undefined;
}

/** The extension naming the events that end a stream of server-sent events, on its media type or operation. */
const STREAM_END_KEY = 'x-mcp-stream-end';

/**
 * The events `x-mcp-stream-end` names: one `{ event, data }` (either or both, strings) or a
 * list of them; a mark that names neither is left out with a warning.
 */
function streamEnds(given: Json | undefined, warn: (message: string) => void): StreamEndMark[] | undefined {
  if (given === undefined) return undefined;
  const marks: StreamEndMark[] = [];
  for (const mark of Array.isArray(given) ? given : [given]) {
    const event = isObject(mark) && typeof mark.event === 'string' ? mark.event : undefined;
    const data = isObject(mark) && typeof mark.data === 'string' ? mark.data : undefined;
    if (event === undefined && data === undefined)
      warn(`${STREAM_END_KEY}: ${JSON.stringify(mark)} names no "event" or "data" string; left out`);
    else marks.push({ ...(event !== undefined ? { event } : {}), ...(data !== undefined ? { data } : {}) });
  }
  return marks.length > 0 ? marks : undefined;
}

/**
 * Before 3.2 there is no itemSchema, and a JSON Lines or json-seq answer's `schema` that is an
 * object can only describe one record (the whole answer is a sequence, never one object): it is
 * then the item schema. 3.2 gives `schema` to the whole sequence, and itemSchema to each item.
 */
function recordSchemaBefore32(doc: JsonObject, format: SequenceFormat, schema: Json | undefined): Json | undefined {
  if (format === 'sse' || String(doc.openapi ?? '').startsWith('3.2')) return undefined;
  const resolved = followRefs(doc, schema);
  return isObject(resolved) && (resolved.type === 'object' || isObject(resolved.properties)) ? schema : undefined;
}

/** The schema of an event's `data` once parsed: its `contentSchema` where the itemSchema gives one. */
function eventDataSchema(doc: JsonObject, itemSchema: Json | undefined): Json | undefined {
  const event = followRefs(doc, itemSchema);
  const properties = isObject(event) ? followRefs(doc, event.properties) : undefined;
  const data = isObject(properties) ? followRefs(doc, properties.data) : undefined;
  return isObject(data) ? data.contentSchema : undefined;
}

/** The sentence a streaming tool's description ends with. */
export const STREAMING_SENTENCE =
  'The API may answer with a stream: the server then reads it item by item, reports progress while it runs, and returns the items (as many as fit) once it ends.';

/**
 * The outputSchema of a tool that may stream: the streamed items, or, when the operation also
 * answers one JSON value (a chat API's `stream: false`), either shape. A JSON answer wrapped as
 * `{ result }` cannot share the root with the items: then no shape is promised.
 */
export function streamingOutput(sequence: NonNullable<ToolSpec['sequence']>, json: OutputSpec | undefined): OutputSpec | undefined {
  const streamed = sequenceOutput(sequence);
  if (json === undefined) return streamed;
  if (json.wrap) return undefined;
  return { schema: { type: 'object', anyOf: [streamed.schema, json.schema] }, wrap: false };
}

/**
 * A streaming tool's outputSchema: the items read (each as `itemSchema` says, an event
 * `{ data, event, id, retry }` for server-sent events), how many were left out to fit the
 * answer budget, the records that were not JSON, and why the reading ended.
 */
export function sequenceOutput(sequence: NonNullable<ToolSpec['sequence']>): OutputSpec {
  const item = sequence.itemSchema ?? {};
  const items =
    sequenceFormat(sequence.mediaType) === 'sse'
      ? {
          type: 'object',
          properties: { data: item, event: { type: 'string' }, id: { type: 'string' }, retry: { type: 'integer' } },
          required: ['data'],
        }
      : item;
  return {
    schema: {
      type: 'object',
      properties: {
        items: { type: 'array', items },
        omitted: { type: 'integer', description: 'Records read but left out to stay within the answer budget.' },
        note: { type: 'string' },
        malformed: {
          type: 'array',
          description: 'Records that were not JSON, as text, by their position in the stream.',
          items: { type: 'object', properties: { at: { type: 'integer' }, text: { type: 'string' }, note: { type: 'string' } } },
        },
        ended: { type: 'string', enum: [...STREAM_ENDS], description: 'Why the reading ended.' },
      },
      required: ['items', 'ended'],
    },
    wrap: false,
  };
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
  const responses = isObject(op.responses) ? op.responses : {};
  for (const code in responses) {
    if (!code.startsWith('2')) continue;
    const response = followRefs(doc, responses[code]);
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
  if (targets.size === 0) return;
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
