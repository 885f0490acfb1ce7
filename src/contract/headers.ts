// Which header and cookie names and values can be sent at all: the generator leaves the others
// out of the table, the server runtime refuses them at call time.

/**
 * Headers the HTTP client owns: hop-by-hop ones (RFC 9110 §7.6.1), framing (RFC 9112 §6:
 * Content-Length, Transfer-Encoding), routing (Host), Expect, and Proxy-Authorization, which
 * belongs to a proxy of the operator's, not to the API. A value from the spec, a tool argument
 * or a client (--auth-from-headers) would contradict what is sent, retarget the request or
 * smuggle a second one. The generator leaves them out; the runtime refuses them.
 */
const CLIENT_OWNED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
  'expect',
  'proxy-authorization',
]);

/** RFC 9110 §5.6.2 token: a header name, an authentication scheme, a cookie name (RFC 6265). */
export const isToken = (text: string): boolean => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(text);

/** Why a header of this name can never be sent (`header "Host" cannot be sent: …`), or undefined. */
export function unsendableHeaderName(name: string): string | undefined {
  const reason = !isToken(name)
    ? 'not a valid header name (an RFC 9110 token)'
    : CLIENT_OWNED_HEADERS.has(name.toLowerCase())
      ? 'the HTTP client sets it itself (framing, routing or connection)'
      : undefined;
  return reason === undefined ? undefined : `header ${JSON.stringify(name)} cannot be sent: ${reason}`;
}

/** Why a cookie of this name can never be sent (its name is an RFC 6265 token), or undefined. */
export function unsendableCookieName(name: string): string | undefined {
  return isToken(name) ? undefined : `cookie ${JSON.stringify(name)} cannot be sent: not a valid cookie name (an RFC 6265 token)`;
}

/** Why this header value cannot be sent (Node refuses what RFC 9110 §5.5 forbids), or undefined. */
export function headerValueProblem(value: string): string | undefined {
  // CR/LF would inject headers (response splitting); NUL and other controls are forbidden.
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'CR, LF, NUL or other control characters';
  if (/[^\u0000-\u00ff]/.test(value)) return 'characters outside Latin-1';
  return undefined;
}

/**
 * Why a credential value cannot be sent, if it cannot: control characters (a line break would
 * end the header, and fetch's refusal quotes the value), and for header use anything beyond
 * the field-value characters of RFC 9110 §5.5 (visible ASCII, space, tab, obs-text).
 */
export function badCredential(value: string, inHeader: boolean): string | undefined {
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'contains a line break or control character';
  if (inHeader && /[^\x09\x20-\x7e\x80-\xff]/.test(value)) return 'contains characters an HTTP header cannot carry';
  return undefined;
}

/**
 * The first header of a finished request that cannot be sent, as a message naming the header
 * and never its value (a credential, often): security schemes and static headers are checked
 * here, so that a hand-edited tools.json or a client's header gives an error, not a request.
 */
export function unsendableHeader(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    const nameProblem = unsendableHeaderName(name);
    if (nameProblem !== undefined) return nameProblem;
    const valueProblem = headerValueProblem(value);
    if (valueProblem !== undefined) return `header ${JSON.stringify(name)} cannot be sent: its value contains ${valueProblem}`;
  }
  return undefined;
}
