// The tool table: everything a generated server knows about its API, as plain JSON data.
// mcp-gen writes it to `tools.json`; the runtime reads it at start-up. Spec text only ever
// travels in here as data — it is never spliced into code.

export type JsonSchema = { [key: string]: unknown };

/**
 * `record[key]` when the record itself has it: keys here are spec and client names, and one
 * named `constructor` or `toString` must not find Object.prototype's.
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

export interface ToolTable {
  /** Format version of this table, bumped on incompatible changes. */
  format: 1;
  /** Server identity reported to MCP clients. */
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  /** The API's description (info.description), for the docs resource. */
  description?: string;
  /** URI scheme of the API's resources (`petstore` in petstore://docs). */
  scheme?: string;
  /** Prompts the spec (x-mcp-prompts) or the config file declares. */
  prompts?: PromptSpec[];
  /** Upstream servers from the spec, in spec order; the first usable one is the default. */
  servers: ServerSpec[];
  /** Shared schemas, referenced from tool schemas as `#/$defs/<key>`. */
  defs: Record<string, JsonSchema>;
  /**
   * What tools/list shows unless the server is started with --tools: absent, a tool per
   * operation (direct); `toolsets`, list_toolsets/enable_toolset and the tools of the toolsets
   * enabled; `dynamic`, the search/describe/invoke meta-tools. Every operation stays in
   * `tools` whatever the mode, so any mode can be chosen at start. `pinned` tools are listed
   * in every mode. Chosen at generation to keep tools/list within what clients accept.
   */
  serve?: { mode: 'toolsets' | 'dynamic' | 'code'; pinned: string[] };
  /**
   * Toolset → the toolset it is nested in, from OAS 3.2 tags' `parent`: enabling a toolset
   * enables those nested in it (toolsets.ts). Absent: every toolset stands alone.
   */
  toolsetParents?: Record<string, string>;
  /** Security schemes by their name in the spec; secrets come from the named variables. */
  auth: Record<string, AuthSchemeSpec>;
  /**
   * Set when the spec came from a URL (unless mcp-gen was given --allow-internal-servers): the
   * spec's servers may not reach internal addresses, checked as each connection is made, since
   * a name may resolve elsewhere by then, redirects included. `trustedOrigin`: the spec's own
   * origin when it is internal itself, where the user pointed. --base-url lifts the rule.
   */
  publicServers?: { trustedOrigin?: string };
  /**
   * Several APIs served as one (mcp-gen's src/model/apis.ts): namespace → what its tools share.
   * A tool with `api` goes to its API's servers, not the table's `servers`. Absent: one API.
   */
  apis?: Record<string, ApiSpec>;
  tools: ToolSpec[];
}

/** One API of a server over several: its upstream servers, and the variable that replaces them (`<NAMESPACE>_BASE_URL`). */
export interface ApiSpec {
  servers: ServerSpec[];
  baseUrlEnv: string;
  /** ToolTable.publicServers for this API's requests: its spec came from a URL. */
  publicServers?: { trustedOrigin?: string };
  /** `<NAMESPACE>_RETRIES` and `<NAMESPACE>_RATE_LIMIT`: this API's own --retries and --rate-limit. */
  retriesEnv?: string;
  rateLimitEnv?: string;
  /** The config file's `apis[i].retries` and `.rateLimit`: under the variables, over the server-wide settings. */
  retries?: number;
  rateLimit?: number;
}

export type AuthSchemeSpec = (
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; env: { key: string } }
  | { type: 'basic'; env: { username: string; password: string } }
  | { type: 'http'; scheme: string; env: { token: string } }
  | {
      type: 'oauth2';
      /** Present when the server can fetch tokens itself (OAuth 2.0 client credentials grant). */
      clientCredentials?: { tokenUrl: string };
      /**
       * The API's own sign-in (authorization code flow): where the server, as the MCP clients'
       * authorization server, sends each user (--oauth-api-client-id).
       */
      authorizationCode?: { authorizationUrl: string; tokenUrl: string; scopes: string[] };
      /** OAS 3.2's device authorization flow (RFC 8628), recorded: a token got this way goes in `env.token`'s variable. */
      deviceAuthorization?: { deviceAuthorizationUrl: string; tokenUrl: string; scopes: string[] };
      /** OAS 3.2's `oauth2MetadataUrl`: the authorization server's RFC 8414 metadata, recorded. */
      metadataUrl?: string;
      env: { token: string; clientId?: string; clientSecret?: string };
    }
) & {
  description?: string;
  /** OAS 3.2: the API declares the scheme deprecated (its description says so too). */
  deprecated?: true;
  /** The namespace of the scheme's API, a key of ToolTable.apis, when the server serves several. */
  api?: string;
};

