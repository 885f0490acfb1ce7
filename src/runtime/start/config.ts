// Start-up options of the generated server: flags first, then environment, then defaults.
// A bad value is one line on stderr and exit code 2, never a stack trace.

import { parseArgs } from 'node:util';
import { CLIENT_PROFILES, type ClientProfile } from '../../contract/profiles.js';
import { envText, flagText, setting, SETTINGS } from '../../contract/settings.js';
import { unsendableHeaderName } from '../../contract/headers.js';
import { didYouMean, nearest } from '../../contract/did-you-mean.js';

/** Every --transport value; main.ts's registry must have an entry for each (the compiler checks). */
const TRANSPORT_NAMES = ['stdio', 'http', 'sse', 'http+sse'] as const;
export type TransportName = (typeof TRANSPORT_NAMES)[number];
const isTransportName = (name: string): name is TransportName => (TRANSPORT_NAMES as readonly string[]).includes(name);
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type ToolMode = 'direct' | 'toolsets' | 'dynamic' | 'code';
/** Which calls wait for the user's yes (confirm.ts): none, DELETE and the marked ones, or every write. */
const CONFIRM_SETTINGS = ['none', 'destructive', 'writes'] as const;
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
  /** Serve only read-only tools (GET and HEAD). */
  readOnly: boolean;
  /** What tools/list shows; unset: the mode chosen at generation (see ToolTable.serve). */
  toolMode?: ToolMode;
  /** Which calls wait for the user's yes (--confirm); an operation's own `confirm` in tools.json wins. */
  confirm: ConfirmSetting;
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

/** --help: every setting, its variable and default (settings.ts). */
export const USAGE = [
  'Options (each also settable by the environment variable in brackets):',
  ...SETTINGS.flatMap((s) => {
    const flag = flagText(s);
    // A flag wider than its column takes a line of its own, with its help below it.
    const [own, column] = flag.length < 29 ? [[], flag.padEnd(29)] : [[`  ${flag}`], ' '.repeat(29)];
    const head = `  ${column}${s.help}`;
    const tail = `[${envText(s)}]${s.default !== undefined ? ` (default: ${s.default})` : ''}`;
    // The variable and default go on a line of their own when they would run past ~100 columns.
    const lines = head.length + tail.length < 100 ? [`${head} ${tail}`] : [head, tail];
    return [...own, ...[...lines, ...(s.more ?? [])].map((line, i) => (i === 0 ? line : `${' '.repeat(31)}${line}`))];
  }),
  `  ${'--clients'.padEnd(29)}print the line that adds this server to each MCP client, with its real path`,
  `  ${'--version'.padEnd(29)}show the server's package name and version (also -v)`,
  `  ${'--help'.padEnd(29)}show this help`,
].join('\n');

/** Every server option and its kind, for parseArgs (and for `mcp-gen serve`, which splits its arguments by it). */
export const SERVER_OPTIONS: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
  ...Object.fromEntries(
    SETTINGS.map((s) => [
      s.flag,
      s.value === undefined ? { type: 'boolean' as const } : { type: 'string' as const, ...(s.multiple ? { multiple: true } : {}) },
    ]),
  ),
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  clients: { type: 'boolean' },
};

/** `--flag must be a, b or c (got "x")`, with the nearest allowed value when it looks like a typo. */
function notOneOf(flag: string, allowed: readonly string[], got: string): string {
  const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : (allowed[0] ?? '');
  const typo = nearest(got, allowed);
  return `--${flag} must be ${list} (got "${got}"${typo === undefined ? '' : `; did you mean "${typo}"?`})`;
}

