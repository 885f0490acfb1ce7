// Upstream HTTP answer → MCP tool result. Status ≥ 400 is a tool error (`isError: true`),
// not a protocol error, so that the model sees what went wrong and can correct its call.

import type { CallToolResult } from '@modelcontextprotocol/server';

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
  /** `METHOD url-without-query`, for messages (a query string can carry secrets). */
  label: string;
  /** URL of the request without its query, used as the URI of binary resources. */
  uri: string;
}

const decoder = new TextDecoder();
const ERROR_EXCERPT_BYTES = 4_096;

export function isJsonMedia(contentType: string): boolean {
  return /^application\/(.+\+)?json\b/i.test(contentType) || /\+json\b/i.test(contentType);
}

function isTextMedia(contentType: string): boolean {
  return (
    contentType === '' ||
    /^text\//i.test(contentType) ||
    isJsonMedia(contentType) ||
    /^application\/(.+\+)?(xml|yaml|x-yaml|javascript|x-www-form-urlencoded|graphql)\b/i.test(contentType)
  );
}

function truncationNote(answer: UpstreamAnswer): string {
  const total = answer.declaredLength !== undefined ? `${answer.declaredLength} bytes` : 'more';
  return `\n\n[response truncated: showing the first ${answer.bytes.length} bytes of ${total}; raise --max-response-bytes to see more]`;
}

export function toToolResult(answer: UpstreamAnswer): CallToolResult {
  const media = answer.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (answer.status >= 400) {
    const excerpt = decoder.decode(answer.bytes.subarray(0, ERROR_EXCERPT_BYTES));
    const more = answer.bytes.length > ERROR_EXCERPT_BYTES || answer.truncated ? ' […]' : '';
    const head = `HTTP ${answer.status}${answer.statusText ? ' ' + answer.statusText : ''} from ${answer.label}`;
    return { isError: true, content: [{ type: 'text', text: excerpt ? `${head}\n${excerpt}${more}` : head }] };
  }
  if (answer.bytes.length === 0) {
    return { content: [{ type: 'text', text: `HTTP ${answer.status}${answer.statusText ? ' ' + answer.statusText : ''}: success, empty body` }] };
  }
  if (isTextMedia(media)) {
    const text = decoder.decode(answer.bytes);
    if (answer.truncated) return { content: [{ type: 'text', text: text + truncationNote(answer) }] };
    if (isJsonMedia(media) || (media === '' && /^\s*[[{]/.test(text))) {
      try {
        const value: unknown = JSON.parse(text);
        // structuredContent must be an object; other JSON values are wrapped.
        const structured = typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : { result: value };
        return { content: [{ type: 'text', text }], structuredContent: structured };
      } catch {
        return { content: [{ type: 'text', text }] };
      }
    }
    return { content: [{ type: 'text', text }] };
  }
  if (answer.truncated) {
    return {
      content: [{ type: 'text', text: `${answer.label} answered ${media} of ${answer.declaredLength ?? 'more than ' + answer.bytes.length} bytes, above --max-response-bytes; not returned.` }],
    };
  }
  const data = Buffer.from(answer.bytes).toString('base64');
  if (media.startsWith('image/')) return { content: [{ type: 'image', data, mimeType: media }] };
  if (media.startsWith('audio/')) return { content: [{ type: 'audio', data, mimeType: media }] };
  return { content: [{ type: 'resource', resource: { uri: answer.uri, mimeType: media || 'application/octet-stream', blob: data } }] };
}
