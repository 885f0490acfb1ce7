// What kind of content a media type carries, decided in one place for the request side
// (request.ts), the answer side (response.ts) and the generator (src/model), so that a type
// is never text when sent and binary when received. Copied verbatim into generated servers.

/**
 * json: a JSON text (sent as JSON.stringify, parsed on receipt). form: a urlencoded form.
 * multipart: multipart/form-data. ndjson: one JSON text per line. text: characters, sent
 * and shown as is. binary: bytes, which travel through MCP as base64.
 */
export type MediaKind = 'json' | 'form' | 'multipart' | 'ndjson' | 'text' | 'binary';

/** `type/subtype` without parameters, lower case (RFC 9110 §8.3.1: both are case-insensitive). */
export function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

const TEXT_APPLICATION = new Set([
  'xml',
  'yaml',
  'x-yaml',
  'toml',
  'javascript',
  'ecmascript',
  'x-javascript',
  'graphql',
  'sql',
  'x-sh',
  'x-httpd-php',
  'rtf',
  'csv',
  'x-tex',
  'x-latex',
  'xhtml',
  'soap',
  'sparql-query',
  'sparql-update',
  'n-triples',
  'n-quads',
  'trig',
]);

export function mediaKind(mediaType: string): MediaKind {
  const type = essence(mediaType);
  if (
    type === 'application/x-ndjson' ||
    type === 'application/jsonl' ||
    type === 'application/x-jsonlines' ||
    type.endsWith('+json-seq') ||
    type === 'application/json-seq'
  ) {
    return 'ndjson';
  }
  // RFC 6839 §3.1: the +json suffix means JSON; text/json is an old but common alias.
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/json' || type === 'text/x-json') return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  const [top, sub = ''] = type.split('/');
  if (
    top === 'text' ||
    sub.endsWith('+xml') || // RFC 7303 §4.2
    sub.endsWith('+yaml') || // RFC 9512 §2.2
    (top === 'application' && TEXT_APPLICATION.has(sub)) ||
    /;\s*charset=/i.test(mediaType) // a charset only makes sense for characters
  ) {
    return 'text';
  }
  return 'binary';
}

/**
 * How a sequential answer frames its items: `sse` (server-sent events, WHATWG HTML §9.2),
 * `lines` (JSON Lines / NDJSON: one JSON text per line) or `json-seq` (RFC 7464: each text
 * after an RS byte). Undefined for a media type whose answer is one value.
 */
export type SequenceFormat = 'sse' | 'lines' | 'json-seq';

export function sequenceFormat(mediaType: string): SequenceFormat | undefined {
  const type = essence(mediaType);
  if (type === 'text/event-stream') return 'sse';
  if (type === 'application/json-seq' || type.endsWith('+json-seq')) return 'json-seq';
  return mediaKind(type) === 'ndjson' ? 'lines' : undefined;
}

/** Kinds whose bytes are characters (shown as text, not base64). */
export function isTextual(kind: MediaKind): boolean {
  return kind !== 'binary' && kind !== 'multipart';
}

/**
 * What a body's schema says its value is, for the ranges that admit JSON and bytes alike
 * (`*\/*`, `application/*`): `bytes` (a binary string), `string` (any other string) or
 * `value` (anything else, sent as JSON).
 */
export type ValueShape = 'bytes' | 'string' | 'value';

/** Structured syntax suffixes (RFC 6839 §3, RFC 7303 §4.2, RFC 9512 §2.2) whose base type is sent for a `type/*+suffix` range. */
const SUFFIXES = new Set(['json', 'xml', 'yaml', 'cbor', 'zip', 'gzip', 'ber', 'der', 'fastinfoset', 'wbxml', 'json-seq', 'sqlite3']);

/**
 * Ranges (`*\/*`, `application/*+json`, `text/*`) are allowed as Media Type Object keys and in
 * an Encoding Object's contentType, but are not valid Content-Type values: the concrete type of
 * the range's family the value is sent as. `type/*+suffix` is the suffix's base type
 * (`application/*+json` → application/json); `text/*` is text/plain; `*\/*` and `application/*`
 * are JSON unless the schema is binary (application/octet-stream), or, for `*\/*`, a plain
 * string (text/plain). Other families (`image/*`) have no generic member: application/octet-stream.
 * A comma-separated list (Encoding Object contentType) takes its first.
 */
export function concreteMediaType(mediaType: string, shape: ValueShape = 'value'): string {
  const first = (mediaType.split(',')[0] ?? '').trim();
  const type = essence(first);
  if (!type.includes('*')) return first;
  const [top = '*', sub = '*'] = type.split('/');
  const family = top === '*' ? 'application' : top;
  const suffix = /^\*\+(.+)$/.exec(sub)?.[1];
  if (suffix !== undefined) return SUFFIXES.has(suffix) ? `${family}/${suffix}` : 'application/octet-stream';
  if (family === 'text') return 'text/plain';
  if (family !== 'application') return 'application/octet-stream';
  if (shape === 'bytes') return 'application/octet-stream';
  return shape === 'string' && top === '*' ? 'text/plain' : 'application/json';
}

/** How a request body of this (possibly ranged) media type is sent; the generator shapes its argument the same way. */
export function bodyKindOf(mediaType: string, shape: ValueShape = 'value'): MediaKind {
  return mediaKind(concreteMediaType(mediaType, shape));
}

/** True for JSON sent as plain application/json (no suffix, no alias): the first choice among JSON flavours. */
export function isPlainJson(mediaType: string): boolean {
  return essence(concreteMediaType(mediaType)) === 'application/json';
}