/** parseArgs' complaint in one line; an unknown flag with the nearest known one. */
function argumentError(error: Error & { code?: string }): string {
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(error.message);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const flag = unknown[1] as string;
    const known = Object.keys(SERVER_OPTIONS).map((name) => `--${name}`);
    return `unknown option ${flag}${didYouMean(flag.replace(/=.*$/, ''), known)}; --help lists the options`;
  }
  return error.message.split('\n')[0] ?? String(error);
}

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): ServerConfig | 'help' | 'version' | 'clients' {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    // Flags are string or boolean (or string[] when multiple), as SERVER_OPTIONS declares them.
    values = parseArgs({ args: argv, strict: true, allowPositionals: false, options: SERVER_OPTIONS }).values as typeof values;
  } catch (error) {
    throw new ConfigError(argumentError(error as Error & { code?: string }));
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  if (values.clients) return 'clients';
  // The flag, else its variable (settings.ts), else undefined.
  const pick = (flag: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    const e = env[setting(flag).env];
    return e !== undefined && e !== '' ? e : undefined;
  };
  const on = (flag: string): boolean => values[flag] === true || /^(1|true|yes)$/i.test(env[setting(flag).env] ?? '');
  const integer = (flag: string, min: number, max: number): number => {
    const text = pick(flag);
    if (text === undefined) return Number(setting(flag).default);
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || n < min || n > max) {
      throw new ConfigError(`--${flag} must be a whole number from ${min} to ${max} (got "${text}")`);
    }
    return n;
  };
  const transport = pick('transport') ?? 'stdio';
  if (!isTransportName(transport)) {
    throw new ConfigError(notOneOf('transport', TRANSPORT_NAMES, transport));
  }
  const logLevel = pick('log-level') ?? 'info';
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError(notOneOf('log-level', ['debug', 'info', 'warn', 'error', 'silent'], logLevel));
  }
  const dynamicToolsets = on('dynamic-toolsets');
  const toolMode = pick('tools') ?? (dynamicToolsets ? 'toolsets' : undefined);
  if (toolMode !== undefined && !['direct', 'toolsets', 'dynamic', 'code'].includes(toolMode)) {
    throw new ConfigError(notOneOf('tools', ['direct', 'toolsets', 'dynamic', 'code'], toolMode));
  }
  if (dynamicToolsets && toolMode !== 'toolsets')
    throw new ConfigError(`--dynamic-toolsets is --tools toolsets: it cannot be combined with --tools ${toolMode}`);
  const confirm = pick('confirm') ?? 'none';
  if (!(CONFIRM_SETTINGS as readonly string[]).includes(confirm)) throw new ConfigError(notOneOf('confirm', CONFIRM_SETTINGS, confirm));
  const clientProfile = pick('client-profile') ?? 'portable';
  if (!(CLIENT_PROFILES as readonly string[]).includes(clientProfile)) {
    throw new ConfigError(notOneOf('client-profile', CLIENT_PROFILES, clientProfile));
  }
  const baseUrl = pick('base-url');
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(baseUrl)) {
    // the URL may carry a password: show it without userinfo
    throw new ConfigError(`--base-url must be an absolute http(s) URL (got "${baseUrl.replace(/^([^/]*\/\/)[^/@]*@/, '$1***@')}")`);
  }
  const authToken = endpointToken(values['auth-token'], env[setting('auth-token').env]);
  const authFromHeaders = (pick('auth-from-headers') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
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
  const headerLines = Array.isArray(values.header) ? (values.header as string[]) : (env[setting('header').env] ?? '').split('\n');
  const staticHeaders = headerLines
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
  const list = (flag: string) =>
    (pick(flag) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const replicaId = pick('replica-id');
  // It becomes the start of every session id (visible ASCII) and a proxy's routing key.
  if (replicaId !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(replicaId)) {
    throw new ConfigError(`--replica-id must be 1 to 32 letters, digits, _ or - (got "${replicaId}")`);
  }
  const host = pick('host') ?? '127.0.0.1';
  const corsOrigins = list('cors-origins');
  const allowUnauthenticated = on('allow-unauthenticated');
  const oauth = readOAuth(pick, list, integer, { transport, host, authToken, authFromHeaders });
  // Without a token, whoever reaches the port calls the API with the operator's credentials
  // (and the Host check cannot stop them: any client can send `Host: localhost`). Likewise
  // CORS `*` lets every web page the user visits drive a local server.
  if (transport !== 'stdio' && authToken === undefined && oauth === undefined && !allowUnauthenticated) {
    if (!isLoopback(host)) {
      throw new ConfigError(
        `--host ${host} serves beyond loopback: set MCP_AUTH_TOKEN (or --auth-token), or pass --allow-unauthenticated (MCP_ALLOW_UNAUTHENTICATED=1) to accept the risk`,
      );
    }
    if (corsOrigins.includes('*')) {
      throw new ConfigError(
        `--cors-origins '*' lets any web page call this server: set MCP_AUTH_TOKEN (or --auth-token), or pass --allow-unauthenticated (MCP_ALLOW_UNAUTHENTICATED=1) to accept the risk`,
      );
    }
  }
  const maxConnections = integer('max-connections', 1, 1_000_000);
  const maxConnectionsPerAddress =
    pick('max-connections-per-address') === undefined
      ? Math.max(1, Math.floor(maxConnections / 2))
      : integer('max-connections-per-address', 1, 1_000_000);
  if (maxConnectionsPerAddress > maxConnections) {
    throw new ConfigError(
      `--max-connections-per-address (${maxConnectionsPerAddress}) cannot be above --max-connections (${maxConnections})`,
    );
  }
  return {
    transport,
    host,
    port: integer('port', 0, 65535),
    ...(baseUrl !== undefined ? { baseUrl: baseUrl.replace(/\/+$/, '') } : {}),
    timeoutMs: integer('timeout', 1, 86_400_000),
    operationWaitMs: integer('operation-wait', 0, 86_400_000),
    sending: readSending(pick, integer),
    maxResponseBytes: integer('max-response-bytes', 1, 2 ** 31),
    maxAnswerBytes: integer('max-answer-bytes', 0, 2 ** 31),
    maxRequestBytes: integer('max-request-bytes', 1, 2 ** 31),
    allowedHosts: list('allowed-hosts'),
    allowedOrigins: list('allowed-origins'),
    logLevel: logLevel as LogLevel,
    logCalls: on('log-calls'),
    ...(authToken !== undefined ? { authToken } : {}),
    authFromHeaders,
    staticHeaders,
    toolsets: list('toolsets'),
    readOnly: on('read-only'),
    ...(toolMode !== undefined ? { toolMode: toolMode as ToolMode } : {}),
    confirm: confirm as ConfirmSetting,
    codeLimits: {
      memoryBytes: integer('code-memory-mb', 8, 4_096) * 1_048_576,
      timeMs: integer('code-time-ms', 10, 600_000),
      maxCalls: integer('code-max-calls', 1, 10_000),
      maxResultBytes: integer('code-max-result-bytes', 1, 2 ** 28),
      maxLogBytes: 16_384,
    },
    clientProfile: clientProfile as ClientProfile,
    stateless: on('stateless'),
    ...(replicaId !== undefined ? { replicaId } : {}),
    sseKeepAliveMs: integer('sse-keepalive-ms', 0, 3_600_000),
    drainDelayMs: integer('drain-delay-ms', 0, 600_000),
    corsOrigins,
    maxSessions: integer('max-sessions', 1, 1_000_000),
    sessionIdleMs: integer('session-idle-ms', 1_000, 2 ** 31),
    shutdownGraceMs: integer('shutdown-grace-ms', 0, 600_000),
    maxSessionsPerClient: integer('max-sessions-per-client', 1, 1_000_000),
    requestTimeoutMs: integer('request-timeout-ms', 100, 3_600_000),
    headersTimeoutMs: integer('headers-timeout-ms', 100, 3_600_000),
    maxConnections,
    maxConnectionsPerAddress,
    allowUnauthenticated,
    ...(oauth !== undefined ? { oauth } : {}),
  };
}

/** --retries, --max-concurrent-requests and --rate-limit (a positive number, fractions allowed: 0.5 is one every 2 s). */
function readSending(
  pick: (flag: string) => string | undefined,
  integer: (flag: string, min: number, max: number) => number,
): ServerConfig['sending'] {
  const retries = integer('retries', 0, 10);
  const maxConcurrent = integer('max-concurrent-requests', 1, 10_000);
  const rate = pick('rate-limit')?.trim();
  if (rate === undefined || rate === 'off') return { retries, maxConcurrent };
  const ratePerSecond = Number(rate);
  if (!/^\d*\.?\d+$/.test(rate) || ratePerSecond <= 0 || ratePerSecond > 100_000) {
    throw new ConfigError(`--rate-limit must be off or a number of requests per second above 0, at most 100000 (got "${rate}")`);
  }
  return { retries, maxConcurrent, ratePerSecond };
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

/** The resource-server settings, checked together; undefined without --oauth-issuer. */
function readOAuth(
  pick: (flag: string) => string | undefined,
  list: (flag: string) => string[],
  integer: (flag: string, min: number, max: number) => number,
  other: { transport: TransportName; host: string; authToken: string | undefined; authFromHeaders: { header: string }[] },
): OAuthConfig | undefined {
  const given = pick('oauth-issuer');
  const signIn = readSignIn(pick, list);
  if (given === undefined && signIn === undefined) {
    refuseStrayOAuthSettings(pick);
    return undefined;
  }
  const mode = given !== undefined ? '--oauth-issuer' : '--oauth-api-client-id';
  if (other.transport === 'stdio') {
    throw new ConfigError(`${mode} serves HTTP clients: choose --transport http, sse or http+sse (a stdio client is the local user)`);
  }
  if (other.authToken !== undefined) {
    throw new ConfigError(`${mode} and --auth-token (MCP_AUTH_TOKEN) exclude each other: choose one way to authenticate clients`);
  }
  if (given === undefined) return ownIssuer(pick, integer, other, signIn as SignInConfig);
  const issuer = given;
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
  const tokenCheck = pick('oauth-token-check') ?? 'jwt';
  if (tokenCheck !== 'jwt' && tokenCheck !== 'introspection') {
    throw new ConfigError(`--oauth-token-check must be jwt or introspection (got "${tokenCheck}")`);
  }
  const clientId = pick('oauth-client-id');
  const clientSecret = pick('oauth-client-secret');
  const scope = (flag: string): string => oneScope(pick, flag);
  const tokenExchange = readTokenExchange(pick);
  if (signIn !== undefined && (publicUrl === undefined || clientId === undefined || clientSecret === undefined)) {
    throw new ConfigError(
      `linking API accounts (--oauth-api-client-id with --oauth-issuer) needs --public-url and this server's client at the authorization server (${setting('oauth-client-id').env}, ${setting('oauth-client-secret').env}): the person who opens a link signs in there first`,
    );
  }
  if (signIn !== undefined && tokenExchange !== undefined) {
    throw new ConfigError('--token-exchange and --oauth-api-client-id exclude each other: choose how calls get the API token');
  }
  if ((tokenCheck === 'introspection' || tokenExchange !== undefined) && (clientId === undefined || clientSecret === undefined)) {
    const why = tokenCheck === 'introspection' ? '--oauth-token-check introspection' : '--token-exchange';
    throw new ConfigError(
      `${why} needs this server's client: set ${setting('oauth-client-id').env} and ${setting('oauth-client-secret').env}`,
    );
  }
  const scopePrefix = pick('oauth-scope-prefix');
  if (scopePrefix !== undefined && !SCOPE_TOKEN.test(scopePrefix)) {
    throw new ConfigError(`--oauth-scope-prefix must be printable ASCII without space, " or \\ (got "${scopePrefix}")`);
  }
  const identityHeader = pick('upstream-identity-header');
  if (identityHeader !== undefined) {
    const owned = HEADER_NAME.test(identityHeader) ? unsendableHeaderName(identityHeader) : 'not a valid header name';
    if (owned !== undefined) throw new ConfigError(`--upstream-identity-header "${identityHeader}": ${owned}`);
  }
  return {
    issuer: issuerUrl,
    ...(publicUrl !== undefined ? { publicUrl: absoluteUrl('public-url', publicUrl, local).replace(/\/+$/, '') } : {}),
    audiences: list('oauth-audience'),
    tokenCheck,
    ...(clientId !== undefined ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    readScope: scope('oauth-read-scope'),
    writeScope: scope('oauth-write-scope'),
    ...(scopePrefix !== undefined ? { scopePrefix } : {}),
    introspectionCacheMs: integer('oauth-introspection-cache-ms', 0, 3_600_000),
    ...(tokenExchange !== undefined ? { tokenExchange } : {}),
    ...(identityHeader !== undefined ? { identityHeader } : {}),
    ...(signIn !== undefined ? { signIn } : {}),
  };
}

/**
 * The server as the MCP clients' authorization server (--oauth-api-client-id without
 * --oauth-issuer): its issuer is its public URL, which the API's callback also hangs from.
 */
function ownIssuer(
  pick: (flag: string) => string | undefined,
  integer: (flag: string, min: number, max: number) => number,
  other: { host: string; authFromHeaders: { header: string }[] },
  signIn: SignInConfig,
): OAuthConfig {
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
    introspectionCacheMs: integer('oauth-introspection-cache-ms', 0, 3_600_000),
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

/** The API's OAuth app and the token store; undefined without --oauth-api-client-id. */
function readSignIn(pick: (flag: string) => string | undefined, list: (flag: string) => string[]): SignInConfig | undefined {
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
  const clientAuth = pick('oauth-api-client-auth') ?? 'post';
  if (clientAuth !== 'post' && clientAuth !== 'basic') {
    throw new ConfigError(`--oauth-api-client-auth must be post or basic (got "${clientAuth}")`);
  }
  const location = pick('token-store') ?? 'file';
  if (location !== 'file' && !/^rediss?:\/\/[^\s]+$/.test(location)) {
    throw new ConfigError('--token-store must be file or a redis:// or rediss:// URL');
  }
  const scopes = pick('oauth-api-scopes') === undefined ? undefined : list('oauth-api-scopes');
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

function readTokenExchange(pick: (flag: string) => string | undefined): OAuthConfig['tokenExchange'] {
  const audience = pick('token-exchange-audience');
  const scope = pick('token-exchange-scope');
  // Naming the API's audience or scope asks for an exchange: RFC 8693 unless told otherwise.
  const kind = pick('token-exchange') ?? (audience !== undefined || scope !== undefined ? 'rfc8693' : 'off');
  if (kind === 'off') {
    if (audience !== undefined || scope !== undefined) {
      throw new ConfigError('--token-exchange off cannot take --token-exchange-audience or --token-exchange-scope');
    }
    return undefined;
  }
  if (kind !== 'rfc8693' && kind !== 'entra-obo')
    throw new ConfigError(`--token-exchange must be off, rfc8693 or entra-obo (got "${kind}")`);
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
