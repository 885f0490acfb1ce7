// Turns a tool call's arguments into an HTTP request (method, URL, headers, body), following
// the parameter serialisation rules of OpenAPI 3.1 (Parameter Object: "Style Values" and
// "Style Examples") and RFC 6570. Pure: it imports only the contract (table types, media
// types, header rules) and web/Node globals, so every rule is tested without a server.

import { ownValue, type BodySpec, type EncodingSpec, type HttpSpec, type ParamSpec, type ParamStyle } from '../../../contract/table.js';
import { bodyKindOf, concreteMediaType, essence, mediaKind, type ValueShape } from '../../../contract/media.js';
import { ArgumentError } from '../../../contract/argument-error.js';
import { methodOnTheWire } from '../../../contract/http-methods.js';
import { headerValueProblem, unsendableHeaderName } from '../../../contract/headers.js';

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface BuildOptions {
  /** One of `http.body.mediaTypes`; the first one is used when absent. */
  contentType?: string;
}

/** Sent unless a header parameter sets Accept (which OpenAPI says to ignore, so: always). */
export const DEFAULT_ACCEPT = 'application/json, */*;q=0.8';

/**
 * Build the request for one tool call. Only arguments present in `args` (and not
 * `undefined`) are sent; schema defaults are the server's business, not ours.
 */
export function buildRequest(http: HttpSpec, args: Record<string, unknown>, baseUrl: string, options?: BuildOptions): BuiltRequest {
  const headers: Record<string, string> = {};
  const query: string[] = [];
  const cookies: string[] = [];
  const pathValues = new Map<string, { param: ParamSpec; value: unknown }>();

  for (const param of http.params) {
    const given = ownValue(args, param.arg);
    // One rule for every location (OAS 3.1.1 Appendix C, RFC 6570 §2.3): null, [] and {} are
    // "undefined" and send nothing, exactly like an absent argument. "" is a value. A `content`
    // parameter is a document instead, in which [] and {} are values.
    const value = (param.contentType === undefined ? isUndefinedValue(given) : given === null) ? undefined : given;
    // Path parameters are always required (Parameter Object, `required`), whatever the flag.
    if (param.in === 'path') pathValues.set(param.name, { param, value });
    if (value === undefined) {
      if (param.required) {
        throw new ArgumentError(
          param.arg,
          `required ${param.in} parameter is missing${given === undefined ? '' : ` (${JSON.stringify(given)} counts as no value)`}`,
        );
      }
      continue;
    }
    refuseShadowing(http.params, param, value);
    switch (param.in) {
      case 'path':
        break; // expanded below, in template order
      case 'query':
        for (const pair of serializeQuery(param, value)) query.push(pair);
        break;
      case 'querystring':
        query.push(serializeQueryString(param, value));
        break;
      case 'header': {
        // Parameter Object, `name`: "If in is "header" and the name field is "Accept",
        // "Content-Type" or "Authorization", the parameter definition SHALL be ignored."
        // Header names are case-insensitive (RFC 9110 §5.1), so compare them that way.
        if (/^(accept|content-type|authorization)$/i.test(param.name)) break;
        const problem = unsendableHeaderName(param.name);
        if (problem !== undefined) throw new ArgumentError(param.arg, problem);
        const text = serializeHeader(param, value);
        if (text !== undefined) setHeader(headers, param.name, text);
        break;
      }
      case 'cookie':
        for (const pair of serializeCookie(param, value)) cookies.push(pair);
        break;
    }
  }

  const template = compiledPath(http.path);
  const path = expandPath(template, pathValues);
  const queryString = [template.fixedQuery, ...query].filter((part) => part !== '').join('&');
  const url = withoutTrailingSlashes(baseUrl) + path + (queryString ? `?${queryString}` : '');

  if (cookies.length > 0) {
    const existing = getHeader(headers, 'cookie');
    setHeader(headers, 'Cookie', [existing, ...cookies].filter((c) => c).join('; '));
  }
  if (getHeader(headers, 'accept') === undefined) headers['Accept'] = DEFAULT_ACCEPT;

  const request: BuiltRequest = { method: methodOnTheWire(http.method), url, headers };
  if (options?.contentType !== undefined && http.body === undefined) {
    throw new ArgumentError('contentType', 'this operation has no request body');
  }
  if (http.body) {
    const value = ownValue(args, http.body.arg);
    if (value === undefined) {
      if (http.body.required) throw new ArgumentError(http.body.arg, 'required request body is missing');
    } else {
      const mediaType = chooseMediaType(http.body, options?.contentType);
      const { body, contentType } = serializeBody(http.body.arg, mediaType, value, ownValue(http.body.encoding, mediaType) ?? {});
      request.body = body;
      if (contentType !== undefined) setHeader(headers, 'Content-Type', contentType);
    }
  }
  return request;
}

