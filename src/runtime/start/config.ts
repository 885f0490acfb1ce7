// Start-up options of the generated server: flags first, then environment, then defaults.
// A bad value is one line on stderr and exit code 2, never a stack trace. The flags come parsed
// (command-line.ts, Node's): a platform's web handler has no command line, only variables.

import { type ClientProfile } from '../../contract/profiles.js';
import {
  CODE_LIMIT_DEFAULTS,
  setting,
  type CONFIRM_SETTINGS,
  type LOG_LEVELS,
  type TOOL_MODES,
  type TRANSPORT_NAMES,
  type AppsSetting,
} from '../../contract/settings.js';
import { unsendableHeaderName } from '../../contract/headers.js';
import { nearest } from '../../contract/did-you-mean.js';

export type TransportName = (typeof TRANSPORT_NAMES)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];
export type ToolMode = (typeof TOOL_MODES)[number];
export type ConfirmSetting = (typeof CONFIRM_SETTINGS)[number];

export interface ServerConfig {
  transport: TransportName;
  host: string;
  port: number;
  /** Upstream API base URL; overrides the spec's servers. */
  baseUrl?: string;
  /** Upstream request timeout in milliseconds. */
  timeoutMs: number;
  /** How long a call follows a long-running operation before answering a handle (long-running.ts). */
  operationWaitMs: number;
  /** How a streamed answer's reading is bounded (stream-reader.ts): most items, and most time. */
  stream: { maxItems: number; timeMs: number };
  /** Where handles past the wait live when not in memory (operation-store.ts), with the key sealing them. */
  operationStore?: { location: string; keys: string };
  /** Retries of a failed request (retry.ts) and the pace of requests to each API origin (pacing.ts). */
  sending: { retries: number; maxConcurrent: number; ratePerSecond?: number };
  /** Largest upstream body passed on to the client, in bytes; more is cut with a note. */
  maxResponseBytes: number;
  /**
   * Most bytes of a good answer's text (and structuredContent, the same value) sent to the
   * model; a JSON answer over it is cut where JSON stays valid (answer-budget.ts); 0 = no limit.
   */
  maxAnswerBytes: number;
  /** Largest MCP request body accepted over HTTP, in bytes (413 above). */
  maxRequestBytes: number;
  /** Host names accepted in the Host header (DNS-rebinding protection); empty = loopback only. */
  allowedHosts: string[];
  /** Origins accepted in the Origin header; empty = loopback origins only. */
  allowedOrigins: string[];
  logLevel: LogLevel;
  /** One JSON line per tools/call on stderr (observe.ts): tool, outcome, duration, upstream statuses, attempts. */
  logCalls: boolean;
  /** Bearer token MCP clients must send over HTTP; unset = no check. */
  authToken?: string;
  /** Per-request upstream credentials: MCP client HTTP header → security scheme name. */
  authFromHeaders: { header: string; scheme: string }[];
  /** Headers sent with every upstream request (for APIs whose spec declares no security scheme). Secret: never logged. */
  staticHeaders: [string, string][];
  /** Toolsets to serve (empty: all); see toolsets.ts. */
  toolsets: string[];
  /** Serve only read-only tools (of safe methods: readOnlyHint). */
  readOnly: boolean;
  /** What tools/list shows; unset: the mode chosen at generation (see ToolTable.serve). */
  toolMode?: ToolMode;
  /** Which calls wait for the user's yes (--confirm); an operation's own `confirm` in tools.json wins. */
  confirm: ConfirmSetting;
  /** Whether clients that declare MCP Apps get views (--apps). */
  apps: AppsSetting;
  /** Code mode's sandbox: memory, CPU time, api calls and result size of one execute. */
  codeLimits: { memoryBytes: number; timeMs: number; maxCalls: number; maxResultBytes: number; maxLogBytes: number };
  /** How listed schemas are adapted to the client (profiles.ts). */
  clientProfile: ClientProfile;
  /** Serve every Streamable HTTP request on its own (no sessions): any replica can answer. */
  stateless: boolean;
  /** Prefix of this replica's session ids (`<replicaId>.<uuid>`), for a proxy's session affinity. */
  replicaId?: string;
  /** Interval of the keep-alive comment on SSE streams (legacy and Streamable HTTP), in milliseconds; 0 = none. */
  sseKeepAliveMs: number;
  /** After SIGTERM, time during which /healthz answers 503 but requests are still served, in milliseconds. */
  drainDelayMs: number;
  /** Origins allowed to call over CORS; empty = CORS off. */
  corsOrigins: string[];
  /** Most sessions open at once (503 above). */
  maxSessions: number;
  /** A session unused this long is closed, in milliseconds. */
  sessionIdleMs: number;
  /** On SIGTERM/SIGINT, in-flight requests get this long to finish, in milliseconds. */
  shutdownGraceMs: number;
  /** Most sessions (Streamable HTTP and SSE together) one remote address may hold (429 above). */
  maxSessionsPerClient: number;
  /** Time to receive a whole request (headers and body), in milliseconds (408 above). */
  requestTimeoutMs: number;
  /** Time to receive a request's head, from connecting or from the request's first byte, in milliseconds. */
  headersTimeoutMs: number;
  /** Most TCP connections open at once; more are closed on arrival. */
  maxConnections: number;
  /** Most TCP connections open at once from one remote address, so that one client cannot take them all. */
  maxConnectionsPerAddress: number;
  /** Serve HTTP beyond loopback without MCP_AUTH_TOKEN (or CORS `*` without it): the operator accepts the risk. */
  allowUnauthenticated: boolean;
  /** OAuth 2.1 resource-server mode (--oauth-issuer); unset: --auth-token or no check. */
  oauth?: OAuthConfig;
}

