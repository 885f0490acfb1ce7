// What HTTP says of a request method, for the tools' annotations and for sending a request again.
// From IANA's HTTP Method Registry (RFC 9110 §16.1, §9.2.1, §9.2.2), and QUERY
// (draft-ietf-httpbis-safe-method-w-body §2). A method is case-sensitive (RFC 9110 §9.1):
// `propfind` is not PROPFIND, and a method the registry does not hold is neither.

/** Safe methods: a request asks for no change (RFC 9110 §9.2.1). Each is also idempotent. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'QUERY', 'PROPFIND', 'REPORT', 'SEARCH', 'PRI']);

/** Idempotent methods beyond the safe ones: the same request twice has the effect of one (RFC 9110 §9.2.2). */
const IDEMPOTENT_UNSAFE = new Set([
  'PUT',
  'DELETE',
  'ACL',
  'BASELINE-CONTROL',
  'BIND',
  'CHECKIN',
  'CHECKOUT',
  'COPY',
  'LABEL',
  'LINK',
  'MERGE',
  'MKACTIVITY',
  'MKCALENDAR',
  'MKCOL',
  'MKREDIRECTREF',
  'MKWORKSPACE',
  'MOVE',
  'ORDERPATCH',
  'PROPPATCH',
  'REBIND',
  'UNBIND',
  'UNCHECKOUT',
  'UNLINK',
  'UNLOCK',
  'UPDATE',
  'UPDATEREDIRECTREF',
  'VERSION-CONTROL',
]);

export const isSafeMethod = (method: string): boolean => SAFE.has(method);

export const isIdempotentMethod = (method: string): boolean => SAFE.has(method) || IDEMPOTENT_UNSAFE.has(method);

/** The methods of the Path Item Object's fixed fields (OAS 3.2.0, Path Item Object), which OpenAPI spells in lower case. */
const FIXED_FIELD_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE', 'QUERY']);

/**
 * The method as the request line carries it: a fixed field's in capitals (`get` is GET), any
 * other exactly as written: an `additionalOperations` key is the method spelled as it is to be
 * sent (OAS 3.2.0, Path Item Object).
 */
export function methodOnTheWire(method: string): string {
  const upper = method.toUpperCase();
  return FIXED_FIELD_METHODS.has(upper) ? upper : method;
}