/**
 * An exploded object's property names become parameter names (`?color=red`, RFC 6570 form
 * explode): one that is another parameter's of the same place would send a second value beside
 * that one, past its schema or beside a value the operator pins (a hidden argument), and an API
 * that reads the first value would take the model's.
 */
function refuseShadowing(params: readonly ParamSpec[], param: ParamSpec, value: unknown): void {
  if ((param.in !== 'query' && param.in !== 'cookie') || !param.explode || param.style === 'deepObject') return;
  if (param.contentType !== undefined || !isPlainObject(value)) return;
  for (const name of Object.keys(value)) {
    const other = params.find((p) => p !== param && p.in === param.in && p.name === name);
    if (other !== undefined) {
      throw new ArgumentError(
        param.arg,
        `property ${JSON.stringify(name)} is the ${param.in} parameter of argument "${other.arg}"; give it there`,
      );
    }
  }
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
 * `allowReserved: true` (OAS 3.1.1 Parameter Object): RFC 6570 reserved expansion, in which
 * reserved characters and percent-encoded triples pass as they are. Still encoded: `[`, `]`
 * and `#`, which a query cannot hold (RFC 3986 §3.4), `&`, `=` and `+`, which would split,
 * re-key or (to form decoders) space the pair, and a `%` that starts no triple.
 */
function encodeReserved(text: string): string {
  return text
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((piece, i) => (i % 2 === 1 ? piece : encodeValue(piece).replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/g, decodeURIComponent)))
    .join('');
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

/** Object members with a value: `undefined` and `null` ones are "not given" (RFC 6570 §2.3). */
function entries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
}

/** List items with a value. */
function items(value: readonly unknown[]): unknown[] {
  return value.filter((v) => v !== undefined && v !== null);
}

/**
 * RFC 6570 §2.3 "undefined" (the OAS 3.1.1 Appendix C column): null, an empty list and an
 * empty map send nothing at all, wherever a value is serialised by style. An empty string is
 * a value. Content-based values (Parameter `content`, form and multipart fields without a
 * style) are documents instead, in which [] and {} are sent as their JSON text.
 */
function isUndefinedValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return items(value).length === 0;
  if (isPlainObject(value)) return entries(value).length === 0;
  return false;
}

/** A `content` parameter's value as a document of its media type (JSON text for JSON). */
function contentText(param: ParamSpec, value: unknown): string {
  if (mediaKind(param.contentType ?? '') === 'json') return JSON.stringify(value);
  return typeof value === 'string' ? value : scalarText(value);
}

/** Separators of the delimited styles, unencoded (multipart, headers) and in a URL. */
const RAW_DELIMITERS: Partial<Record<ParamStyle, string>> = { spaceDelimited: ' ', pipeDelimited: '|', tabDelimited: '\t' };
const URL_DELIMITERS: Partial<Record<ParamStyle, string>> = { spaceDelimited: '%20', pipeDelimited: '%7C', tabDelimited: '%09' };

// ---------------------------------------------------------------------------------------
// Path (styles simple, label, matrix)

/**
 * A path template split once, for every call of its operation: the literal query it carries,
 * and each `/`-separated segment as its literal pieces and variable names, in order (a
 * segment without variables is its text).
 */
interface PathTemplate {
  segments: (string | SegmentParts)[];
  fixedQuery: string;
}

/** A segment's pieces: `literals[i]` comes before `names[i]`; `literals` has one more, the tail. */
interface SegmentParts {
  literals: string[];
  names: string[];
}

const templates = new Map<string, PathTemplate>();