/** jwt or introspection for an outside authorization server's tokens; self for those this server issues. */
type TokenCheck = 'jwt' | 'introspection' | 'self';
export type TokenExchangeKind = 'rfc8693' | 'entra-obo';

export interface OAuthConfig {
  /** The authorization server's issuer; its metadata is found by RFC 8414 or OpenID discovery. */
  issuer: string;
  /** This server's public URL (the resource identifier); unset: `http://<Host's name>:<port listened on>`, on loopback only. */
  publicUrl?: string;
  /** Token audiences accepted; empty: the resource identifier. */
  audiences: string[];
  tokenCheck: TokenCheck;
  /** This server's own client, for introspection and token exchange. The secret is never logged. */
  clientId?: string;
  clientSecret?: string;
  /** Scope of read-only tools, and of the others, where tools.json names none. */
  readScope: string;
  writeScope: string;
  /** Written before every scope the server asks for; tokens' scopes are compared without it. */
  scopePrefix?: string;
  introspectionCacheMs: number;
  /** Exchange each caller's token for one meant for the API (RFC 8693, or Entra's on-behalf-of). */
  tokenExchange?: { kind: TokenExchangeKind; audience?: string; scope?: string };
  /** Header that carries the caller's subject to the API. */
  identityHeader?: string;
  /** Each user's own API account (--oauth-api-client-id): signed in here (tokenCheck self), or linked. */
  signIn?: SignInConfig;
}

/** The API's OAuth app, through which each user signs in at the API; and where their tokens are kept. */
export interface SignInConfig {
  clientId: string;
  /** Never logged. */
  clientSecret: string;
  /** Over the spec's authorization code flow. */
  authorizationUrl?: string;
  tokenUrl?: string;
  scopes?: string[];
  clientAuth: 'post' | 'basic';
  store: { location: string; dataDir: string; keys: string };
}

export class ConfigError extends Error {}

/**
 * `--flag must be a, b or c (got "x")`, with the nearest allowed value when it looks like a
 * typo (`suggest`; the OAuth choices never said it).
 */
function notOneOf(flag: string, allowed: readonly string[], got: string, suggest = true): string {
  const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : (allowed[0] ?? '');
  const typo = suggest ? nearest(got, allowed) : undefined;
  return `--${flag} must be ${list} (got "${got}"${typo === undefined ? '' : `; did you mean "${typo}"?`})`;
}

/** Flags are string or boolean (or string[] when multiple), as SERVER_OPTIONS (command-line.ts) declares them. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** Each setting read the one way: the flag, else its variable, else its default; ranges and choices from settings.ts. */
interface SettingReader {
  /** The flag, else its variable (an empty one is unset), else undefined. */
  pick(flag: string): string | undefined;
  /** A switch: the flag, or its variable set to 1, true or yes. */
  on(flag: string): boolean;
  /** A comma-separated list, empty when not given. */
  list(flag: string): string[];
  /** A whole number within the setting's range, else its default. */
  integer(flag: string): number;
  /** One of the setting's choices, else its default when that is one of them. */
  choice<T extends string>(flag: string, suggest?: boolean): T | undefined;
}

