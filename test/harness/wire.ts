// Reading requests as a recording upstream received them (test/harness/upstream.ts): the
// headers the server chose, the whole request as text, and the parts of a multipart body.
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Recorded } from './upstream.js';

export const DEFAULT_ACCEPT = 'application/json, */*;q=0.8';
// Headers the HTTP client adds to every request: node:http framing plus the User-Agent and
// Accept-Encoding the runtime's sendOnce sets, and fetch's own when a hook's body goes through
// fetch. Everything else is the generated server's doing.
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'user-agent',
  'accept-language',
  'sec-fetch-mode',
  'accept-encoding',
  'content-length',
  'transfer-encoding',
]);

/** The request's headers without the ones the HTTP client adds to every request. */
export const appHeaders = (req: Recorded) => Object.fromEntries(Object.entries(req.headers).filter(([k]) => !TRANSPORT_HEADERS.has(k)));

/** The whole request as the upstream saw it, the body as UTF-8 text. */
export const wire = (req: Recorded) => ({ request: `${req.method} ${req.url}`, headers: appHeaders(req), body: req.body.toString('utf8') });

/** What a request without a body looks like, apart from its method and URL. */
export const plain = (request: string, headers: Record<string, string> = {}) => ({
  request,
  headers: { accept: DEFAULT_ACCEPT, ...headers },
  body: '',
});

export const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

/**
 * The parts of a multipart/form-data body (RFC 2046 §5.1.1; RFC 7578), each as its header
 * lines, a blank line and its content (bytes as latin1), found with the boundary that the
 * Content-Type names. Throws unless the body is exactly `--B CRLF part CRLF`… `--B-- CRLF`.
 */
export function multipartParts(body: Uint8Array, contentType: string | undefined): string[] {
  const boundary = /^multipart\/form-data; boundary=([A-Za-z0-9'()+_,./:=?-]{1,70})$/.exec(contentType ?? '')?.[1];
  if (boundary === undefined) throw new Error(`not a multipart/form-data Content-Type with a boundary: ${contentType}`);
  const text = Buffer.from(body).toString('latin1');
  const close = `--${boundary}--\r\n`;
  if (!text.endsWith(close)) throw new Error('multipart body does not end with its closing delimiter');
  const parts = text.slice(0, -close.length).split(`--${boundary}\r\n`);
  if (parts.shift() !== '') throw new Error('multipart body has a preamble');
  return parts.map((part) => {
    if (!part.endsWith('\r\n')) throw new Error('multipart part does not end with CRLF');
    return part.slice(0, -2);
  });
}