function compiledPath(path: string): PathTemplate {
  let template = templates.get(path);
  if (template === undefined) templates.set(path, (template = compilePath(path)));
  return template;
}

function compilePath(path: string): PathTemplate {
  // The template may carry a literal query (`/{Bucket}?uploads`, as in AWS specs) or a
  // fragment (`/#X-Amz-Target=...`). A fragment is never sent over HTTP (RFC 3986 §3.5),
  // so it is dropped; the literal query is kept and sent ahead of the parameters.
  let template = path;
  const hash = template.indexOf('#');
  if (hash >= 0) template = template.slice(0, hash);
  let fixedQuery = '';
  const question = template.indexOf('?');
  if (question >= 0) {
    fixedQuery = template.slice(question + 1);
    template = template.slice(0, question);
  }
  if (!template.startsWith('/')) template = `/${template}`;
  return { segments: template.split('/').map(compileSegment), fixedQuery };
}

function compileSegment(segment: string): string | SegmentParts {
  const literals: string[] = [];
  const names: string[] = [];
  const variable = /\{([^{}]+)\}/g;
  let from = 0;
  for (let match = variable.exec(segment); match !== null; match = variable.exec(segment)) {
    literals.push(segment.slice(from, match.index));
    names.push(match[1] as string);
    from = match.index + match[0].length;
  }
  if (names.length === 0) return segment;
  literals.push(segment.slice(from));
  return { literals, names };
}

function expandPath(template: PathTemplate, values: Map<string, { param: ParamSpec; value: unknown }>): string {
  let path = '';
  for (let i = 0; i < template.segments.length; i++) {
    const segment = template.segments[i] as string | SegmentParts;
    if (i > 0) path += '/';
    path += typeof segment === 'string' ? segment : expandSegment(segment, values);
  }
  return path;
}

function expandSegment(segment: SegmentParts, values: Map<string, { param: ParamSpec; value: unknown }>): string {
  let expanded = segment.literals[0] as string;
  for (let i = 0; i < segment.names.length; i++) {
    const name = segment.names[i] as string;
    const entry = values.get(name);
    // A template variable without a parameter is a spec error; sending `{name}` literally
    // would silently hit the wrong resource.
    if (entry === undefined) throw new Error(`path template variable {${name}} has no path parameter`);
    if (entry.value === undefined) throw new ArgumentError(entry.param.arg, 'required path parameter is missing');
    expanded += serializePath(entry.param, entry.value) + (segment.literals[i + 1] as string);
  }
  // Percent-encoding cannot protect a dot-segment: the WHATWG URL parser that fetch uses
  // treats `.`, `%2E`, `..`, `.%2E`, `%2E%2E` alike and removes them (RFC 3986 §5.2.4),
  // letting a value climb out of its place in the path. No spelling reaches the server as
  // data, so refuse it.
  if (/^(\.|%2e){1,2}$/i.test(expanded)) {
    const first = values.get(segment.names[0] as string);
    throw new ArgumentError(first?.param.arg ?? '', `path value would form the segment "${expanded}", which URL parsers remove`);
  }
  return expanded;
}

const withoutTrailingSlashes = (url: string) => (url.endsWith('/') ? url.replace(/\/+$/, '') : url);