/** One way to authenticate: every named scheme (with the scopes it needs) must be satisfied. */
export type SecurityRequirement = Record<string, string[]>;

export interface ServerSpec {
  url: string;
  /** OAS 3.2's name of the host the URL designates (`production`). */
  name?: string;
  description?: string;
  variables?: Record<string, { default: string; enum?: string[]; description?: string }>;
}

export interface ToolSpec {
  name: string;
  /** The namespace of the tool's API, a key of ToolTable.apis, when the server serves several. */
  api?: string;
  /** The spec's operationId, when it has one (the name may differ: see the generation report). */
  operationId?: string;
  title?: string;
  description: string;
  /** The operation's tags, for search in dynamic mode. */
  tags?: string[];
  /** The toolset the tool belongs to (toolsets.ts); absent in tables written before toolsets. */
  toolset?: string;
  /** `type: object`; may reference `#/$defs/<key>` for keys of ToolTable.defs (what it reaches: def-refs.ts). */
  inputSchema: JsonSchema;
  /** What tools/list shows of the defs inputSchema reaches when not all of them (see Listing). */
  listing?: Listing;
  annotations: ToolAnnotationsSpec;
  http: HttpSpec;
  /**
   * Alternatives, tried in order; an empty requirement `{}` means none is needed.
   * Absent: the operation needs no authentication.
   */
  security?: SecurityRequirement[];
  /**
   * The OAuth scopes a caller's token must hold, all of them, to see and call this tool when the
   * server runs as an OAuth resource server; `[]`: any valid token. Set by the mcp-gen config
   * file's `scopes` rules. Absent: the server's read scope when annotations.readOnlyHint is true,
   * else its write scope.
   */
  scopes?: string[];
  /** From the success response's JSON schema, loosened so that no good answer fails it. */
  output?: OutputSpec;
  /**
   * A success answer of a sequential media type (server-sent events, JSON Lines, JSON Text
   * Sequences): the server reads it item by item (runtime/call/answer/stream-reader.ts).
   * `itemSchema`: each item's (OAS 3.2), for events their parsed `data`'s. `ends`: the events
   * that end the stream (the spec's `x-mcp-stream-end`); without it, the data `[DONE]`.
   */
  sequence?: { mediaType: string; itemSchema?: JsonSchema; ends?: StreamEndMark[] };
  /**
   * The success answer's media type when its body is bytes, neither JSON nor text (`image/png`,
   * `image/*`, `application/pdf`): the MCP Apps view previews it (runtime/apps/apps.ts).
   */
  binaryAnswer?: string;
  /** The operation is also (or only) an MCP resource or resource template, read with its request. */
  resource?: ResourceSpec;
  /** false: a resource only, neither listed nor callable as a tool. */
  asTool?: false;
  /** Tools the spec's response links lead to (OpenAPI Link Objects): common next calls. */
  then?: string[];
  /** How the operation pages its answers, as the spec shows it (mcp-gen's src/model/pagination.ts). */
  pagination?: Pagination;
  /**
   * Whether a call needs the user's yes before it is sent, whatever --confirm says: true, always
   * ask; false, never. From the config file's toolOverrides or the spec's `x-mcp`. Absent: as
   * --confirm decides (runtime/confirm.ts).
   */
  confirm?: boolean;
  /** false: no MCP Apps view for this tool's answers (the config file's toolOverrides.<operation>.apps). */
  apps?: false;
  /** The operation may finish after its answer (mcp-gen's src/model/long-running.ts): the server follows it. */
  longRunning?: LongRunning;
  /**
   * Arguments the config file hides (toolOverrides.<operation>.arguments): absent from
   * inputSchema, always sent with this value, by their name in `http` (ParamSpec.arg, BodySpec.arg).
   */
  hidden?: Record<string, HiddenArgument>;
  /** Defaults the config file gives listed arguments: sent when a call leaves the argument out. */
  defaults?: Record<string, unknown>;
}

/** A hidden argument's value: fixed in the table, or the text of an environment variable read at each call. */
export type HiddenArgument = { value: unknown } | { env: string };

/**
 * An environment variable whose name says it holds a secret: its value is then taken out of
 * every answer and confirmation question, like a security scheme's credential.
 */
export function namesASecret(variable: string): boolean {
  return /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE|CREDENTIAL|AUTH/i.test(variable);
}

/** Azure's `final-state-via`: where an operation's result is read once its status says it succeeded. */
export type FinalStateVia = 'azure-async-operation' | 'location' | 'operation-location' | 'original-uri';

