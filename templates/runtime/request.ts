// Turns a tool call's arguments into an HTTP request (method, URL, headers, body), following
// the parameter serialisation rules of OpenAPI 3.1 (Parameter Object: "Style Values" and
// "Style Examples") and RFC 6570. Copied verbatim into generated servers: imports nothing
// but the table types and web/Node globals.

import type { BodySpec, HttpSpec, ParamSpec, ServerSpec } from './table.js';

/** A tool argument that cannot be turned into a request. The message always names it. */
export class ArgumentError extends Error {
  readonly arg: string;
  /** `message` is the detail; it is prefixed with `argument "<arg>": `. */
  constructor(arg: string, message: string) {
    super(`argument "${arg}": ${message}`);
    this.name = 'ArgumentError';
    this.arg = arg;
  }
}

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

export interface BuildOptions {
  /** One of `http.body.mediaTypes`; the first one is used when absent. */
  contentType?: string;
}

/** Sent unless a header parameter sets Accept (which OpenAPI says to ignore, so: always). */
export const DEFAULT_ACCEPT = 'application/json, */*;q=0.8';

/**
 * A server URL with its `{variables}` filled in (OAS 3.1 Server Object / Server Variable
 * Object): an override when given, else the variable's default. No trailing `/`, so that
 * operation paths, which start with `/`, can be appended.
 */
export function resolveServerUrl(server: ServerSpec, overrides?: Record<string, string>): string {
  const url = server.url.replace(/\{([^{}]*)\}/g, (_whole, name: string) => {
    const variable = server.variables?.[name];
    const override = overrides?.[name];
    if (override !== undefined) {
      // An enum is a closed list ("An enumeration of string values to be used if the
      // substitution options are from a limited set").
      if (variable?.enum && variable.enum.length > 0 && !variable.enum.includes(override)) {
        throw new ArgumentError(name, `server variable must be one of ${variable.enum.join(', ')}, got "${override}"`);
      }
      return override;
    }
    if (variable === undefined) throw new ArgumentError(name, `server URL ${server.url} uses an undefined variable`);
    return variable.default;
  });
  return url.replace(/\/+$/, '');
}

/**
 * Build the request for one tool call. Only arguments present in `args` (and not
 * `undefined`) are sent; schema defaults are the server's business, not ours.
 */
export function buildRequest(
  http: HttpSpec,
  args: Record<string, unknown>,
  baseUrl: string,
  options?: BuildOptions,
): BuiltRequest {
  const headers: Record<string, string> = {};
  const query: string[] = [];
  const cookies: string[] = [];
  const pathValues = new Map<string, { param: ParamSpec; value: unknown }>();

  for (const param of http.params) {
    const value = args[param.arg];
    // Path parameters are always required (Parameter Object, `required`), whatever the flag.
    if (param.in === 'path') pathValues.set(param.name, { param, value });
    if (value === undefined) {
      if (param.required) throw new ArgumentError(param.arg, `required ${param.in} parameter is missing`);
      continue;
    }
    switch (param.in) {
      case 'path':
        break; // expanded below, in template order
      case 'query':
        for (const pair of serializeQuery(param, value)) query.push(pair);
        break;
      case 'header': {
        // Parameter Object, `name`: "If in is "header" and the name field is "Accept",
        // "Content-Type" or "Authorization", the parameter definition SHALL be ignored."
        // Header names are case-insensitive (RFC 9110 §5.1), so compare them that way.
        if (/^(accept|content-type|authorization)$/i.test(param.name)) break;
        const text = serializeHeader(param, value);
        if (text !== undefined) setHeader(headers, param.name, text);
        break;
      }
      case 'cookie':
        for (const pair of serializeCookie(param, value)) cookies.push(pair);
        break;
    }
  }

  // The template may carry a literal query (`/{Bucket}?uploads`, as in AWS specs) or a
  // fragment (`/#X-Amz-Target=...`). A fragment is never sent over HTTP (RFC 3986 §3.5),
  // so it is dropped; the literal query is kept and sent ahead of the parameters.
  let template = http.path;
  const hash = template.indexOf('#');
  if (hash >= 0) template = template.slice(0, hash);
  let fixedQuery = '';
  const question = template.indexOf('?');
  if (question >= 0) {
    fixedQuery = template.slice(question + 1);
    template = template.slice(0, question);
  }
  if (!template.startsWith('/')) template = `/${template}`;

  const path = template
    .split('/')
    .map((segment) => expandSegment(segment, pathValues))
    .join('/');
  const queryString = [fixedQuery, ...query].filter((part) => part !== '').join('&');
  const url = baseUrl.replace(/\/+$/, '') + path + (queryString ? `?${queryString}` : '');

  if (cookies.length > 0) {
    const existing = getHeader(headers, 'cookie');
    setHeader(headers, 'Cookie', [existing, ...cookies].filter((c) => c).join('; '));
  }
  if (getHeader(headers, 'accept') === undefined) headers['Accept'] = DEFAULT_ACCEPT;

  const request: BuiltRequest = { method: http.method.toUpperCase(), url, headers };
  if (options?.contentType !== undefined && http.body === undefined) {
    throw new ArgumentError('contentType', 'this operation has no request body');
  }
  if (http.body) {
    const value = args[http.body.arg];
    if (value === undefined) {
      if (http.body.required) throw new ArgumentError(http.body.arg, 'required request body is missing');
    } else {
      const mediaType = chooseMediaType(http.body, options?.contentType);
      const { body, contentType } = serializeBody(http.body.arg, mediaType, value);
      request.body = body;
      if (contentType !== undefined) setHeader(headers, 'Content-Type', contentType);
    }
  }
  return request;
}