function serializePath(param: ParamSpec, value: unknown): string {
  const name = encodeValue(param.name);
  const { style, explode } = param;
  if (param.contentType !== undefined) return encodeValue(contentText(param, value));
  if (style === 'label' || style === 'matrix') {
    // Style Examples: label `.blue` / `.blue,black,brown` / `.blue.black.brown` (explode) /
    // `.R,100,G,200,B,150` / `.R=100.G=200.B=150` (explode); matrix `;color=blue` /
    // `;color=blue,black,brown` / `;color=blue;color=black;color=brown` (explode) /
    // `;color=R,100,G,200,B,150` / `;R=100;G=200;B=150` (explode); empty `.` / `;color`.
    const prefix = style === 'label' ? '.' : ';';
    const named = (key: string, text: string): string => (style === 'matrix' ? (text === '' ? key : `${key}=${text}`) : text);
    if (Array.isArray(value)) {
      const texts = items(value).map((v) => encodeValue(scalarText(v)));
      if (explode) return texts.map((text) => prefix + named(name, text)).join('');
      return prefix + named(name, texts.join(','));
    }
    if (isPlainObject(value)) {
      const pairs = entries(value).map(([k, v]) => [encodeValue(k), encodeValue(scalarText(v))] as const);
      if (explode) return pairs.map(([k, v]) => `${prefix}${k}=${v}`).join('');
      return prefix + named(name, pairs.flat().join(','));
    }
    return prefix + named(name, encodeValue(scalarText(value)));
  }
  // simple (the default for path): `blue`, `blue,black,brown`, `R,100,G,200,B,150`,
  // `R=100,G=200,B=150` (explode). Swagger 2.0 path arrays may also be `ssv`, `tsv` or
  // `pipes` (Parameter Object, collectionFormat): the same list with their separator.
  const text = simpleValue(value, explode, encodeValue, URL_DELIMITERS[style]);
  // An empty segment changes the resource addressed (`/pets/` is the collection, not a pet).
  if (text === '') throw new ArgumentError(param.arg, 'path parameter must not be empty');
  return text;
}

/** RFC 6570 simple expansion, also used for headers (with identity encoding); `separator` for Swagger 2.0 lists. */
function simpleValue(value: unknown, explode: boolean, encode: (text: string) => string, separator = ','): string {
  if (Array.isArray(value))
    return items(value)
      .map((v) => encode(scalarText(v)))
      .join(separator);
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [encode(k), encode(scalarText(v))] as const);
    return explode ? pairs.map(([k, v]) => `${k}=${v}`).join(separator) : pairs.flat().join(separator);
  }
  return encode(scalarText(value));
}

// ---------------------------------------------------------------------------------------
// Query (styles form, spaceDelimited, pipeDelimited, tabDelimited, deepObject)

/** `key=value` pairs, already encoded, in array/object order. */
function serializeQuery(param: ParamSpec, value: unknown): string[] {
  const encode = param.allowReserved ? encodeReserved : encodeValue;
  // Names too (OAS 3.1.1 Appendix E): `filter[id]=` goes out as `filter%5Bid%5D=`.
  const key = encodeValue(param.name);
  // Parameter Object `content`: the media type's text, percent-encoded as one value.
  if (param.contentType !== undefined) return [`${key}=${encodeValue(contentText(param, value))}`];

  if (param.style === 'deepObject') {
    // Style Examples: `color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150`. Nesting and arrays are not
    // defined by OpenAPI; we follow the common bracket convention (`a[b][c]=v`, `a[b][0]=v`).
    if (isPlainObject(value) || Array.isArray(value)) return bracketPairs(key, value, encode);
    return [`${key}=${encode(scalarText(value))}`];
  }

  const separator = URL_DELIMITERS[param.style] ?? ',';
  if (Array.isArray(value)) {
    const texts = items(value).map((v) => encode(scalarText(v)));
    // With explode, spaceDelimited/pipeDelimited behave like form (`id=1&id=2`).
    if (param.explode) return texts.map((text) => `${key}=${text}`);
    return [`${key}=${texts.join(separator)}`];
  }
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [encode(k), encode(scalarText(v))] as const);
    if (param.explode) return pairs.map(([k, v]) => `${k}=${v}`);
    return [`${key}=${pairs.flat().join(separator)}`];
  }
  return [`${key}=${encode(scalarText(value))}`];
}

/**
 * An OAS 3.2 `in: querystring` parameter: the whole query string. A form media type writes it as
 * a form body is written (that text is query-ready as it is); any other media type's text (JSON,
 * a string) is percent-encoded as one piece (OAS 3.2.0, Parameter Object Examples).
 */
function serializeQueryString(param: ParamSpec, value: unknown): string {
  if (param.contentType !== undefined && essence(param.contentType) === 'application/x-www-form-urlencoded') {
    if (typeof value === 'string') return value; // already a form, as a pre-encoded form body is
    if (isPlainObject(value)) return formBody(param.arg, value, param.encoding ?? {});
    throw new ArgumentError(param.arg, "must be an object of the form's fields, or the query string itself");
  }
  return encodeValue(contentText(param, value));
}