/**
 * How the server follows an operation that finishes after its answer, until it ends or the
 * call's wait (--operation-wait) is over. A 202 answer's status URL (Azure-AsyncOperation, else
 * Operation-Location, else Location) is polled with GET whatever else is set here.
 */
export interface LongRunning {
  /** Azure's x-ms-long-running-operation-options; absent: the status answer, or the original URL for PUT and PATCH. */
  finalStateVia?: FinalStateVia;
  /** The answer is a Google-style Operation (`name`, `done`): polled at `statusPath`, `{name}` standing for its name. */
  operation?: { statusPath: string };
  /**
   * The status operation a Link Object of the 202 answer leads to; `args`: argument → runtime
   * expression (`$response.body#/id`, `$response.header.X`) or constant.
   */
  statusTool?: { name: string; args: Record<string, string> };
}

/**
 * How an operation pages a long list, read from its spec. Parameter names (`param`,
 * `sizeParam`) are tool arguments. When an answer is cut to --max-answer-bytes, the runtime
 * tells the agent how to get the rest from this and the actual answer.
 */
export type Pagination =
  /** RFC 8288 `Link` response header with rel="next" (GitHub); `sizeParam` sets the page size when there is one. */
  | { style: 'link-header'; sizeParam?: string }
  /**
   * The next page's cursor goes in `param`; it is in the answer at `next`, a dotted path in
   * which `-1` is an array's last item (`data.-1.id`: Stripe's `starting_after` is the last
   * item's id), or a URL whose query carries it (`links.next`). `hasMore`: the boolean that
   * says there is a next page.
   */
  | { style: 'cursor'; param: string; next: string; hasMore?: string; sizeParam?: string }
  /** Page numbers: `param` = 2, 3, …; `sizeParam` sets the page size. */
  | { style: 'page'; param: string; sizeParam?: string }
  /** `param` = the number of items already seen; `sizeParam` sets the page size. */
  | { style: 'offset'; param: string; sizeParam?: string };

/** A prompt with arguments; `{{name}}` in the template is replaced by the argument's value, nothing else. */
export interface PromptSpec {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean; enum?: string[] }[];
  template: string;
}

/** An MCP resource (a fixed `uri`) or resource template (`uriTemplate`, RFC 6570) for a GET. */
export interface ResourceSpec {
  uri?: string;
  /** Path variables `{v}`, and query parameters as `{?a,b}`. */
  uriTemplate?: string;
  /** Template variable → the tool argument it fills. */
  variables?: Record<string, string>;
  /** Template variable → values completion/complete offers: its parameter's examples (kept here whatever --keep-examples says). */
  examples?: Record<string, string[]>;
}

export interface OutputSpec {
  /** `type: object`; may reference `#/$defs/<key>` for keys of ToolTable.defs. */
  schema: JsonSchema;
  listing?: Listing;
  /** The answer is not an object: structuredContent is `{ result: <answer> }`. */
  wrap: boolean;
}

/**
 * A schema listed in part, to keep tools/list small (mcp-gen's src/model/listing.ts): `defs`
 * listed in full, `stubs` as stubSchema(); defs reachable only through a stub are left out.
 */
export interface Listing {
  defs: string[];
  stubs: string[];
}

/**
 * The listed stand-in for a shared schema: its type and what it is, not what it holds. It
 * accepts everything the schema accepts, so a client never refuses a valid value by it.
 */
export function stubSchema(def: JsonSchema | undefined): JsonSchema {
  const stub: JsonSchema = {};
  if (def?.type !== undefined) stub.type = def.type;
  const about = typeof def?.title === 'string' ? def.title : typeof def?.description === 'string' ? def.description : '';
  const short = about.length > 160 ? `${about.slice(0, 159)}…` : about;
  stub.description = `${short ? `${short} ` : ''}(schema not listed in full)`;
  return stub;
}