// ---------------------------------------------------------------------------------------
// Encoding

/**
 * RFC 3986 percent-encoding of everything but unreserved characters. encodeURIComponent
 * leaves `!'()*` alone, which are sub-delims and may carry meaning (e.g. `'` and `(`
 * in some routers, `*` in matrix URIs), so encode them too.
 */
export function encodeValue(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `allowReserved: true` (Parameter Object): reserved characters `:/?#[]@!$&'()*+,;=` may
 * pass unencoded. We still encode `&` and `=` (they would split or re-key the query pair),
 * `#` (it would end the query and start a fragment), and `+` (x-www-form-urlencoded
 * servers read it as a space): passing those raw would change what the server receives,
 * not just how it looks.
 */
function encodeReserved(text: string): string {
  return encodeValue(text).replace(/%(3A|2F|3F|5B|5D|40|21|24|27|28|29|2A|2C|3B)/g, (escape) =>
    decodeURIComponent(escape),
  );
}

/** Query keys from the spec may contain brackets (`filter[status]`); keep those readable. */
function encodeKey(name: string): string {
  return encodeValue(name).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

/** The text of a primitive: booleans `true`/`false`, numbers via String(), null as empty. */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // A nested array or object inside a style that only defines one level: the OpenAPI
  // styles leave this undefined, and JSON is the least lossy choice.
  return JSON.stringify(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** Object entries without `undefined` values (they are "not given", like absent args). */
function entries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== undefined);
}

// ---------------------------------------------------------------------------------------
// Path (styles simple, label, matrix)

function expandSegment(segment: string, values: Map<string, { param: ParamSpec; value: unknown }>): string {
  const used: string[] = [];
  const expanded = segment.replace(/\{([^{}]+)\}/g, (_whole, name: string) => {
    const entry = values.get(name);
    // A template variable without a parameter is a spec error; sending `{name}` literally
    // would silently hit the wrong resource.
    if (entry === undefined) throw new Error(`path template variable {${name}} has no path parameter`);
    if (entry.value === undefined) throw new ArgumentError(entry.param.arg, 'required path parameter is missing');
    used.push(entry.param.arg);
    return serializePath(entry.param, entry.value);
  });
  // Percent-encoding cannot protect a dot-segment: the WHATWG URL parser that fetch uses
  // treats `.`, `%2E`, `..`, `.%2E`, `%2E%2E` alike and removes them (RFC 3986 §5.2.4),
  // letting a value climb out of its place in the path. No spelling reaches the server as
  // data, so refuse it.
  if (used.length > 0 && /^(\.|%2e){1,2}$/i.test(expanded)) {
    throw new ArgumentError(used[0] ?? '', `path value would form the segment "${expanded}", which URL parsers remove`);
  }
  return expanded;
}

function serializePath(param: ParamSpec, value: unknown): string {
  const name = encodeValue(param.name);
  const { style, explode } = param;
  if (style === 'label' || style === 'matrix') {
    // Style Examples: label `.blue` / `.blue,black,brown` / `.blue.black.brown` (explode) /
    // `.R,100,G,200,B,150` / `.R=100.G=200.B=150` (explode); matrix `;color=blue` /
    // `;color=blue,black,brown` / `;color=blue;color=black;color=brown` (explode) /
    // `;color=R,100,G,200,B,150` / `;R=100;G=200;B=150` (explode); empty `.` / `;color`.
    const prefix = style === 'label' ? '.' : ';';
    const named = (key: string, text: string): string =>
      style === 'matrix' ? (text === '' ? key : `${key}=${text}`) : text;
    if (Array.isArray(value)) {
      const items = value.map((v) => encodeValue(scalarText(v)));
      if (explode) return items.map((item) => prefix + named(name, item)).join('');
      return prefix + named(name, items.join(','));
    }
    if (isPlainObject(value)) {
      const pairs = entries(value).map(([k, v]) => [encodeValue(k), encodeValue(scalarText(v))] as const);
      if (explode) return pairs.map(([k, v]) => `${prefix}${k}=${v}`).join('');
      return prefix + named(name, pairs.flat().join(','));
    }
    return prefix + named(name, encodeValue(scalarText(value)));
  }
  // simple (the default for path): `blue`, `blue,black,brown`, `R,100,G,200,B,150`,
  // `R=100,G=200,B=150` (explode).
  const text = simpleValue(value, explode, encodeValue);
  // An empty segment changes the resource addressed (`/pets/` is the collection, not a pet).
  if (text === '') throw new ArgumentError(param.arg, 'path parameter must not be empty');
  return text;
}

/** RFC 6570 simple expansion, also used for headers (with identity encoding). */
function simpleValue(value: unknown, explode: boolean, encode: (text: string) => string): string {
  if (Array.isArray(value)) return value.map((v) => encode(scalarText(v))).join(',');
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [encode(k), encode(scalarText(v))] as const);
    return explode ? pairs.map(([k, v]) => `${k}=${v}`).join(',') : pairs.flat().join(',');
  }
  return encode(scalarText(value));
}