/**
 * Bracket notation for nested data: `key[sub]=v`, `key[0]=v`, `key[a][0][b]=v`, the brackets
 * percent-encoded (OAS 3.1.1 Appendix E; what qs, and so Stripe's own client, sends). Used for
 * deepObject and for form-urlencoded bodies (the convention Stripe and Rails/PHP expect).
 * Empty arrays/objects and null yield nothing (see isUndefinedValue).
 */
function bracketPairs(prefix: string, value: unknown, encode: (text: string) => string): string[] {
  if (Array.isArray(value)) {
    return items(value).flatMap((item, index) => bracketPairs(`${prefix}%5B${index}%5D`, item, encode));
  }
  if (isPlainObject(value)) {
    // User-supplied keys are fully encoded so a `]` or `=` in them cannot alter the structure.
    return entries(value).flatMap(([k, v]) => bracketPairs(`${prefix}%5B${encodeValue(k)}%5D`, v, encode));
  }
  return [`${prefix}=${encode(scalarText(value))}`];
}

// ---------------------------------------------------------------------------------------
// Header and cookie

function serializeHeader(param: ParamSpec, value: unknown): string | undefined {
  // Headers are `simple` style (Style Values) but are not percent-encoded: header values
  // are not URIs, and servers do not decode them. Swagger 2.0 header arrays may be `ssv`,
  // `tsv` or `pipes` (collectionFormat), joined by their separator.
  const text =
    param.contentType !== undefined ? contentText(param, value) : simpleValue(value, param.explode, (t) => t, RAW_DELIMITERS[param.style]);
  // Reported here with the argument's name, rather than by unsendableHeader with the header's.
  const problem = headerValueProblem(text);
  if (problem !== undefined) throw new ArgumentError(param.arg, `header value must not contain ${problem}`);
  return text;
}

/**
 * Cookie parameters are `form` style (Style Values); pairs are joined with `; ` as in a
 * Cookie header (RFC 6265 §4.2.1), where form would use `&`. Values are percent-encoded so
 * that `;`, `,`, space and quotes cannot end or split the cookie.
 */
function serializeCookie(param: ParamSpec, value: unknown): string[] {
  const name = param.name;
  if (param.contentType !== undefined) return [`${name}=${encodeValue(contentText(param, value))}`];
  if (Array.isArray(value)) {
    const texts = items(value).map((v) => encodeValue(scalarText(v)));
    return param.explode ? texts.map((text) => `${name}=${text}`) : [`${name}=${texts.join(',')}`];
  }
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [encodeValue(k), encodeValue(scalarText(v))] as const);
    return param.explode ? pairs.map(([k, v]) => `${k}=${v}`) : [`${name}=${pairs.flat().join(',')}`];
  }
  return [`${name}=${encodeValue(scalarText(value))}`];
}

export function getHeader(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  // for…in over own keys: no array of keys per look-up (several per call)
  for (const key in headers) if (Object.hasOwn(headers, key) && key.toLowerCase() === wanted) return headers[key];
  return undefined;
}

/** Set a header, replacing any existing one that differs only in case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const wanted = name.toLowerCase();
  for (const key in headers) if (Object.hasOwn(headers, key) && key.toLowerCase() === wanted) delete headers[key];
  // defined, not assigned: a header may be named `__proto__`
  Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------
// Body (Request Body Object, Media Type Object)

/** The one of `body.mediaTypes` a call sends: the requested one, else the first. */
export function chooseMediaType(body: BodySpec, requested: string | undefined): string {
  if (requested === undefined) {
    const first = body.mediaTypes[0];
    if (first === undefined) throw new Error(`request body "${body.arg}" has no media types`);
    return first;
  }
  const wanted = requested.trim().toLowerCase();
  const match = body.mediaTypes.find((m) => m.toLowerCase() === wanted) ?? body.mediaTypes.find((m) => essence(m) === essence(wanted));
  if (match === undefined) {
    throw new ArgumentError('contentType', `must be one of ${body.mediaTypes.join(', ')}, got "${requested}"`);
  }
  return match;
}