function settingReader(values: FlagValues, env: NodeJS.ProcessEnv): SettingReader {
  const pick = (flag: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    const e = env[setting(flag).env];
    return e !== undefined && e !== '' ? e : undefined;
  };
  return {
    pick,
    on: (flag) => values[flag] === true || /^(1|true|yes)$/i.test(env[setting(flag).env] ?? ''),
    list: (flag) =>
      (pick(flag) ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    integer: (flag) => {
      const { default: fallback, range } = setting(flag) as { default: string; range: { min: number; max: number } };
      const text = pick(flag);
      if (text === undefined) return Number(fallback);
      const n = Number(text);
      if (!/^\d+$/.test(text.trim()) || n < range.min || n > range.max) {
        throw new ConfigError(`--${flag} must be a whole number from ${range.min} to ${range.max} (got "${text}")`);
      }
      return n;
    },
    choice: <T extends string>(flag: string, suggest = true) => {
      const { default: fallback, choices = [] } = setting(flag);
      const value = pick(flag) ?? (fallback !== undefined && choices.includes(fallback) ? fallback : undefined);
      if (value !== undefined && !choices.includes(value)) throw new ConfigError(notOneOf(flag, choices, value, suggest));
      return value as T | undefined;
    },
  };
}

/** The settings from parsed flags and the environment; --help, --version and --clients instead when given. */
export function configFrom(values: FlagValues, env: NodeJS.ProcessEnv): ServerConfig | 'help' | 'version' | 'clients' {
  if (values.help) return 'help';
  if (values.version) return 'version';
  if (values.clients) return 'clients';
  const read = settingReader(values, env);
  const transport = read.choice<TransportName>('transport') as TransportName;
  const logLevel = read.choice<LogLevel>('log-level') as LogLevel;
  const toolMode = readToolMode(read);
  const confirm = read.choice<ConfirmSetting>('confirm') as ConfirmSetting;
  const clientProfile = read.choice<ClientProfile>('client-profile') as ClientProfile;
  const baseUrl = readBaseUrl(read);
  const { authToken, authFromHeaders } = readClientCredentials(read, values, env);
  const replicaId = readReplicaId(read);
  const host = read.pick('host') ?? (setting('host').default as string);
  const corsOrigins = read.list('cors-origins');
  const allowUnauthenticated = read.on('allow-unauthenticated');
  const oauth = readOAuth(read, { transport, host, authToken, authFromHeaders });
  refuseOpenServer({ transport, host, corsOrigins, open: authToken === undefined && oauth === undefined && !allowUnauthenticated });
  const connectionLimits = readConnectionLimits(read);
  return {
    transport,
    host,
    port: read.integer('port'),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    timeoutMs: read.integer('timeout'),
    operationWaitMs: read.integer('operation-wait'),
    stream: { maxItems: read.integer('stream-max-items'), timeMs: read.integer('stream-time-ms') },
    ...readOperationStore(read),
    sending: readSending(read),
    maxResponseBytes: read.integer('max-response-bytes'),
    maxAnswerBytes: read.integer('max-answer-bytes'),
    maxRequestBytes: read.integer('max-request-bytes'),
    allowedHosts: read.list('allowed-hosts'),
    allowedOrigins: read.list('allowed-origins'),
    logLevel,
    logCalls: read.on('log-calls'),
    ...(authToken !== undefined ? { authToken } : {}),
    authFromHeaders,
    staticHeaders: readStaticHeaders(values, env),
    toolsets: read.list('toolsets'),
    readOnly: read.on('read-only'),
    ...(toolMode !== undefined ? { toolMode } : {}),
    confirm,
    apps: read.choice<AppsSetting>('apps') as AppsSetting,
    codeLimits: readCodeLimits(read),
    clientProfile,
    stateless: read.on('stateless'),
    ...(replicaId !== undefined ? { replicaId } : {}),
    sseKeepAliveMs: read.integer('sse-keepalive-ms'),
    drainDelayMs: read.integer('drain-delay-ms'),
    corsOrigins,
    ...readSessionLimits(read),
    ...connectionLimits,
    allowUnauthenticated,
    ...(oauth !== undefined ? { oauth } : {}),
  };
}

/** --tools, or toolsets for the older --dynamic-toolsets switch (which cannot name another mode). */
function readToolMode(read: SettingReader): ToolMode | undefined {
  const dynamicToolsets = read.on('dynamic-toolsets');
  const toolMode = read.pick('tools') === undefined && dynamicToolsets ? 'toolsets' : read.choice<ToolMode>('tools');
  if (dynamicToolsets && toolMode !== 'toolsets')
    throw new ConfigError(`--dynamic-toolsets is --tools toolsets: it cannot be combined with --tools ${toolMode}`);
  return toolMode;
}

function readBaseUrl(read: SettingReader): string | undefined {
  const baseUrl = read.pick('base-url');
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(baseUrl)) {
    // the URL may carry a password: show it without userinfo
    throw new ConfigError(`--base-url must be an absolute http(s) URL (got "${baseUrl.replace(/^([^/]*\/\/)[^/@]*@/, '$1***@')}")`);
  }
  return baseUrl?.replace(/\/+$/, '');
}