interface ToolAnnotationsSpec {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** `querystring` (OAS 3.2): the whole query string is this one parameter, serialised as its `contentType`. */
export type ParamLocation = 'path' | 'query' | 'querystring' | 'header' | 'cookie';

/**
 * OpenAPI 3 serialisation styles (3.0.3 §4.7.12.4), plus `tabDelimited` for Swagger 2.0's
 * `collectionFormat: tsv`, which has no OpenAPI 3 equivalent.
 */
export type ParamStyle = 'simple' | 'label' | 'matrix' | 'form' | 'spaceDelimited' | 'pipeDelimited' | 'tabDelimited' | 'deepObject';

export interface HttpSpec {
  method: string;
  /** Path template relative to the server URL, e.g. `/pets/{petId}`. */
  path: string;
  /** Operation- or path-level servers that replace the table's servers for this tool. */
  servers?: ServerSpec[];
  /** Where each non-body argument goes in the request. */
  params: ParamSpec[];
  body?: BodySpec;
  /**
   * The operation's `Idempotency-Key` header parameter, its name as the spec spells it (matched
   * without regard to case; an entry of `params`). On a POST or PATCH the server fills it with
   * a new key when the caller gives none, and retries the request with that same key.
   */
  idempotencyKey?: string;
}

export interface ParamSpec {
  /** Property name in the tool's inputSchema. */
  arg: string;
  /** Name on the wire (path template name, query key, header or cookie name). */
  name: string;
  in: ParamLocation;
  style: ParamStyle;
  explode: boolean;
  allowReserved?: boolean;
  required: boolean;
  /** The parameter's JSON type when known, so that strings from a client can be coerced. */
  type?: string;
  /**
   * Set when the spec describes the parameter with `content` instead of `schema` (Parameter
   * Object, `content`): the value is sent as a document of this media type (JSON text for
   * application/json), then percent-encoded where the location needs it; `style` is unused.
   * A `querystring` parameter's form media type (application/x-www-form-urlencoded) makes the
   * query string itself, as a form body would be written.
   */
  contentType?: string;
  /** A `querystring` parameter's form: its Encoding Objects by property, as a form body's (BodySpec `encoding`). */
  encoding?: Record<string, EncodingSpec>;
}

export interface BodySpec {
  /** Property name in the inputSchema that holds the request body. */
  arg: string;
  required: boolean;
  /** Media types the operation accepts, preferred first (JSON first), each as sent (a range as a concrete type). */
  mediaTypes: string[];
  /** Argument with which the caller picks another of `mediaTypes` (only when there are several). */
  contentTypeArg?: string;
  /** Encoding Objects of the form and multipart media types: media type → property → encoding. */
  encoding?: Record<string, Record<string, EncodingSpec>>;
  /**
   * Present when the media types' schemas differ: media type → index of its form in the body
   * argument's `anyOf`, which a call's body must fit for the contentType it is sent as.
   */
  variants?: Record<string, number>;
}

/** An Encoding Object (OAS 3.1 §4.8.15), reduced to what changes the bytes sent. */
export interface EncodingSpec {
  /** The property's media type: a part's Content-Type, or how a form value is written. */
  contentType?: string;
  /**
   * Present when the Encoding Object sets `style`, `explode` or `allowReserved` and the body's
   * media type honours them (forms; multipart from OAS 3.1 and in Swagger 2.0): the property is
   * then serialised like a query parameter of that style, and `contentType` is ignored.
   */
  style?: ParamStyle;
  explode?: boolean;
  allowReserved?: boolean;
  /** Multipart part headers whose value the spec fixes (`const`, a single `enum`, or `default`). */
  headers?: Record<string, string>;
}

/** An event that ends a stream of server-sent events: of that `event` type, with that `data`, or both. */
export interface StreamEndMark {
  event?: string;
  data?: string;
}

/** What ends a stream of events when the spec names nothing: the data chat-completion APIs end with (OpenAI's, and those that copy it). */
export const DEFAULT_STREAM_ENDS: StreamEndMark[] = [{ data: '[DONE]' }];

/**
 * Why a streamed answer's reading ended (its result's `ended`): the stream's own end, a
 * terminal event (`[DONE]`), --stream-max-items, --stream-time-ms, the call's time limit, or a
 * connection that broke off.
 */
export const STREAM_ENDS = ['end', 'terminal', 'max-items', 'time', 'timeout', 'broken'] as const;
export type StreamEnd = (typeof STREAM_ENDS)[number];

/**
 * The rule for a spec read from a URL (`publicServers`) that a security scheme's token URL is
 * held to: the table's for one API; of several, that of the scheme's own API (its `api`).
 */
export function screeningOfScheme(table: ToolTable, key: string): ToolTable['publicServers'] {
  if (table.apis === undefined) return table.publicServers;
  const api = ownValue(table.auth, key)?.api;
  return api === undefined ? undefined : ownValue(table.apis, api)?.publicServers;
}

/** A tool that may run as a task: its tools/list entry then says `execution.taskSupport: optional`. */
export const runsAsTask = (tool: ToolSpec): boolean => tool.longRunning !== undefined || tool.sequence !== undefined;

/** Operations mapped to resources only are neither listed nor callable as tools. */
export function callableTable(whole: ToolTable): ToolTable {
  return whole.tools.every((t) => t.asTool !== false) ? whole : { ...whole, tools: whole.tools.filter((t) => t.asTool !== false) };
}
