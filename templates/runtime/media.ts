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

/** Kinds whose bytes are characters (shown as text, not base64). */
export function isTextual(kind: MediaKind): boolean {
  return kind !== 'binary' && kind !== 'multipart';
}

/**
 * Ranges (`*\/*`, `application/*`, `image/*`) are allowed as Media Type Object keys and in an
 * Encoding Object's contentType, but are not valid Content-Type values: pick a concrete type
 * the value can be sent as. A comma-separated list (Encoding Object contentType) takes its first.
 */
export function concreteMediaType(mediaType: string): string {
  const first = (mediaType.split(',')[0] ?? '').trim();
  const type = essence(first);
  if (!type.includes('*')) return first;
  if (type === '*/*' || type === 'application/*') return 'application/json';
  if (type === 'text/*') return 'text/plain';
  return 'application/octet-stream';
}

/** How a request body of this (possibly ranged) media type is sent; the generator shapes its argument the same way. */
export function bodyKindOf(mediaType: string): MediaKind {
  return mediaKind(concreteMediaType(mediaType));
}