/** --auth-token (this server's own) and --auth-from-headers (the client's headers that carry the API's). */
function readClientCredentials(
  read: SettingReader,
  values: FlagValues,
  env: NodeJS.ProcessEnv,
): { authToken: string | undefined; authFromHeaders: { header: string; scheme: string }[] } {
  const authToken = endpointToken(values['auth-token'], env[setting('auth-token').env]);
  const authFromHeaders = read.list('auth-from-headers').map((pair) => {
    const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)=(.+)$/.exec(pair);
    if (!m) throw new ConfigError(`--auth-from-headers takes Header=scheme pairs (got "${pair}")`);
    return { header: (m[1] as string).toLowerCase(), scheme: (m[2] as string).trim() };
  });
  // With an endpoint token the client's Authorization is this server's token: the API never gets it.
  if (authToken !== undefined && authFromHeaders.some((m) => m.header === 'authorization')) {
    throw new ConfigError(
      "--auth-from-headers cannot map Authorization with --auth-token (MCP_AUTH_TOKEN): that header carries this server's token, never the API's",
    );
  }
  return { authToken, authFromHeaders };
}

/** --header lines (or API_HEADERS, one a line): `Name: value`, never a header this server owns. */
function readStaticHeaders(values: FlagValues, env: NodeJS.ProcessEnv): [string, string][] {
  const headerLines = Array.isArray(values.header) ? values.header : (env[setting('header').env] ?? '').split('\n');
  return headerLines
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '')
    .map((line, i): [string, string] => {
      const where = Array.isArray(values.header) ? `--header #${i + 1}` : `API_HEADERS line ${i + 1}`;
      // The value is a secret: messages name the place, never the text.
      const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
      if (!m) throw new ConfigError(`${where} must be "Name: value" with a valid header name`);
      const owned = unsendableHeaderName(m[1] as string);
      if (owned !== undefined) throw new ConfigError(`${where}: ${owned}`);
      if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(m[2] as string))
        throw new ConfigError(`${where}: the value contains a control character or a character an HTTP header cannot carry`);
      return [m[1] as string, m[2] as string];
    });
}

function readReplicaId(read: SettingReader): string | undefined {
  const replicaId = read.pick('replica-id');
  // It becomes the start of every session id (visible ASCII) and a proxy's routing key.
  if (replicaId !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(replicaId)) {
    throw new ConfigError(`--replica-id must be 1 to 32 letters, digits, _ or - (got "${replicaId}")`);
  }
  return replicaId;
}

/**
 * Without a token, whoever reaches the port calls the API with the operator's credentials
 * (and the Host check cannot stop them: any client can send `Host: localhost`). Likewise
 * CORS `*` lets every web page the user visits drive a local server.
 */
function refuseOpenServer(server: { transport: TransportName; host: string; corsOrigins: string[]; open: boolean }): void {
  if (server.transport === 'stdio' || !server.open) return;
  if (!isLoopback(server.host)) {
    throw new ConfigError(
      `--host ${server.host} serves beyond loopback: set MCP_AUTH_TOKEN (or --auth-token), or pass --allow-unauthenticated (MCP_ALLOW_UNAUTHENTICATED=1) to accept the risk`,
    );
  }
  if (server.corsOrigins.includes('*')) {
    throw new ConfigError(
      `--cors-origins '*' lets any web page call this server: set MCP_AUTH_TOKEN (or --auth-token), or pass --allow-unauthenticated (MCP_ALLOW_UNAUTHENTICATED=1) to accept the risk`,
    );
  }
}

function readCodeLimits(read: SettingReader): ServerConfig['codeLimits'] {
  return {
    memoryBytes: read.integer('code-memory-mb') * 1_048_576,
    timeMs: read.integer('code-time-ms'),
    maxCalls: read.integer('code-max-calls'),
    maxResultBytes: read.integer('code-max-result-bytes'),
    maxLogBytes: CODE_LIMIT_DEFAULTS.maxLogBytes,
  };
}

function readSessionLimits(
  read: SettingReader,
): Pick<
  ServerConfig,
  'maxSessions' | 'sessionIdleMs' | 'shutdownGraceMs' | 'maxSessionsPerClient' | 'requestTimeoutMs' | 'headersTimeoutMs'