// ---------------------------------------------------------------------------------------
// Query (styles form, spaceDelimited, pipeDelimited, tabDelimited, deepObject)

const DELIMITERS: Partial<Record<ParamSpec['style'], string>> = {
  form: ',',
  spaceDelimited: '%20',
  pipeDelimited: '|',
  tabDelimited: '%09', // Swagger 2.0 collectionFormat: tsv
};

/** `key=value` pairs, already encoded, in array/object order. */
function serializeQuery(param: ParamSpec, value: unknown): string[] {
  const encode = param.allowReserved ? encodeReserved : encodeValue;
  const key = encodeKey(param.name);

  if (param.style === 'deepObject') {
    // Style Examples: `color[R]=100&color[G]=200&color[B]=150`. Nesting and arrays are not
    // defined by OpenAPI; we follow the common bracket convention (`a[b][c]=v`, `a[b][0]=v`).
    if (isPlainObject(value) || Array.isArray(value)) return bracketPairs(key, value, encode);
    return [`${key}=${encode(scalarText(value))}`];
  }

  // RFC 6570 §2.3: an empty list or map is undefined, so nothing is sent for it.
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    const items = value.map((v) => encode(scalarText(v)));
    // With explode, spaceDelimited/pipeDelimited behave like form (`id=1&id=2`).
    if (param.explode) return items.map((item) => `${key}=${item}`);
    return [`${key}=${items.join(DELIMITERS[param.style] ?? ',')}`];
  }
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [encode(k), encode(scalarText(v))] as const);
    if (pairs.length === 0) return [];
    if (param.explode) return pairs.map(([k, v]) => `${k}=${v}`);
    return [`${key}=${pairs.flat().join(DELIMITERS[param.style] ?? ',')}`];
  }
  return [`${key}=${encode(scalarText(value))}`];
}

/**
 * Bracket notation for nested data: `key[sub]=v`, `key[0]=v`, `key[a][0][b]=v`. Used for
 * deepObject and for form-urlencoded bodies (the convention Stripe and Rails/PHP expect).
 * Empty arrays/objects yield nothing; null yields `key=`.
 */