function serializeBody(
  arg: string,
  specMediaType: string,
  value: unknown,
  encoding: Record<string, EncodingSpec>,
): { body: string | Uint8Array; contentType?: string } {
  const mediaType = concreteMediaType(specMediaType);
  switch (mediaKind(mediaType)) {
    case 'json':
      return { body: JSON.stringify(value), contentType: mediaType };
    case 'form':
      if (typeof value === 'string') return { body: value, contentType: mediaType }; // pre-encoded
      if (!isPlainObject(value)) throw new ArgumentError(arg, 'a form-urlencoded body must be an object');
      return { body: formBody(arg, value, encoding), contentType: mediaType };
    case 'multipart': {
      if (!isPlainObject(value)) throw new ArgumentError(arg, 'a multipart body must be an object');
      return multipartBody(arg, value, encoding);
    }
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

/** A form or multipart field's value as text when it has no Encoding Object: objects and arrays as JSON. */
function fieldText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : scalarText(value);
}

/**
 * application/x-www-form-urlencoded (OAS 3.1.1 §4.8.15, "Encoding the x-www-form-urlencoded
 * Media Type"). A property whose Encoding Object sets style, explode or allowReserved is
 * serialised like a query parameter of that style (RFC 6570; `deepObject` gives Stripe's
 * `meta%5Bk%5D=v`). Otherwise RFC 1866 applies with the contentType defaults: an array is one
 * pair per item (`Filters=a&Filters=b`), an object is JSON text ("URL Encoded Form with JSON
 * Values", `{}` included), and an explicit JSON contentType makes the whole value one JSON
 * text (`[]` included).
 */
function formBody(arg: string, value: Record<string, unknown>, encoding: Record<string, EncodingSpec>): string {
  const pairs: string[] = [];
  for (const [name, field] of entries(value)) {
    const encoded = ownValue(encoding, name);
    if (encoded?.style !== undefined) {
      if (isUndefinedValue(field)) continue;
      const param: ParamSpec = {
        arg: `${arg}.${name}`,
        name,
        in: 'query',
        style: encoded.style,
        explode: encoded.explode ?? encoded.style === 'form',
        required: false,
      };
      if (encoded.allowReserved) param.allowReserved = true;
      pairs.push(...serializeQuery(param, field));
      continue;
    }
    const key = encodeValue(name);
    if (encoded?.contentType !== undefined && bodyKindOf(encoded.contentType, shapeOf(field)) === 'json') {
      pairs.push(`${key}=${encodeValue(JSON.stringify(field))}`);
      continue;
    }
    for (const item of Array.isArray(field) ? items(field) : [field]) pairs.push(`${key}=${encodeValue(fieldText(item))}`);
  }
  return pairs.join('&');
}

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  headers?: Record<string, string>;
  data: string | Uint8Array;
}

/**
 * multipart/form-data (RFC 7578), written here rather than by FormData so that each part can
 * carry the Content-Type and headers its Encoding Object gives (FormData would label every
 * typed part as a file named "blob"). Defaults (OAS 3.1.1, "Special Considerations for
 * multipart Content"): a primitive is a text/plain part (no Content-Type line, RFC 7578 §4.4),
 * an object or array item that is not a file is an application/json part, a file is its
 * bytes (`{}` too: JSON text); an array is one part per item under the same name, unless its
 * contentType is JSON (then one part, `[]` too). With style/explode set (OAS 3.1 and Swagger
 * 2.0 collectionFormat) the property is split like a form field instead.
 */