> {
  return {
    maxSessions: read.integer('max-sessions'),
    sessionIdleMs: read.integer('session-idle-ms'),
    shutdownGraceMs: read.integer('shutdown-grace-ms'),
    maxSessionsPerClient: read.integer('max-sessions-per-client'),
    requestTimeoutMs: read.integer('request-timeout-ms'),
    headersTimeoutMs: read.integer('headers-timeout-ms'),
  };
}

/** --max-connections, and per address half of it unless given (never above it). */
function readConnectionLimits(read: SettingReader): Pick<ServerConfig, 'maxConnections' | 'maxConnectionsPerAddress'> {
  const maxConnections = read.integer('max-connections');
  const maxConnectionsPerAddress =
    read.pick('max-connections-per-address') === undefined
      ? Math.max(1, Math.floor(maxConnections / 2))
      : read.integer('max-connections-per-address');
  if (maxConnectionsPerAddress > maxConnections) {
    throw new ConfigError(
      `--max-connections-per-address (${maxConnectionsPerAddress}) cannot be above --max-connections (${maxConnections})`,
    );
  }
  return { maxConnections, maxConnectionsPerAddress };
}

/** --retries, --max-concurrent-requests and --rate-limit (a positive number, fractions allowed: 0.5 is one every 2 s). */
function readSending(read: SettingReader): ServerConfig['sending'] {
  const retries = read.integer('retries');
  const maxConcurrent = read.integer('max-concurrent-requests');
  const ratePerSecond = rateLimitOf(read.pick('rate-limit'), '--rate-limit');
  return ratePerSecond === undefined ? { retries, maxConcurrent } : { retries, maxConcurrent, ratePerSecond };
}

/** A rate limit as --rate-limit (or `name`) takes it: requests per second, or undefined for off or none. */
export function rateLimitOf(text: string | undefined, name: string): number | undefined {
  const rate = text?.trim();
  if (rate === undefined || rate === 'off') return undefined;
  const ratePerSecond = Number(rate);
  if (!/^\d*\.?\d+$/.test(rate) || ratePerSecond <= 0 || ratePerSecond > 100_000) {
    throw new ConfigError(`${name} must be off or a number of requests per second above 0, at most 100000 (got "${rate}")`);
  }
  return ratePerSecond;
}

/** RFC 6749 scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Settings of the resource-server mode only (--oauth-issuer). */
const ISSUER_ONLY = ['oauth-audience', 'oauth-token-check', 'token-exchange'];
/** Settings of either mode: --oauth-issuer, or the authorization-server mode (--oauth-api-client-id). */
const EITHER_MODE = ['public-url', 'oauth-scope-prefix', 'upstream-identity-header'];

/**
 * An OAuth setting given without either mode would be silently ignored: refused, naming what
 * its mode needs. A client secret without its id is most likely a mistyped id variable: said so.
 */
function refuseStrayOAuthSettings(pick: (flag: string) => string | undefined): void {
  const issuer = `--oauth-issuer (${setting('oauth-issuer').env})`;
  const issuerOnly = ISSUER_ONLY.find((flag) => pick(flag) !== undefined);
  if (issuerOnly !== undefined) throw new ConfigError(`--${issuerOnly} needs ${issuer}: it is for tokens of your authorization server`);
  const either = EITHER_MODE.find((flag) => pick(flag) !== undefined);
  if (either === undefined) return;
  const clientId = `--oauth-api-client-id (${setting('oauth-api-client-id').env})`;
  const secret = setting('oauth-api-client-secret').env;
  if (pick('oauth-api-client-secret') !== undefined) {
    throw new ConfigError(`--${either} needs ${clientId}: ${secret} is set, its client id is not`);
  }
  throw new ConfigError(
    `--${either} needs ${issuer} to check the tokens of your authorization server, or ${clientId} with ${secret} for this server to sign users in at the API`,
  );
}

type ClientSide = { transport: TransportName; host: string; authToken: string | undefined; authFromHeaders: { header: string }[] };

/** The OAuth settings, checked together; undefined without --oauth-issuer or --oauth-api-client-id. */
function readOAuth(read: SettingReader, other: ClientSide): OAuthConfig | undefined {
  const given = read.pick('oauth-issuer');
  const signIn = readSignIn(read);
  if (given === undefined && signIn === undefined) {
    refuseStrayOAuthSettings(read.pick);
    return undefined;
  }
  const mode = given !== undefined ? '--oauth-issuer' : '--oauth-api-client-id';
  if (other.transport === 'stdio') {
    throw new ConfigError(`${mode} serves HTTP clients: choose --transport http, sse or http+sse (a stdio client is the local user)`);
  }
  if (other.authToken !== undefined) {
    throw new ConfigError(`${mode} and --auth-token (MCP_AUTH_TOKEN) exclude each other: choose one way to authenticate clients`);
  }
  if (given === undefined) return ownIssuer(read, other, signIn as SignInConfig);
  return otherIssuer(read, other, given, signIn);
}