function bracketPairs(prefix: string, value: unknown, encode: (text: string) => string): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) =>
      item === undefined ? [] : bracketPairs(`${prefix}[${index}]`, item, encode),
    );
  }
  if (isPlainObject(value)) {
    // User-supplied keys are fully encoded so a `]` or `=` in them cannot alter the structure.
    return entries(value).flatMap(([k, v]) => bracketPairs(`${prefix}[${encodeValue(k)}]`, v, encode));
  }
  return [`${prefix}=${encode(scalarText(value))}`];
}

// ---------------------------------------------------------------------------------------
// Header and cookie

function serializeHeader(param: ParamSpec, value: unknown): string | undefined {
  if ((Array.isArray(value) && value.length === 0) || (isPlainObject(value) && entries(value).length === 0)) {
    return undefined; // RFC 6570 §2.3: empty list/map is undefined
  }
  // Headers are `simple` style (Style Values) but are not percent-encoded: header values
  // are not URIs, and servers do not decode them.
  const text = simpleValue(value, param.explode, (t) => t);
  // CR/LF would inject headers (response splitting); NUL is forbidden (RFC 9110 §5.5).
  // fetch also rejects code points above U+00FF; report that here with the argument name.
  if (/[\r\n\0]/.test(text)) throw new ArgumentError(param.arg, 'header value must not contain CR, LF or NUL');
  if (/[^\u0000-\u00ff]/.test(text)) {
    throw new ArgumentError(param.arg, 'header value must contain only Latin-1 characters');
  }
  return text;
}

/**
 * Cookie parameters are `form` style (Style Values); pairs are joined with `; ` as in a
 * Cookie header (RFC 6265 §4.2.1), where form would use `&`. Values are percent-encoded so
 * that `;`, `,`, space and quotes cannot end or split the cookie.
 */
function serializeCookie(param: ParamSpec, value: unknown): string[] {
  const name = param.name;
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    const items = value.map((v) => encodeValue(scalarText(v)));
    return param.explode ? items.map((item) => `${name}=${item}`) : [`${name}=${items.join(',')}`];
  }
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [encodeValue(k), encodeValue(scalarText(v))] as const);
    if (pairs.length === 0) return [];
    return param.explode ? pairs.map(([k, v]) => `${k}=${v}`) : [`${name}=${pairs.flat().join(',')}`];
  }
  return [`${name}=${encodeValue(scalarText(value))}`];
}