function multipartBody(
  arg: string,
  value: Record<string, unknown>,
  encoding: Record<string, EncodingSpec>,
): { body: Uint8Array; contentType: string } {
  const parts: Part[] = [];
  for (const [name, field] of entries(value)) {
    const encoded = ownValue(encoding, name);
    const headers = encoded?.headers;
    if (encoded?.style !== undefined) {
      if (isUndefinedValue(field)) continue;
      for (const [partName, text] of stylePairs(name, field, encoded.style, encoded.explode ?? encoded.style === 'form')) {
        parts.push({ name: partName, data: text, ...(headers ? { headers } : {}) });
      }
      continue;
    }
    const range = encoded?.contentType;
    const whole = range !== undefined && bodyKindOf(range, shapeOf(field)) === 'json';
    for (const item of Array.isArray(field) && !whole ? items(field) : [field]) {
      const declared = range !== undefined ? concreteMediaType(range, shapeOf(item)) : undefined;
      parts.push({ ...partFor(`${arg}.${name}`, name, item, declared), ...(headers ? { headers } : {}) });
    }
  }
  const boundary = `mcp-gen-${Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('hex')}`;
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  for (const part of parts) {
    // WHATWG HTML "multipart/form-data encoding algorithm": names escape CR, LF and `"`.
    const quote = (text: string) => text.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quote(part.name)}"`;
    if (part.filename !== undefined) head += `; filename="${quote(part.filename)}"`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    for (const [header, text] of Object.entries(part.headers ?? {})) {
      // Encoding Object `headers`: Content-Type is described separately and SHALL be ignored there.
      if (/^content-(type|disposition)$/i.test(header)) continue;
      head += `${header}: ${text}\r\n`;
    }
    chunks.push(
      encoder.encode(`${head}\r\n`),
      typeof part.data === 'string' ? encoder.encode(part.data) : part.data,
      encoder.encode('\r\n'),
    );
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: new Uint8Array(Buffer.concat(chunks)), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** What a value makes of a range in an Encoding Object's contentType (`*\/*`): a file is bytes, a string text. */
const shapeOf = (value: unknown): ValueShape => (isFilePart(value) ? 'bytes' : typeof value === 'string' ? 'string' : 'value');

/** One multipart part for one value: a file, JSON for structures, else text (see multipartBody). */
function partFor(where: string, name: string, item: unknown, declared: string | undefined): Part {
  if (isFilePart(item)) {
    // the model's text becomes the part's Content-Type line: a line break would add headers to it
    const problem = item.contentType === undefined ? undefined : headerValueProblem(item.contentType);
    if (problem !== undefined) throw new ArgumentError(`${where}.contentType`, `must not contain ${problem}`);
    const contentType = item.contentType ?? declared ?? 'application/octet-stream';
    return { name, filename: item.filename ?? 'file', contentType, data: decodeBase64(where, item.content) };
  }
  const kind = declared === undefined ? undefined : mediaKind(declared);
  if (kind === 'json') return { name, contentType: declared, data: JSON.stringify(item) };
  if (typeof item === 'object' && item !== null) {
    if (declared !== undefined) throw new ArgumentError(where, `must be text to be sent as ${declared}`);
    return { name, contentType: 'application/json', data: JSON.stringify(item) };
  }
  // A string for a part the spec types as bytes (e.g. contentType image/png) is their base64.
  if (kind === 'binary' && typeof item === 'string') return { name, contentType: declared, data: decodeBase64(where, item) };
  const text = scalarText(item);
  return declared === undefined || essence(declared) === 'text/plain' ? { name, data: text } : { name, contentType: declared, data: text };
}

/**
 * A property split by an Encoding Object's style, as unencoded (name, text) pairs: the query
 * rules (form, spaceDelimited, pipeDelimited, Swagger 2.0 tsv, deepObject) without the
 * percent-encoding, which multipart does not use.
 */
function stylePairs(name: string, value: unknown, style: ParamStyle, explode: boolean): [string, string][] {
  const separator = RAW_DELIMITERS[style] ?? ',';
  if (style === 'deepObject' && (isPlainObject(value) || Array.isArray(value))) {
    const walk = (prefix: string, node: unknown): [string, string][] =>
      Array.isArray(node)
        ? items(node).flatMap((item, index) => walk(`${prefix}[${index}]`, item))
        : isPlainObject(node)
          ? entries(node).flatMap(([k, v]) => walk(`${prefix}[${k}]`, v))
          : [[prefix, scalarText(node)]];
    return walk(name, value);
  }
  if (Array.isArray(value)) {
    const texts = items(value).map(scalarText);
    return explode ? texts.map((text) => [name, text]) : [[name, texts.join(separator)]];
  }
  if (isPlainObject(value)) {
    const pairs = entries(value).map(([k, v]) => [k, scalarText(v)] as [string, string]);
    return explode ? pairs : [[name, pairs.flat().join(separator)]];
  }
  return [[name, scalarText(value)]];
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
    ([k, v]) => k === 'content' || ((k === 'filename' || k === 'contentType') && (typeof v === 'string' || v === undefined)),
  );
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
