// Upstream HTTP answer → MCP tool result. Status ≥ 400 is a tool error (`isError: true`),
// not a protocol error, so that the model sees what went wrong and can correct its call.

import type { CallToolResult } from '@modelcontextprotocol/server';
import { isTextual, mediaKind } from '../../../contract/media.js';
import { NO_JSON, NOTHING, plainStructure, StructureProblem, toolError, type Structurer } from '../../mcp/output.js';
import { fitJson, fitText, withNulls, type AnswerBudget } from './answer-budget.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../../contract/limits.js';

export interface UpstreamAnswer {
  status: number;
  statusText: string;
  contentType: string;
  /** The body as read, at most `limit` bytes. */
  bytes: Uint8Array;
  /** True when the body was longer than `limit` and the rest was not read. */
  truncated: boolean;
  /** Declared length, when the upstream sent one. */
  declaredLength?: number;
  /** The RFC 8288 Link header, when the upstream sent one (where the next page is). */
  link?: string;
  /** `METHOD url-without-query`, for messages (a query string can carry secrets). */
  label: string;
  /** URL of the request without its query, used as the URI of binary resources. */
  uri: string;
}

/** An upstream's error answer as a failed resources/read reports it: the body only as a bounded excerpt, credentials taken out. */
export interface UpstreamRefusal {
  status: number;
  statusText: string;
  label: string;
  excerpt: string;
}

const decoder = new TextDecoder();
const ERROR_EXCERPT_BYTES = 4_096;

function truncationNote(answer: UpstreamAnswer): string {
  const total = answer.declaredLength !== undefined ? `${answer.declaredLength} bytes` : 'more';
  return `\n\n[response truncated: showing the first ${answer.bytes.length} bytes of ${total}; raise --max-response-bytes to see more]`;
}

/** The start of an error answer's body, as failures quote it: bounded, for a body may echo what was sent. */
export function errorExcerpt(answer: UpstreamAnswer): string {
  const excerpt = decoder.decode(answer.bytes.subarray(0, ERROR_EXCERPT_BYTES));
  const more = answer.bytes.length > ERROR_EXCERPT_BYTES || answer.truncated ? ' […]' : '';
  return excerpt ? excerpt + more : '';
}

/** Why a JSON answer nested past MAX_JSON_DEPTH is refused, naming the operation and the limit. */
function tooDeep(answer: UpstreamAnswer, statusLine: string, operation: string): string {
  return `${operation}: the API's answer (${statusLine} from ${answer.label}) nests JSON deeper than ${MAX_JSON_DEPTH} levels, the most this server passes on; nothing of it was returned`;
}

/**
 * `budget`: --max-answer-bytes and what the tool knows of its pages; a good answer over it is
 * cut (answer-budget.ts), with a note in a text block of its own and in `_meta`.
 * `operation`: the tool's name, for the error of an answer nested too deep.
 */
export function toToolResult(
  answer: UpstreamAnswer,
  structure: Structurer = plainStructure,
  budget?: AnswerBudget,
  operation = answer.label,
): CallToolResult {
  const media = answer.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const statusLine = `HTTP ${answer.status}${answer.statusText ? ' ' + answer.statusText : ''}`;
  if (answer.status >= 400) {
    const excerpt = errorExcerpt(answer);
    const head = `${statusLine} from ${answer.label}`;
    return toolError(excerpt ? `${head}\n${excerpt}` : head);
  }
  // What the helpers below need of this answer, in one object rather than closures made for each call.
  const shaping: Shaping = { answer, statusLine, structure };
  if (answer.bytes.length === 0) return shapeText(shaping, `${statusLine}: success, empty body`, NOTHING);
  const kind = mediaKind(media);
  // No Content-Type at all: most likely text (often JSON without a label), shown as is.
  if (media === '' || isTextual(kind)) {
    const text = decoder.decode(answer.bytes);
    const maxBytes = budget?.maxBytes ?? 0;
    if (answer.truncated) return shapeText(shaping, fitText(text, maxBytes) + truncationNote(answer), NOTHING);
    if (kind === 'json' || (media === '' && /^\s*[[{]/.test(text))) {
      // Bounded as request bodies are (web/web-steps.ts, jsonBody): deeper, the value cannot even be sent back.
      if (jsonDeeperThan(text, MAX_JSON_DEPTH)) return toolError(tooDeep(answer, statusLine, operation));
      let value: unknown = NO_JSON;
      try {
        value = JSON.parse(text);
      } catch {
        // not JSON after all: passed on as text
      }
      if (value !== NO_JSON && budget !== undefined) return budgeted(shaping, text, value, budget);
      return shapeText(shaping, fitText(text, maxBytes), value);
    }
    return shapeText(shaping, fitText(text, maxBytes), NO_JSON);
  }
  if (answer.truncated) {
    return shapeText(
      shaping,
      `${answer.label} answered ${media} of ${answer.declaredLength ?? 'more than ' + answer.bytes.length} bytes, above --max-response-bytes; not returned.`,
      NOTHING,
    );
  }
  const data = Buffer.from(answer.bytes).toString('base64');
  const binary: CallToolResult['content'][number] = media.startsWith('image/')
    ? { type: 'image', data, mimeType: media }
    : media.startsWith('audio/')
      ? { type: 'audio', data, mimeType: media }
      : { type: 'resource', resource: { uri: answer.uri, mimeType: media || 'application/octet-stream', blob: data } };
  const structured = structure(NO_JSON);
  if (structured instanceof StructureProblem) {
    return toolError(`${statusLine} from ${answer.label}, but ${structured.reason}`, binary);
  }
  return { content: [binary], ...(structured ? { structuredContent: structured } : {}) };
}

/** What shaping one good answer needs: the answer, its status line, and how its JSON is structured. */
interface Shaping {
  answer: UpstreamAnswer;
  statusLine: string;
  structure: Structurer;
}

/** A good answer's text, with its JSON as structuredContent when that is what the tool promises. */
function shapeText({ answer, statusLine, structure }: Shaping, text: string, json: unknown): CallToolResult {
  const value = structure(json);
  if (value === undefined) return { content: [{ type: 'text', text }] };
  if (value instanceof StructureProblem) {
    return toolError(`${statusLine} from ${answer.label}, but ${value.reason}:\n${text}`);
  }
  return { content: [{ type: 'text', text }], structuredContent: value };
}

/**
 * A JSON answer within the budget. What was kept must still be what the outputSchema
 * promises: placeholders become null (every loosened response schema accepts null) when the
 * strings do not fit it; an answer that fits neither way goes as text alone.
 */
function budgeted(shaping: Shaping, text: string, value: unknown, budget: AnswerBudget): CallToolResult {
  const fitted = fitJson(text, value, budget, shaping.answer.link);
  if (fitted.note === undefined) return shapeText(shaping, fitted.text, fitted.value);
  const noted = (result: CallToolResult): CallToolResult => ({
    ...result,
    content: [...result.content, { type: 'text', text: fitted.note ?? '' }],
    _meta: { ...result._meta, 'mcp-gen/answer': { note: fitted.note, ...fitted.meta } },
  });
  const first = shapeText(shaping, fitted.text, fitted.value);
  if (!first.isError) return noted(first);
  if (fitted.text === text) return first; // nothing cut: the answer itself does not fit the schema
  if (fitted.placeholders.length > 0) {
    const nulled = withNulls(fitted.value, fitted.placeholders);
    const second = shapeText(shaping, JSON.stringify(nulled), nulled);
    if (!second.isError) return noted(second);
  }
  return noted({ content: [{ type: 'text', text: fitted.text }] });
}