export function getHeader(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

/** Set a header, replacing any existing one that differs only in case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
  }
  headers[name] = value;
}

// ---------------------------------------------------------------------------------------
// Body (Request Body Object, Media Type Object)

function chooseMediaType(body: BodySpec, requested: string | undefined): string {
  if (requested === undefined) {
    const first = body.mediaTypes[0];
    if (first === undefined) throw new Error(`request body "${body.arg}" has no media types`);
    return first;
  }
  const wanted = requested.trim().toLowerCase();
  const match =
    body.mediaTypes.find((m) => m.toLowerCase() === wanted) ??
    body.mediaTypes.find((m) => essence(m) === essence(wanted));
  if (match === undefined) {
    throw new ArgumentError('contentType', `must be one of ${body.mediaTypes.join(', ')}, got "${requested}"`);
  }
  return match;
}

/** `type/subtype` without parameters, lower case. */
function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'ndjson' | 'binary';

/** How a body of this media type is sent; the generator shapes the body argument the same way. */
export function bodyKindOf(mediaType: string): BodyKind {
  return bodyKind(concreteMediaType(mediaType));
}

function bodyKind(mediaType: string): BodyKind {
  const type = essence(mediaType);
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'ndjson';
  if (
    type.startsWith('text/') ||
    type.endsWith('+xml') ||
    type.endsWith('+yaml') ||
    /^application\/(xml|yaml|x-yaml|javascript|ecmascript|graphql|sql)$/.test(type) ||
    /;\s*charset=/i.test(mediaType)
  ) {
    return 'text';
  }
  return 'binary';
}

/**
 * Ranges (`*\/*`, `application/*`, `image/*`) are allowed as Media Type Object keys but are
 * not valid Content-Type values; pick a concrete type the value can be sent as.
 */
function concreteMediaType(mediaType: string): string {
  const type = essence(mediaType);
  if (!type.includes('*')) return mediaType;
  if (type === '*/*' || type === 'application/*') return 'application/json';
  if (type === 'text/*') return 'text/plain';
  return 'application/octet-stream';
}

function serializeBody(
  arg: string,
  specMediaType: string,
  value: unknown,
): { body: string | Uint8Array | FormData; contentType?: string } {
  const mediaType = concreteMediaType(specMediaType);
  switch (bodyKind(mediaType)) {
    case 'json':
      return { body: JSON.stringify(value), contentType: mediaType };
    case 'form':
      if (typeof value === 'string') return { body: value, contentType: mediaType }; // pre-encoded
      if (!isPlainObject(value)) throw new ArgumentError(arg, 'a form-urlencoded body must be an object');
      // Without an Encoding Object in the table, nested values use bracket notation:
      // `a=1&meta[k]=v&list[0]=x` (Stripe's convention, also read by Rails/PHP/qs).
      return {
        body: entries(value)
          .flatMap(([k, v]) => bracketPairs(encodeValue(k), v, encodeValue))
          .join('&'),
        contentType: mediaType,
      };
    case 'multipart':
      if (!isPlainObject(value)) throw new ArgumentError(arg, 'a multipart body must be an object');
      // No Content-Type: fetch adds `multipart/form-data; boundary=...` itself.
      return { body: formData(arg, value) };
    case 'ndjson':
      // One JSON text per line; an array is the list of records.
      if (typeof value === 'string') return { body: value, contentType: mediaType };
      return {
        body: (Array.isArray(value) ? value : [value]).map((v) => `${JSON.stringify(v)}\n`).join(''),
        contentType: mediaType,
      };
    case 'text':
      // Scalars read the same as text; an object would be JSON under a text label (e.g. XML).
      if (typeof value === 'object' && value !== null) {
        throw new ArgumentError(arg, `a ${essence(mediaType)} body must be a string (the document as text)`);
      }
      return { body: typeof value === 'string' ? value : String(value), contentType: mediaType };
    case 'binary': {
      // Binary bodies travel through JSON tool arguments as base64 text (or as a file part).
      const content = isFilePart(value) ? value.content : value;
      if (typeof content !== 'string') throw new ArgumentError(arg, `a ${essence(mediaType)} body must be base64 text`);
      return { body: decodeBase64(arg, content), contentType: mediaType };
    }
  }
}

interface FilePart {
  content: string;
  filename?: string;
  contentType?: string;
}

/** `{ content: base64, filename?, contentType? }` and nothing else. */
function isFilePart(value: unknown): value is FilePart {
  if (!isPlainObject(value) || typeof value['content'] !== 'string') return false;
  return Object.entries(value).every(
    ([k, v]) =>
      k === 'content' || ((k === 'filename' || k === 'contentType') && (typeof v === 'string' || v === undefined)),
  );
}

/**
 * Encoding Object defaults (OAS 3.1): primitives as text/plain, objects as JSON, file
 * parts as binary; an array is sent as one part per item under the same name (as a form
 * with a multi-select or several files would).
 */
function formData(arg: string, value: Record<string, unknown>): FormData {
  const form = new FormData();
  const append = (name: string, item: unknown): void => {
    if (item === undefined) return;
    if (isFilePart(item)) {
      const bytes = decodeBase64(`${arg}.${name}`, item.content);
      const blob = new Blob([bytes], { type: item.contentType ?? 'application/octet-stream' });
      form.append(name, blob, item.filename ?? 'file');
    } else {
      form.append(name, scalarText(item));
    }
  };
  for (const [name, item] of entries(value)) {
    if (Array.isArray(item)) item.forEach((element) => append(name, element));
    else append(name, item);
  }
  return form;
}

/**
 * Strict base64 (standard or URL-safe alphabet, whitespace ignored). Buffer.from would
 * silently skip invalid characters, turning e.g. plain text into garbage bytes.
 */
function decodeBase64(arg: string, text: string): Uint8Array<ArrayBuffer> {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) {
    throw new ArgumentError(arg, 'must be base64-encoded');
  }
  return new Uint8Array(Buffer.from(compact, 'base64')); // Node's base64 also reads the URL-safe alphabet
}