/** The resource-server mode: tokens of the authorization server at --oauth-issuer. */
function otherIssuer(read: SettingReader, other: ClientSide, issuer: string, signIn: SignInConfig | undefined): OAuthConfig {
  const { pick } = read;
  const local = isLoopback(other.host);
  const issuerUrl = absoluteUrl('oauth-issuer', issuer, false);
  // Forwarding the client's Authorization header would hand its MCP token to the API.
  if (other.authFromHeaders.some((m) => m.header === 'authorization')) {
    throw new ConfigError(
      "--auth-from-headers cannot map Authorization with --oauth-issuer: the caller's token is for this server, never for the API",
    );
  }
  const publicUrl = pick('public-url');
  if (publicUrl === undefined && !local) {
    throw new ConfigError(
      `--host ${other.host} with --oauth-issuer needs --public-url (${setting('public-url').env}): the URL clients reach this server at`,
    );
  }
  const tokenCheck = read.choice<'jwt' | 'introspection'>('oauth-token-check', false) as 'jwt' | 'introspection';
  const clientId = pick('oauth-client-id');
  const clientSecret = pick('oauth-client-secret');
  const tokenExchange = readTokenExchange(read);
  refuseMissingIssuerClient({ signIn, publicUrl, client: clientId !== undefined && clientSecret !== undefined, tokenCheck, tokenExchange });
  const scopePrefix = readScopePrefix(pick);
  const identityHeader = readIdentityHeader(pick);
  return {
    issuer: issuerUrl,
    ...(publicUrl !== undefined ? { publicUrl: absoluteUrl('public-url', publicUrl, local).replace(/\/+$/, '') } : {}),
    audiences: read.list('oauth-audience'),
    tokenCheck,
    ...(clientId !== undefined ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    readScope: oneScope(pick, 'oauth-read-scope'),
    writeScope: oneScope(pick, 'oauth-write-scope'),
    ...(scopePrefix !== undefined ? { scopePrefix } : {}),
    introspectionCacheMs: read.integer('oauth-introspection-cache-ms'),
    ...(tokenExchange !== undefined ? { tokenExchange } : {}),
    ...(identityHeader !== undefined ? { identityHeader } : {}),
    ...(signIn !== undefined ? { signIn } : {}),
  };
}

/** Linking accounts, introspection and token exchange each need this server's own client at the issuer. */
function refuseMissingIssuerClient(given: {
  signIn: SignInConfig | undefined;
  publicUrl: string | undefined;
  client: boolean;
  tokenCheck: string;
  tokenExchange: OAuthConfig['tokenExchange'];
}): void {
  const { signIn, tokenCheck, tokenExchange } = given;
  if (signIn !== undefined && (given.publicUrl === undefined || !given.client)) {
    throw new ConfigError(
      `linking API accounts (--oauth-api-client-id with --oauth-issuer) needs --public-url and this server's client at the authorization server (${setting('oauth-client-id').env}, ${setting('oauth-client-secret').env}): the person who opens a link signs in there first`,
    );
  }
  if (signIn !== undefined && tokenExchange !== undefined) {
    throw new ConfigError('--token-exchange and --oauth-api-client-id exclude each other: choose how calls get the API token');
  }
  if ((tokenCheck === 'introspection' || tokenExchange !== undefined) && !given.client) {
    const why = tokenCheck === 'introspection' ? '--oauth-token-check introspection' : '--token-exchange';
    throw new ConfigError(
      `${why} needs this server's client: set ${setting('oauth-client-id').env} and ${setting('oauth-client-secret').env}`,
    );
  }
}

function readScopePrefix(pick: (flag: string) => string | undefined): string | undefined {
  const scopePrefix = pick('oauth-scope-prefix');
  if (scopePrefix !== undefined && !SCOPE_TOKEN.test(scopePrefix)) {
    throw new ConfigError(`--oauth-scope-prefix must be printable ASCII without space, " or \\ (got "${scopePrefix}")`);
  }
  return scopePrefix;
}

function readIdentityHeader(pick: (flag: string) => string | undefined): string | undefined {
  const identityHeader = pick('upstream-identity-header');
  if (identityHeader !== undefined) {
    const owned = HEADER_NAME.test(identityHeader) ? unsendableHeaderName(identityHeader) : 'not a valid header name';
    if (owned !== undefined) throw new ConfigError(`--upstream-identity-header "${identityHeader}": ${owned}`);
  }
  return identityHeader;
}

/**
 * The server as the MCP clients' authorization server (--oauth-api-client-id without
 * --oauth-issuer): its issuer is its public URL, which the API's callback also hangs from.
 */
function ownIssuer(read: SettingReader, other: ClientSide, signIn: SignInConfig): OAuthConfig {
  const { pick } = read;
  const publicUrl = pick('public-url');
  if (publicUrl === undefined) {
    throw new ConfigError(
      `--oauth-api-client-id needs --public-url (${setting('public-url').env}): the URL clients reach this server at; the API's callback is <public-url>/oauth/callback`,
    );
  }
  for (const flag of ['oauth-token-check', 'token-exchange', 'token-exchange-audience', 'token-exchange-scope', 'oauth-audience']) {
    if (pick(flag) !== undefined) {
      throw new ConfigError(`--${flag} is for tokens of another authorization server (--oauth-issuer): this server checks its own`);
    }
  }
  if (other.authFromHeaders.some((m) => m.header === 'authorization')) {
    throw new ConfigError(
      "--auth-from-headers cannot map Authorization with --oauth-api-client-id: the caller's token is for this server, never for the API",
    );
  }
  const url = absoluteUrl('public-url', publicUrl, isLoopback(other.host)).replace(/\/+$/, '');
  const scopePrefix = pick('oauth-scope-prefix');
  const identityHeader = pick('upstream-identity-header');
  return {
    issuer: url,
    publicUrl: url,
    audiences: [],
    tokenCheck: 'self',
    readScope: oneScope(pick, 'oauth-read-scope'),
    writeScope: oneScope(pick, 'oauth-write-scope'),
    ...(scopePrefix !== undefined ? { scopePrefix } : {}),
    introspectionCacheMs: read.integer('oauth-introspection-cache-ms'),
    ...(identityHeader !== undefined ? { identityHeader } : {}),
    signIn,
  };
}

function oneScope(pick: (flag: string) => string | undefined, flag: string): string {
  const value = pick(flag) ?? (setting(flag).default as string);
  if (!SCOPE_TOKEN.test(value))
    throw new ConfigError(`--${flag} must be one OAuth scope: printable ASCII without space, " or \\ (got "${value}")`);
  return value;
}

/**
 * The forms of a store replicas share (--operation-store beside memory, --token-store beside
 * file); whether this platform has the store is store/setting.ts's to say.
 */
const SHARED_STORES = [/^rediss?:\/\/\S+$/, /^deno-kv(:.+)?$/, /^workers-kv:[A-Za-z_]\w*$/];

/** --operation-store: memory (nothing to say), or a shared store, with the key that seals it. */
function readOperationStore(read: SettingReader): { operationStore?: { location: string; keys: string } } {
  const location = read.pick('operation-store');
  if (location === undefined || location === 'memory') return {};
  // the location is not echoed: a mistyped URL may still carry a password
  if (!SHARED_STORES.some((form) => form.test(location))) {
    throw new ConfigError('--operation-store must be memory, a redis:// or rediss:// URL, deno-kv[:PATH] or workers-kv:BINDING');
  }
  const keys = read.pick('token-store-key');
  if (keys === undefined) {
    throw new ConfigError(
      `--operation-store needs ${setting('token-store-key').env}: the key that seals operations in the shared store (openssl rand -base64 32)`,
    );
  }
  return { operationStore: { location, keys } };
}

/** The API's OAuth app and the token store; undefined without --oauth-api-client-id. */
function readSignIn(read: SettingReader): SignInConfig | undefined {
  const { pick } = read;
  const clientId = pick('oauth-api-client-id');
  // The two secrets are not in the list: an environment may hold them for every server it runs.
  const dependents = [
    'oauth-api-authorization-url',
    'oauth-api-token-url',
    'oauth-api-scopes',
    'oauth-api-client-auth',
    'token-store',
    'data-dir',
  ];
  if (clientId === undefined) {
    const stray = dependents.find((flag) => pick(flag) !== undefined);
    if (stray !== undefined) throw new ConfigError(`--${stray} needs --oauth-api-client-id (${setting('oauth-api-client-id').env})`);
    return undefined;
  }
  const clientSecret = pick('oauth-api-client-secret');
  if (clientSecret === undefined) {
    throw new ConfigError(`--oauth-api-client-id needs the app's secret: set ${setting('oauth-api-client-secret').env}`);
  }
  const keys = pick('token-store-key');
  if (keys === undefined) {
    throw new ConfigError(
      `--oauth-api-client-id needs ${setting('token-store-key').env}: the key that seals users' API tokens at rest (openssl rand -base64 32)`,
    );
  }
  const clientAuth = read.choice<'post' | 'basic'>('oauth-api-client-auth', false) as 'post' | 'basic';
  const location = pick('token-store') ?? 'file';
  // the location is not echoed: a mistyped URL may still carry a password
  if (location !== 'file' && !/^durable-object:[A-Za-z_]\w*$/.test(location) && !SHARED_STORES.some((form) => form.test(location))) {
    throw new ConfigError(
      '--token-store must be file, a redis:// or rediss:// URL, deno-kv[:PATH], workers-kv:BINDING or durable-object:BINDING',
    );
  }
  const scopes = pick('oauth-api-scopes') === undefined ? undefined : read.list('oauth-api-scopes');
  const bad = scopes?.find((scope) => !SCOPE_TOKEN.test(scope));
  if (bad !== undefined) throw new ConfigError(`--oauth-api-scopes: "${bad}" is not an OAuth scope`);
  const authorizationUrl = pick('oauth-api-authorization-url');
  const tokenUrl = pick('oauth-api-token-url');
  return {
    clientId,
    clientSecret,
    ...(authorizationUrl !== undefined ? { authorizationUrl: absoluteUrl('oauth-api-authorization-url', authorizationUrl, false) } : {}),
    ...(tokenUrl !== undefined ? { tokenUrl: absoluteUrl('oauth-api-token-url', tokenUrl, false) } : {}),
    ...(scopes !== undefined ? { scopes } : {}),
    clientAuth,
    store: { location, dataDir: pick('data-dir') ?? '.mcp-data', keys },
  };
}

function readTokenExchange(read: SettingReader): OAuthConfig['tokenExchange'] {
  const { pick } = read;
  const audience = pick('token-exchange-audience');
  const scope = pick('token-exchange-scope');
  // Naming the API's audience or scope asks for an exchange: RFC 8693 unless told otherwise.
  const kind =
    read.choice<'off' | TokenExchangeKind>('token-exchange', false) ?? (audience !== undefined || scope !== undefined ? 'rfc8693' : 'off');
  if (kind === 'off') {
    if (audience !== undefined || scope !== undefined) {
      throw new ConfigError('--token-exchange off cannot take --token-exchange-audience or --token-exchange-scope');
    }
    return undefined;
  }
  if (kind === 'rfc8693' && audience === undefined && scope === undefined) {
    throw new ConfigError(
      '--token-exchange rfc8693 needs --token-exchange-audience (or --token-exchange-scope): which API the token is for',
    );
  }
  if (kind === 'entra-obo' && scope === undefined) {
    throw new ConfigError('--token-exchange entra-obo needs --token-exchange-scope, e.g. api://<API app id>/.default');
  }
  return { kind, ...(audience !== undefined ? { audience } : {}), ...(scope !== undefined ? { scope } : {}) };
}

/**
 * An absolute URL without fragment or credentials; https, but for a loopback host name or, when
 * `local` (this server serves loopback only), any host: development without certificates.
 */
function absoluteUrl(flag: string, text: string, local: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`--${flag} must be an absolute URL (got "${text}")`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (local || isLoopback(url.hostname)))) {
    throw new ConfigError(`--${flag} must be an https URL (http only for a server on loopback; got "${text}")`);
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(`--${flag} must not carry a fragment or credentials (got "${url.origin}${url.pathname}")`);
  }
  return text;
}

/**
 * The endpoint's bearer token, from the flag or else its variable. `--auth-token "$UNSET"` is
 * refused rather than taken as "no token"; an empty variable is unset, as for every setting
 * (.env.example lists them all empty), and beyond loopback the missing token stops the start.
 * The characters are RFC 6750's b64token, so that the token is the same bytes on every client.
 */
function endpointToken(flag: unknown, variable: string | undefined): string | undefined {
  const [token, where] = typeof flag === 'string' ? [flag, '--auth-token'] : [variable || undefined, setting('auth-token').env];
  if (token === undefined) return undefined;
  // The token is a secret: messages name the place, never the text.
  if (token.trim() === '') throw new ConfigError(`${where} is empty: give the token, or leave the option out to serve without one`);
  if (!/^[A-Za-z0-9._~+/-]+=*$/.test(token)) {
    throw new ConfigError(`${where} must be letters, digits and - . _ ~ + / (RFC 6750), optionally ending in =`);
  }
  return token;
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
