// The generated server's start-up options (src/runtime/start/config.ts), beyond what the settings
// table test covers: defaults, each refusal as one line naming the option, the security rules
// for serving beyond loopback, and secrets kept out of messages.
import { describe, expect, it } from 'vitest';
import { ConfigError, isLoopback, type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import { operationStoreProblem, tokenStoreProblem } from '../../../../src/runtime/store/setting.js';

const config = (argv: string[], env: NodeJS.ProcessEnv = {}) => readConfig(argv, env) as ServerConfig;
const refusal = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
  try {
    readConfig(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('readConfig', () => {
  it('defaults: stdio, 127.0.0.1:3000, portable listing, the mode chosen at generation', () => {
    expect(config([])).toMatchObject({
      transport: 'stdio',
      host: '127.0.0.1',
      port: 3000,
      timeoutMs: 30_000,
      maxResponseBytes: 262_144,
      maxAnswerBytes: 65_536,
      logLevel: 'info',
      clientProfile: 'portable',
      toolsets: [],
      readOnly: false,
      stateless: false,
      allowUnauthenticated: false,
      logCalls: false,
    });
    expect(config([]).toolMode).toBeUndefined();
    expect(config([]).baseUrl).toBeUndefined();
  });

  it('retries and pacing: 2 retries (3 tries in all), 8 requests in flight per API origin, no rate limit, unless told', () => {
    expect(config([]).sending).toEqual({ retries: 2, maxConcurrent: 8 });
    expect(config(['--retries', '0', '--max-concurrent-requests', '1', '--rate-limit', 'off']).sending).toEqual({
      retries: 0,
      maxConcurrent: 1,
    });
    expect(config(['--rate-limit', '0.5']).sending.ratePerSecond).toBe(0.5);
    expect(config([], { API_RATE_LIMIT: '20' }).sending.ratePerSecond).toBe(20);
  });

  it('--log-calls, or MCP_LOG_CALLS=1, turns the JSON call log on', () => {
    expect(config(['--log-calls']).logCalls).toBe(true);
    expect(readConfig([], { MCP_LOG_CALLS: '1' })).toMatchObject({ logCalls: true });
    expect(readConfig([], { MCP_LOG_CALLS: '0' })).toMatchObject({ logCalls: false });
  });

  it('--help', () => {
    expect(readConfig(['--help'], {})).toBe('help');
    expect(readConfig(['-h'], {})).toBe('help');
  });

  it('--version and -v', () => {
    expect(readConfig(['--version'], {})).toBe('version');
    expect(readConfig(['-v'], {})).toBe('version');
  });

  it.each([
    [['--transport', 'ws'], '--transport must be stdio, http, sse or http+sse (got "ws")'],
    [['--port', '70000'], '--port must be a whole number from 0 to 65535 (got "70000")'],
    [['--timeout', '1.5'], '--timeout must be a whole number from 1 to 86400000 (got "1.5")'],
    [['--log-level', 'loud'], '--log-level must be debug, info, warn, error or silent (got "loud")'],
    [['--retries=-1'], '--retries must be a whole number from 0 to 10 (got "-1")'],
    [['--retries', '11'], '--retries must be a whole number from 0 to 10 (got "11")'],
    [['--max-concurrent-requests', '0'], '--max-concurrent-requests must be a whole number from 1 to 10000 (got "0")'],
    [['--rate-limit', '0'], '--rate-limit must be off or a number of requests per second above 0, at most 100000 (got "0")'],
    [['--rate-limit', '5/s'], '--rate-limit must be off or a number of requests per second above 0, at most 100000 (got "5/s")'],
    [['--rate-limit', '1e3'], '--rate-limit must be off or a number of requests per second above 0, at most 100000 (got "1e3")'],
    [['--tools', 'all'], '--tools must be direct, toolsets, dynamic or code (got "all")'],
    [['--client-profile', 'claude'], '--client-profile must be portable, openai-strict, gemini or full (got "claude")'],
    [['--tools', 'direkt'], '--tools must be direct, toolsets, dynamic or code (got "direkt"; did you mean "direct"?)'],
    [['--transport', 'htpp'], '--transport must be stdio, http, sse or http+sse (got "htpp"; did you mean "http"?)'],
    [['--trasnport', 'http'], 'unknown option --trasnport (did you mean --transport?); --help lists the options'],
    [['--zzzzzz'], 'unknown option --zzzzzz; --help lists the options'],
    [['--dynamic-toolsets', '--tools', 'dynamic'], '--dynamic-toolsets is --tools toolsets: it cannot be combined with --tools dynamic'],
    [['--auth-from-headers', 'no-equals'], '--auth-from-headers takes Header=scheme pairs (got "no-equals")'],
    [
      ['--auth-token', 'abc', '--auth-from-headers', 'X-Key=key,authorization=bearer'],
      "--auth-from-headers cannot map Authorization with --auth-token (MCP_AUTH_TOKEN): that header carries this server's token, never the API's",
    ],
    [['--header', 'no colon'], '--header #1 must be "Name: value" with a valid header name'],
    [
      ['--header', 'X-Ok: 1', '--header', 'Host: other.example'],
      '--header #2: header "Host" cannot be sent: the HTTP client sets it itself (framing, routing or connection)',
    ],
  ])('%j is refused in one line naming the option', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it('an unknown flag is refused by name', () => {
    expect(refusal(['--prot', '1'])).toMatch(/--prot/);
  });

  it('a malformed --base-url is shown without its password', () => {
    const message = refusal(['--base-url', 'ftp://user:hunter2@example.com']);
    expect(message).toBe('--base-url must be an absolute http(s) URL (got "ftp://***@example.com")');
    expect(message).not.toContain('hunter2');
  });

  it('an API_HEADERS line that is wrong is named by its line, never by its value', () => {
    const message = refusal([], { API_HEADERS: 'Authorization: Bearer ok\nX-Bad\u0001: secret-value' });
    expect(message).toMatch(/^API_HEADERS line 2/);
    expect(message).not.toContain('secret-value');
  });

  it('serving beyond loopback needs a token, or an explicit opt-out (anyone who reaches the port would use the API credentials)', () => {
    expect(refusal(['--transport', 'http', '--host', '0.0.0.0'])).toMatch(/^--host 0\.0\.0\.0 serves beyond loopback: set MCP_AUTH_TOKEN/);
    expect(refusal(['--transport', 'http', '--cors-origins', '*'])).toMatch(/^--cors-origins '\*' lets any web page call this server/);
    expect(config(['--transport', 'http', '--host', '0.0.0.0'], { MCP_AUTH_TOKEN: 't' }).authToken).toBe('t');
    expect(config(['--transport', 'http', '--host', '0.0.0.0', '--allow-unauthenticated']).allowUnauthenticated).toBe(true);
    // stdio has no port to reach
    expect(config(['--host', '0.0.0.0']).host).toBe('0.0.0.0');
  });

  it('an empty or blank --auth-token is refused (an unset shell variable), not taken for "no token"', () => {
    const empty = /^--auth-token is empty: give the token, or leave the option out to serve without one$/;
    expect(refusal(['--transport', 'http', '--host', '0.0.0.0', '--auth-token', ''])).toMatch(empty);
    expect(refusal(['--auth-token', '  '])).toMatch(empty);
    expect(refusal([], { MCP_AUTH_TOKEN: ' \t' })).toMatch(/^MCP_AUTH_TOKEN is empty: /);
    expect(refusal(['--auth-token', '\u00a0'])).toMatch(empty);
    // An empty variable is unset, as for every setting (.env.example lists them all empty), so
    // beyond loopback the start is refused by the rule for a missing token.
    expect(config([], { MCP_AUTH_TOKEN: '' }).authToken).toBeUndefined();
    expect(refusal(['--transport', 'http', '--host', '0.0.0.0'], { MCP_AUTH_TOKEN: '' })).toMatch(
      /^--host 0\.0\.0\.0 serves beyond loopback/,
    );
  });

  it.each(['sécret', 'two words', 'tab\there', ' padded', 'a=b', 'quote"d'])(
    'an --auth-token outside the RFC 6750 characters (%j) is refused, without showing it',
    (token) => {
      const message = refusal(['--auth-token', token]);
      expect(message).toBe('--auth-token must be letters, digits and - . _ ~ + / (RFC 6750), optionally ending in =');
      expect(refusal([], { MCP_AUTH_TOKEN: token })).toMatch(/^MCP_AUTH_TOKEN must be letters/);
    },
  );

  it('a token of the RFC 6750 characters is taken as it is', () => {
    for (const token of ['abc', 'A-Z.0_9~+/', 'YWJj==', 'x'.repeat(200)]) expect(config(['--auth-token', token]).authToken).toBe(token);
  });

  it('by default one address has room for the connections of every session it may open (a GET stream and a POST each, and more)', () => {
    const defaults = config([]);
    expect(defaults.maxConnectionsPerAddress).toBeGreaterThanOrEqual(3 * defaults.maxSessionsPerClient);
  });

  it('one address gets half of --max-connections unless told otherwise, and never more than all of them', () => {
    expect(config([])).toMatchObject({ maxConnections: 2000, maxConnectionsPerAddress: 1000, headersTimeoutMs: 10_000 });
    expect(config(['--max-connections', '40']).maxConnectionsPerAddress).toBe(20);
    expect(config(['--max-connections', '3']).maxConnectionsPerAddress).toBe(1);
    // behind a proxy every connection comes from its address
    expect(config(['--max-connections-per-address', '1000']).maxConnectionsPerAddress).toBe(1000);
    expect(refusal(['--max-connections', '40', '--max-connections-per-address', '41'])).toBe(
      '--max-connections-per-address (41) cannot be above --max-connections (40)',
    );
    expect(config(['--headers-timeout-ms', '500']).headersTimeoutMs).toBe(500);
  });

  it('lists are trimmed; a trailing slash of --base-url is dropped; --header is repeatable', () => {
    const c = config([
      '--toolsets',
      ' issues , pulls ,',
      '--base-url',
      'https://api.example.com/v1/',
      '--header',
      'A: 1',
      '--header',
      'B:2',
    ]);
    expect(c.toolsets).toEqual(['issues', 'pulls']);
    expect(c.baseUrl).toBe('https://api.example.com/v1');
    expect(c.staticHeaders).toEqual([
      ['A', '1'],
      ['B', '2'],
    ]);
  });

  it('--auth-from-headers maps lower-cased header names to schemes', () => {
    expect(config(['--auth-from-headers', 'X-Api-Key=api_key, Authorization=bearer']).authFromHeaders).toEqual([
      { header: 'x-api-key', scheme: 'api_key' },
      { header: 'authorization', scheme: 'bearer' },
    ]);
  });
});

describe('--operation-store', () => {
  const key = Buffer.alloc(32, 3).toString('base64');
  it('memory by default; a Redis URL on Node, with the key that seals operations', () => {
    expect((readConfig([], {}) as ServerConfig).operationStore).toBeUndefined();
    expect((readConfig(['--operation-store', 'memory'], { MCP_TOKEN_STORE_KEY: key }) as ServerConfig).operationStore).toBeUndefined();
    const config = readConfig([], { MCP_OPERATION_STORE: 'rediss://u:p@redis.example:6380/1', MCP_TOKEN_STORE_KEY: key }) as ServerConfig;
    expect(config.operationStore).toEqual({ location: 'rediss://u:p@redis.example:6380/1', keys: key });
  });

  it('a shared store needs MCP_TOKEN_STORE_KEY (whose bytes, and the platform, are checked at start: store/setting.ts)', () => {
    expect(() => readConfig(['--operation-store', 'redis://127.0.0.1:6379'], {})).toThrow(/^--operation-store needs MCP_TOKEN_STORE_KEY/);
  });

  it("at start: a key of 32 bytes, and the platform's own store", () => {
    const redis = { location: 'redis://127.0.0.1:6379', keys: key };
    expect(operationStoreProblem(redis, 'node')).toBeUndefined();
    expect(operationStoreProblem({ ...redis, keys: 'c2hvcnQ=' }, 'node')).toMatch(/^MCP_TOKEN_STORE_KEY is not 32 bytes/);
    expect(operationStoreProblem({ ...redis, location: 'deno-kv' }, 'node')).toBe(
      '--operation-store: that store is served on deno, and this server runs on node',
    );
    expect(operationStoreProblem({ ...redis, location: 'deno-kv:/var/ops.sqlite' }, 'deno')).toBeUndefined();
    expect(operationStoreProblem({ ...redis, location: 'workers-kv:OPS' }, 'deno')).toMatch(/served on cloudflare/);
    expect(operationStoreProblem(redis, 'cloudflare')).toMatch(/served on node, lambda, vercel, and this server runs on cloudflare/);
    expect(operationStoreProblem(redis, 'lambda')).toBeUndefined();
  });

  it("--token-store at start: the file on Node, Redis on Node, Lambda and Vercel, each platform's KV on its platform, with a key of 32 bytes", () => {
    const file = { location: 'file', keys: key };
    expect(tokenStoreProblem(file, 'node')).toBeUndefined();
    expect(tokenStoreProblem({ ...file, location: 'redis://127.0.0.1:6379' }, 'node')).toBeUndefined();
    // the function platforms run Node, and its Redis client with it
    expect(tokenStoreProblem({ ...file, location: 'rediss://cache.example:6380' }, 'lambda')).toBeUndefined();
    expect(tokenStoreProblem({ ...file, location: 'redis://127.0.0.1:6379' }, 'vercel')).toBeUndefined();
    expect(tokenStoreProblem({ ...file, location: 'redis://127.0.0.1:6379' }, 'deno')).toBe(
      '--token-store: that store is served on node, lambda, vercel, and this server runs on deno',
    );
    expect(tokenStoreProblem(file, 'lambda')).toBe('--token-store: that store is served on node, and this server runs on lambda');
    expect(tokenStoreProblem({ ...file, location: 'workers-kv:MCP_TOKENS' }, 'cloudflare')).toBeUndefined();
    expect(tokenStoreProblem({ ...file, location: 'durable-object:MCP_TOKENS' }, 'cloudflare')).toBeUndefined();
    expect(tokenStoreProblem({ ...file, location: 'durable-object:MCP_TOKENS' }, 'deno')).toMatch(/served on cloudflare/);
    expect(tokenStoreProblem({ ...file, location: 'deno-kv' }, 'deno')).toBeUndefined();
    expect(tokenStoreProblem(file, 'deno')).toBe('--token-store: that store is served on node, and this server runs on deno');
    expect(tokenStoreProblem({ ...file, location: 'deno-kv' }, 'node')).toMatch(/served on deno, and this server runs on node/);
    expect(tokenStoreProblem({ ...file, keys: 'c2hvcnQ=' }, 'node')).toMatch(/^MCP_TOKEN_STORE_KEY is not 32 bytes/);
  });

  it('an unknown store is refused without echoing it', () => {
    expect(() => readConfig(['--operation-store', 'redis:/p@ss'], { MCP_TOKEN_STORE_KEY: key })).toThrow(
      /^--operation-store must be memory, a redis:\/\/ or rediss:\/\/ URL, deno-kv\[:PATH\] or workers-kv:BINDING$/,
    );
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.3.2.1', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['127.0.0.1.example.com', false],
  ])('%s → %s', (host, want) => {
    expect(isLoopback(host)).toBe(want);
  });
});
