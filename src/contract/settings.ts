// Every setting of a generated server, once: its flag, environment variable, default and help.
// This table drives the flag parser and --help (config.ts), the generated README's options
// table and .env.example (mcp-gen's emitter), and the names no API credential may take
// (mcp-gen's model/auth.ts), so none of them can drift from the others.

import { CLIENT_PROFILES } from './profiles.js';

/** Every --transport value; main.ts's registry must have an entry for each (the compiler checks). */
export const TRANSPORT_NAMES = ['stdio', 'http', 'sse', 'http+sse'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export const TOOL_MODES = ['direct', 'toolsets', 'dynamic', 'code'] as const;
/** Which calls wait for the user's yes (confirm/): none, DELETE and the marked ones, or every write. */
export const CONFIRM_SETTINGS = ['none', 'destructive', 'writes'] as const;
/** Whether clients that declare MCP Apps (io.modelcontextprotocol/ui) get views of the answers (runtime/apps/). */
const APPS_SETTINGS = ['auto', 'off'] as const;
export type AppsSetting = (typeof APPS_SETTINGS)[number];

/** The --code-* limits when none is given (also for a server made without settings). */
export const CODE_LIMIT_DEFAULTS = {
  memoryBytes: 64 * 1_048_576,
  timeMs: 5_000,
  maxCalls: 50,
  maxResultBytes: 262_144,
  /** Not a setting: what console.log in a program may print. */
  maxLogBytes: 16_384,
} as const;

export interface Setting {
  /** The flag without its dashes. */
  flag: string;
  /** What follows the flag in the help ('N', 'URL'); absent for a switch. */
  value?: string;
  /** Repeatable flag (its variable then holds one value per line). */
  multiple?: boolean;
  /** The environment variable; a switch is on when it is 1, true or yes. */
  env: string;
  /**
   * The default as people read it; absent when there is none. For a setting with `choices` or a
   * `range` it is the value itself, unless it is missing from both (then readConfig derives it).
   */
  default?: string;
  /** The only values it takes, for a setting that names one of a few (--help's text lists them). */
  choices?: readonly string[];
  /** The whole numbers it takes, both ends included. */
  range?: { min: number; max: number };
  /** One line of help. */
  help: string;
  /** Further lines for --help only. */
  more?: string[];
}

export const SETTINGS: readonly Setting[] = [
  {
    flag: 'transport',
    choices: TRANSPORT_NAMES,
    value: 'T',
    env: 'MCP_TRANSPORT',
    default: 'stdio',
    help: 'stdio | http (Streamable HTTP at /mcp) | sse (legacy, /sse) | http+sse (both)',
  },
  {
    flag: 'tools',
    choices: TOOL_MODES,
    value: 'M',
    env: 'MCP_TOOLS',
    default: 'the mode chosen at generation; direct when --toolsets is given',
    help: 'what tools/list shows: direct, toolsets, dynamic or code',
    more: [
      'direct    a tool per operation',
      'toolsets  list_toolsets and enable_toolset: the agent adds toolsets',
      '          as it needs them (tools/list_changed), per session;',
      '          --toolsets are enabled from the start. A request without',
      '          a session (2026-07-28, --stateless) gets the dynamic tools',
      'dynamic   search_operations, describe_operation, invoke_operation',
      'code      search_api (TypeScript declarations) and execute: a short',
      '          program calls several operations in a sandbox and returns',
      '          only what it needs (--code-* limits)',
    ],
  },
  {
    flag: 'code-memory-mb',
    range: { min: 8, max: 4_096 },
    value: 'N',
    env: 'MCP_CODE_MEMORY_MB',
    default: String(CODE_LIMIT_DEFAULTS.memoryBytes / 1_048_576),
    help: "code mode: one program's memory",
  },
  {
    flag: 'code-time-ms',
    range: { min: 10, max: 600_000 },
    value: 'MS',
    env: 'MCP_CODE_TIME_MS',
    default: String(CODE_LIMIT_DEFAULTS.timeMs),
    help: "code mode: one program's own running time (waiting for the API not counted)",
  },
  {
    flag: 'code-max-calls',
    range: { min: 1, max: 10_000 },
    value: 'N',
    env: 'MCP_CODE_MAX_CALLS',
    default: String(CODE_LIMIT_DEFAULTS.maxCalls),
    help: 'code mode: api calls one program may make',
  },
  {
    flag: 'code-max-result-bytes',
    range: { min: 1, max: 2 ** 28 },
    value: 'N',
    env: 'MCP_CODE_MAX_RESULT_BYTES',
    default: String(CODE_LIMIT_DEFAULTS.maxResultBytes),
    help: 'code mode: the largest JSON a program may return',
  },
  { flag: 'toolsets', value: 'a,b', env: 'MCP_TOOLSETS', default: 'all', help: 'serve only these toolsets (--help lists them) or all' },
  { flag: 'read-only', env: 'MCP_READ_ONLY', help: 'serve only read-only tools (safe methods: GET, HEAD, QUERY, PROPFIND, …)' },
  {
    flag: 'confirm',
    choices: CONFIRM_SETTINGS,
    value: 'WHICH',
    env: 'MCP_CONFIRM',
    default: 'none',
    help: "calls that wait for the user's yes: none, destructive (DELETE and the operations marked so) or writes (every tool not read-only)",
    more: [
      'The client is asked through the protocol (form elicitation); one',
      'that cannot be asked gets a tool error, and nothing is sent. An',
      "operation's `confirm: true|false` (config file or x-mcp) wins.",
    ],
  },
  { flag: 'dynamic-toolsets', env: 'MCP_DYNAMIC_TOOLSETS', help: 'the same as --tools toolsets' },
  {
    flag: 'apps',
    choices: APPS_SETTINGS,
    value: 'WHEN',
    env: 'MCP_APPS',
    default: 'auto',
    help: 'views of the answers (a table, a card) for clients that render MCP Apps: auto (when the client declares the extension) or off',
  },
  {
    flag: 'client-profile',
    choices: CLIENT_PROFILES,
    value: 'P',
    env: 'MCP_CLIENT_PROFILE',
    default: 'portable',
    help: 'how listed schemas are written: portable, openai-strict, gemini or full',
    more: [
      'portable       compact, no construct some client rejects',
      'openai-strict  OpenAI strict function calling (all properties',
      '               required, optional ones nullable)',
      'gemini         Gemini function declarations (OpenAPI subset)',
      'full           the whole schemas, with $defs',
      'Arguments are checked against the whole schema in every profile.',
    ],
  },
  { flag: 'stateless', env: 'MCP_STATELESS', help: 'Streamable HTTP without sessions, for replicas behind a load balancer' },
  {
    flag: 'replica-id',
    value: 'ID',
    env: 'MCP_REPLICA_ID',
    default: 'none',
    help: 'name this replica in its session ids (ID.<uuid>), so a proxy routes each session back to it',
    more: ['letters, digits, _ and -, at most 32; see docs/deploy.md for the nginx map'],
  },
  {
    flag: 'sse-keepalive-ms',
    range: { min: 0, max: 3_600_000 },
    value: 'MS',
    env: 'MCP_SSE_KEEPALIVE_MS',
    default: '15000',
    help: 'send a comment on every SSE stream (/sse, /mcp) this often, so proxies keep it open (0 = never)',
  },
  {
    flag: 'drain-delay-ms',
    range: { min: 0, max: 600_000 },
    value: 'MS',
    env: 'MCP_DRAIN_DELAY_MS',
    default: '0',
    help: 'on SIGTERM, /healthz answers 503 but calls are served this long before the drain starts',
  },
  { flag: 'port', range: { min: 0, max: 65535 }, value: 'N', env: 'PORT', default: '3000', help: 'HTTP port for sse/http' },
  { flag: 'host', value: 'H', env: 'HOST', default: '127.0.0.1', help: 'interface to bind' },
  { flag: 'base-url', value: 'URL', env: 'API_BASE_URL', default: 'from the spec', help: 'upstream API base URL' },
  {
    flag: 'timeout',
    range: { min: 1, max: 86_400_000 },
    value: 'MS',
    env: 'API_TIMEOUT_MS',
    default: '30000',
    help: 'upstream request timeout',
  },
  {
    flag: 'operation-wait',
    range: { min: 0, max: 86_400_000 },
    value: 'MS',
    env: 'API_OPERATION_WAIT_MS',
    default: '30000',
    help: 'how long a call follows a long-running operation before answering a handle (0: at once)',
    more: ['get_operation_status takes the handle and waits as long again; each status', 'request has --timeout of its own.'],
  },
  {
    flag: 'stream-max-items',
    range: { min: 1, max: 100_000_000 },
    value: 'N',
    env: 'API_STREAM_MAX_ITEMS',
    default: '100000',
    help: 'stop reading a streamed answer (events, JSON Lines) after N items',
  },
  {
    flag: 'stream-time-ms',
    range: { min: 1, max: 86_400_000 },
    value: 'MS',
    env: 'API_STREAM_TIME_MS',
    default: '20000',
    help: 'stop reading a streamed answer after MS and answer the items read so far',
    more: [
      '--timeout still bounds the whole call, the stream included, unless the',
      "call runs as a task: the task's lifetime bounds it then.",
    ],
  },
  {
    flag: 'retries',
    range: { min: 0, max: 10 },
    value: 'N',
    env: 'API_RETRIES',
    default: '2',
    help: 'send a request again up to N times after a connection failure, 429, 502, 503 or 504 (0 = never)',
    more: [
      'GET, HEAD, PUT, DELETE and OPTIONS; POST and PATCH only when the operation',
      'declares an Idempotency-Key header (the same key on every try). Waits',
      'follow Retry-After, else a jittered backoff from 250 ms, within --timeout',
    ],
  },
  {
    flag: 'max-concurrent-requests',
    range: { min: 1, max: 10_000 },
    value: 'N',
    env: 'API_MAX_CONCURRENT_REQUESTS',
    default: '8',
    help: 'most requests in flight to one API origin; the others wait their turn within --timeout',
  },
  {
    flag: 'rate-limit',
    value: 'N',
    env: 'API_RATE_LIMIT',
    default: 'off',
    help: 'most requests per second to one API origin, spaced evenly (e.g. 5, or 0.5 for one every 2 s)',
  },
  {
    flag: 'max-response-bytes',
    range: { min: 1, max: 2 ** 31 },
    value: 'N',
    env: 'MCP_MAX_RESPONSE_BYTES',
    default: '262144',
    help: 'cut upstream bodies above N bytes',
  },
  {
    flag: 'max-answer-bytes',
    range: { min: 0, max: 2 ** 31 },
    value: 'N',
    env: 'MCP_MAX_ANSWER_BYTES',
    default: '65536',
    help: "cut a good answer's text to N bytes for the model, JSON kept valid (0 = no limit)",
    more: [
      'a list keeps its first items whole, with a note naming the next page;',
      'an object gives up its largest values for placeholders. 64 KiB is about',
      '16,000 tokens, under the 25,000 a client such as Claude Code accepts',
      'from one tool call. --max-response-bytes limits what is read upstream.',
    ],
  },
  {
    flag: 'max-request-bytes',
    range: { min: 1, max: 2 ** 31 },
    value: 'N',
    env: 'MCP_MAX_REQUEST_BYTES',
    default: '4194304',
    help: 'refuse MCP request bodies above N bytes',
  },
  {
    flag: 'allowed-hosts',
    value: 'a,b',
    env: 'MCP_ALLOWED_HOSTS',
    default: 'loopback only',
    help: 'extra Host names accepted over HTTP (DNS-rebinding protection)',
  },
  { flag: 'allowed-origins', value: 'a,b', env: 'MCP_ALLOWED_ORIGINS', default: 'loopback only', help: 'extra Origins accepted over HTTP' },
  {
    flag: 'log-level',
    choices: LOG_LEVELS,
    value: 'L',
    env: 'LOG_LEVEL',
    default: 'info',
    help: 'debug | info | warn | error | silent; logs go to stderr',
  },
  {
    flag: 'log-calls',
    env: 'MCP_LOG_CALLS',
    help: 'one JSON line per tool call on stderr: tool, outcome, duration, upstream statuses, attempts, trace id',
    more: ['never an argument value, a header or a body; written whatever --log-level says'],
  },
  {
    flag: 'header',
    value: '"Name: value"',
    multiple: true,
    env: 'API_HEADERS',
    help: 'send this header with every upstream request; repeatable (the variable: one per line)',
    more: ['e.g. a token for an API whose spec declares no security scheme; never logged,', 'dropped on a redirect to another origin'],
  },
  {
    flag: 'auth-token',
    value: 'T',
    env: 'MCP_AUTH_TOKEN',
    help: 'require "Authorization: Bearer T" from MCP clients over HTTP',
    more: [
      'letters, digits, - . _ ~ + / and a trailing =, e.g. openssl rand -hex 32;',
      'an empty --auth-token is refused (an empty variable is unset)',
    ],
  },
  {
    flag: 'oauth-issuer',
    value: 'URL',
    env: 'MCP_OAUTH_ISSUER',
    default: 'off',
    help: 'accept OAuth 2.1 access tokens from this authorization server (its issuer URL) instead of --auth-token',
    more: [
      'the server becomes an OAuth resource server: /.well-known/oauth-protected-resource,',
      '401 with resource_metadata, tokens checked for issuer, audience, expiry and scopes;',
      'see docs/oauth.md for Keycloak, Auth0, Entra ID, Okta and Google',
    ],
  },
  {
    flag: 'public-url',
    value: 'URL',
    env: 'MCP_PUBLIC_URL',
    default: "http://<Host's name>:<port listened on> on loopback",
    help: "this server's URL as clients reach it (behind a proxy, the proxy's): the OAuth resource identifier",
  },
  {
    flag: 'oauth-audience',
    value: 'a,b',
    env: 'MCP_OAUTH_AUDIENCE',
    default: '--public-url and its /mcp, /sse',
    help: 'token audiences (aud) accepted, when the authorization server names this server otherwise',
  },
  {
    flag: 'oauth-token-check',
    choices: ['jwt', 'introspection'],
    value: 'C',
    env: 'MCP_OAUTH_TOKEN_CHECK',
    default: 'jwt',
    help: "jwt (signature by the issuer's JWKS) or introspection (RFC 7662, for opaque tokens)",
  },
  {
    flag: 'oauth-client-id',
    value: 'ID',
    env: 'MCP_OAUTH_CLIENT_ID',
    help: "this server's own client at the authorization server, for introspection and token exchange",
  },
  {
    flag: 'oauth-client-secret',
    value: 'S',
    env: 'MCP_OAUTH_CLIENT_SECRET',
    help: "that client's secret (prefer the variable: a flag shows in the process list)",
  },
  {
    flag: 'oauth-read-scope',
    value: 'S',
    env: 'MCP_OAUTH_READ_SCOPE',
    default: 'mcp:read',
    help: "scope a token needs for read-only tools, unless the config file's scopes rules name others",
  },
  {
    flag: 'oauth-write-scope',
    value: 'S',
    env: 'MCP_OAUTH_WRITE_SCOPE',
    default: 'mcp:write',
    help: 'scope a token needs for every other tool, unless the scopes rules name others',
  },
  {
    flag: 'oauth-scope-prefix',
    value: 'P',
    env: 'MCP_OAUTH_SCOPE_PREFIX',
    default: 'none',
    help: 'written before every scope this server asks for (Entra ID: api://<app id>/); tokens may carry scopes with or without it',
  },
  {
    flag: 'oauth-introspection-cache-ms',
    range: { min: 0, max: 3_600_000 },
    value: 'MS',
    env: 'MCP_OAUTH_INTROSPECTION_CACHE_MS',
    default: '30000',
    help: 'remember an introspection answer this long: a revoked token still works at most this long (0 = ask every time)',
  },
  {
    flag: 'token-exchange',
    choices: ['off', 'rfc8693', 'entra-obo'],
    value: 'KIND',
    env: 'MCP_TOKEN_EXCHANGE',
    default: 'rfc8693 when an audience or scope is given, else off',
    help: "call the API with each caller's own token, exchanged for one meant for the API: rfc8693 or entra-obo",
  },
  {
    flag: 'token-exchange-audience',
    value: 'A',
    env: 'MCP_TOKEN_EXCHANGE_AUDIENCE',
    help: 'the API as the authorization server names it (sent as audience, and as resource when a URL)',
  },
  {
    flag: 'token-exchange-scope',
    value: 'S',
    env: 'MCP_TOKEN_EXCHANGE_SCOPE',
    help: 'scopes to ask for the API token (entra-obo: api://<API app>/.default)',
  },
  {
    flag: 'upstream-identity-header',
    value: 'NAME',
    env: 'MCP_UPSTREAM_IDENTITY_HEADER',
    help: "send the caller's subject (the token's sub) to the API in this header",
    more: ["the token's client id when it has no sub; dropped on a redirect to another origin"],
  },
  {
    flag: 'oauth-api-client-id',
    value: 'ID',
    env: 'MCP_OAUTH_API_CLIENT_ID',
    default: 'off',
    help: "the API's OAuth app: each user signs in at the API and the server calls it with that user's token",
    more: [
      'without --oauth-issuer the server is the authorization server MCP clients see',
      '(client ID metadata documents, dynamic registration, PKCE, consent page);',
      'with it, a user signed in there links an API account on first need.',
      "register <public-url>/oauth/callback as the app's callback URL; see docs/oauth-server.md",
    ],
  },
  {
    flag: 'oauth-api-client-secret',
    value: 'S',
    env: 'MCP_OAUTH_API_CLIENT_SECRET',
    help: "that app's client secret (prefer the variable: a flag shows in the process list)",
  },
  {
    flag: 'oauth-api-authorization-url',
    value: 'URL',
    env: 'MCP_OAUTH_API_AUTHORIZATION_URL',
    default: "the spec's authorization code flow",
    help: 'where users sign in at the API (e.g. https://github.com/login/oauth/authorize)',
  },
  {
    flag: 'oauth-api-token-url',
    value: 'URL',
    env: 'MCP_OAUTH_API_TOKEN_URL',
    default: "the spec's authorization code flow",
    help: "where the server trades the API's codes and refresh tokens",
  },
  {
    flag: 'oauth-api-scopes',
    value: 'a,b',
    env: 'MCP_OAUTH_API_SCOPES',
    default: 'the scopes the served tools declare',
    help: 'scopes asked of the API at sign-in',
  },
  {
    flag: 'oauth-api-client-auth',
    choices: ['post', 'basic'],
    value: 'M',
    env: 'MCP_OAUTH_API_CLIENT_AUTH',
    default: 'post',
    help: "how the secret goes to the API's token URL: post (form fields) or basic (Authorization header)",
  },
  {
    flag: 'operation-store',
    value: 'S',
    env: 'MCP_OPERATION_STORE',
    default: 'memory',
    help: 'where long-running operation handles and tasks live: memory (this process) or a store replicas share',
    more: [
      'redis://… (Node), deno-kv or deno-kv:PATH (Deno), workers-kv:BINDING',
      '(Workers); a shared store seals each operation with MCP_TOKEN_STORE_KEY',
    ],
  },
  {
    flag: 'token-store',
    value: 'S',
    env: 'MCP_TOKEN_STORE',
    default: 'file',
    help: "where signed-in users' tokens live: file (under --data-dir) or a store replicas share",
    more: ['redis://… (Node), deno-kv or deno-kv:PATH (Deno), durable-object:BINDING or', 'workers-kv:BINDING (Workers)'],
  },
  {
    flag: 'data-dir',
    value: 'DIR',
    env: 'MCP_DATA_DIR',
    default: '.mcp-data',
    help: 'folder of the file token store (one server process per folder)',
  },
  {
    flag: 'token-store-key',
    value: 'K',
    env: 'MCP_TOKEN_STORE_KEY',
    help: 'AES-256-GCM key sealing the token store and a shared operation store: openssl rand -base64 32 (prefer the variable)',
    more: ['rotation: new,old (comma-separated): the first seals, every one opens'],
  },
  {
    flag: 'auth-from-headers',
    value: 'H=S,...',
    env: 'MCP_AUTH_FROM_HEADERS',
    default: 'off',
    help: "take the credential of security scheme S from the MCP client's HTTP header H, per request",
  },
  {
    flag: 'cors-origins',
    value: 'a,b',
    env: 'MCP_CORS_ORIGINS',
    default: 'off',
    help: 'let browsers on these origins call the endpoint (* = any)',
  },
  {
    flag: 'max-sessions',
    range: { min: 1, max: 1_000_000 },
    value: 'N',
    env: 'MCP_MAX_SESSIONS',
    default: '1000',
    help: 'most open sessions',
  },
  {
    flag: 'session-idle-ms',
    range: { min: 1_000, max: 2 ** 31 },
    value: 'MS',
    env: 'MCP_SESSION_IDLE_MS',
    default: '1800000',
    help: 'close sessions unused this long',
  },
  {
    flag: 'shutdown-grace-ms',
    range: { min: 0, max: 600_000 },
    value: 'MS',
    env: 'MCP_SHUTDOWN_GRACE_MS',
    default: '10000',
    help: 'time in-flight calls get on SIGTERM',
  },
  {
    flag: 'max-sessions-per-client',
    range: { min: 1, max: 1_000_000 },
    value: 'N',
    env: 'MCP_MAX_SESSIONS_PER_CLIENT',
    default: '250',
    help: 'most open sessions per client IP address (429 above)',
  },
  {
    flag: 'request-timeout-ms',
    range: { min: 100, max: 3_600_000 },
    value: 'MS',
    env: 'MCP_REQUEST_TIMEOUT_MS',
    default: '30000',
    help: 'time a client gets to send a whole request, headers and body (408 above; SSE streams are not cut)',
  },
  {
    flag: 'headers-timeout-ms',
    range: { min: 100, max: 3_600_000 },
    value: 'MS',
    env: 'MCP_HEADERS_TIMEOUT_MS',
    default: '10000',
    help: "time a client gets to send a request's headers, from connecting or the request's first byte (408 above)",
    more: ['at most --request-timeout-ms'],
  },
  // A Streamable HTTP session holds its GET stream and, while a call runs, a POST: 200 sessions
  // from one address were measured at 451 connections. Half of this default must leave room for
  // every session --max-sessions-per-client allows.
  {
    flag: 'max-connections',
    range: { min: 1, max: 1_000_000 },
    value: 'N',
    env: 'MCP_MAX_CONNECTIONS',
    default: '2000',
    help: 'most open TCP connections',
  },
  {
    flag: 'max-connections-per-address',
    range: { min: 1, max: 1_000_000 },
    value: 'N',
    env: 'MCP_MAX_CONNECTIONS_PER_ADDRESS',
    default: 'half of --max-connections',
    help: 'most open TCP connections from one client IP address (past it, a new one takes the slot of one still waiting for its request head, else is closed); behind a proxy, raise it to --max-connections',
  },
  {
    flag: 'allow-unauthenticated',
    env: 'MCP_ALLOW_UNAUTHENTICATED',
    help: "serve beyond loopback (or with --cors-origins '*') without --auth-token or --oauth-issuer",
    more: ['accepting that anyone who reaches the port uses the API credentials'],
  },
];

export function setting(flag: string): Setting {
  const found = SETTINGS.find((s) => s.flag === flag);
  if (found === undefined) throw new Error(`no setting --${flag}`);
  return found;
}

/** `--flag VALUE`, as help and the README show it. */
export const flagText = (s: Setting): string => `--${s.flag}${s.value ? ` ${s.value}` : ''}`;

/** The variable as set by hand: `MCP_STATELESS=1` for a switch. */
export const envText = (s: Setting): string => (s.value === undefined ? `${s.env}=1` : s.env);

/**
 * The settings by concern, in the order a user looks for them: .env.example lists them so, under
 * a heading each. Every setting is in exactly one group (test/unit/settings.test.ts).
 */
export const SETTING_GROUPS: readonly { title: string; flags: readonly string[] }[] = [
  {
    title: 'How clients reach the server',
    flags: ['transport', 'port', 'host', 'auth-token', 'allowed-hosts', 'allowed-origins', 'cors-origins'],
  },
  {
    title: 'The API',
    flags: [
      'base-url',
      'header',
      'auth-from-headers',
      'timeout',
      'retries',
      'max-concurrent-requests',
      'rate-limit',
      'operation-wait',
      'stream-max-items',
      'stream-time-ms',
    ],
  },
  {
    title: 'What the agent sees and may do',
    flags: [
      'tools',
      'toolsets',
      'dynamic-toolsets',
      'read-only',
      'confirm',
      'apps',
      'client-profile',
      'max-answer-bytes',
      'max-response-bytes',
    ],
  },
  { title: 'Code mode', flags: ['code-memory-mb', 'code-time-ms', 'code-max-calls', 'code-max-result-bytes'] },
  { title: 'Logs', flags: ['log-level', 'log-calls'] },
  {
    title: 'Users signing in (OAuth)',
    flags: [
      'oauth-issuer',
      'public-url',
      'oauth-audience',
      'oauth-token-check',
      'oauth-client-id',
      'oauth-client-secret',
      'oauth-read-scope',
      'oauth-write-scope',
      'oauth-scope-prefix',
      'oauth-introspection-cache-ms',
      'token-exchange',
      'token-exchange-audience',
      'token-exchange-scope',
      'upstream-identity-header',
      'oauth-api-client-id',
      'oauth-api-client-secret',
      'oauth-api-authorization-url',
      'oauth-api-token-url',
      'oauth-api-scopes',
      'oauth-api-client-auth',
      'token-store',
      'data-dir',
      'token-store-key',
    ],
  },
  {
    title: 'Running behind a load balancer, and limits',
    flags: [
      'stateless',
      'replica-id',
      'operation-store',
      'sse-keepalive-ms',
      'drain-delay-ms',
      'shutdown-grace-ms',
      'max-request-bytes',
      'max-sessions',
      'max-sessions-per-client',
      'session-idle-ms',
      'request-timeout-ms',
      'headers-timeout-ms',
      'max-connections',
      'max-connections-per-address',
      'allow-unauthenticated',
    ],
  },
];
