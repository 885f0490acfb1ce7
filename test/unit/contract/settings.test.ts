// One table of server settings (src/contract/settings.ts) drives four places that must
// agree: the flag parser and --help, the generated README, the generated .env.example, and the
// variable names no API credential may take.
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../../src/runtime/start/config.js';
import { readConfig, USAGE } from '../../../src/runtime/start/command-line.js';
import { envText, flagText, SETTING_GROUPS, SETTINGS } from '../../../src/contract/settings.js';
import { buildAuth, isServerSetting } from '../../../src/model/auth.js';
import { buildModel } from '../../../src/model/build.js';
import { emitProject } from '../../../src/emit/project.js';
import { SpecError } from '../../../src/errors.js';

const petstore = buildModel(
  {
    doc: {
      openapi: '3.0.3',
      info: { title: 'T', version: '1' },
      servers: [{ url: 'https://api.example.com' }],
      paths: { '/x': { get: { operationId: 'x', responses: {} } } },
    },
    specVersion: '3.0.3',
    source: 'spec.yaml',
    warnings: [],
  },
  { maxDescriptionLength: 1000 },
);
const files = Object.fromEntries(emitProject(petstore, { specName: 'spec.yaml', dirName: 'x-mcp' }).files.map((f) => [f.path, f.contents]));

const STORE_KEY = Buffer.alloc(32, 7).toString('base64');
/** A value each setting accepts, to see that the flag and the variable both reach the config. */
const SAMPLE: Record<string, string> = {
  transport: 'http',
  tools: 'dynamic',
  toolsets: 'a',
  'client-profile': 'full',
  port: '4567',
  host: '127.0.0.2',
  'base-url': 'https://x.example',
  timeout: '1234',
  'operation-wait': '4321',
  'stream-max-items': '50',
  'stream-time-ms': '9876',
  'operation-store': 'redis://127.0.0.1:6379',
  retries: '4',
  'max-concurrent-requests': '3',
  'rate-limit': '0.5',
  'max-response-bytes': '999',
  'max-answer-bytes': '997',
  'max-request-bytes': '998',
  'allowed-hosts': 'h.example',
  'allowed-origins': 'https://o.example',
  'log-level': 'warn',
  header: 'X-A: b',
  'auth-token': 'tok',
  'auth-from-headers': 'x-key=scheme',
  'cors-origins': 'https://c.example',
  'max-sessions': '7',
  'session-idle-ms': '5000',
  'shutdown-grace-ms': '6',
  'max-sessions-per-client': '8',
  'request-timeout-ms': '900',
  'max-connections': '9',
  'max-connections-per-address': '3',
  'headers-timeout-ms': '800',
  'replica-id': 'r-1',
  'sse-keepalive-ms': '500',
  'drain-delay-ms': '700',
  'oauth-issuer': 'https://as.example',
  'public-url': 'https://mcp.example',
  'oauth-audience': 'api://mcp',
  'oauth-token-check': 'introspection',
  'oauth-client-id': 'mcp-server',
  'oauth-client-secret': 'shh',
  'oauth-read-scope': 'api.read',
  'oauth-write-scope': 'api.write',
  'oauth-introspection-cache-ms': '5000',
  'oauth-scope-prefix': 'api://mcp-app/',
  'token-exchange': 'entra-obo',
  'token-exchange-audience': 'https://api.example',
  'token-exchange-scope': 'read:all',
  'upstream-identity-header': 'X-User',
  'code-memory-mb': '32',
  'code-time-ms': '2000',
  'code-max-calls': '7',
  'code-max-result-bytes': '1000',
  confirm: 'writes',
  apps: 'off',
  'oauth-api-client-id': 'app',
  'oauth-api-client-secret': 'app-secret',
  'oauth-api-authorization-url': 'https://api.example/authorize',
  'oauth-api-token-url': 'https://api.example/token',
  'oauth-api-scopes': 'repo,read:org',
  'oauth-api-client-auth': 'basic',
  'token-store': 'redis://127.0.0.1:6379',
  'data-dir': '/var/lib/mcp',
  'token-store-key': STORE_KEY,
};

/** What a setting needs beside it to be accepted: the OAuth settings live in resource-server mode. */
const OAUTH = ['--transport', 'http', '--oauth-issuer', 'https://as.example'];
const CLIENT = ['--oauth-client-id', 'c', '--oauth-client-secret', 's'];
function without(args: string[], flag: string): string[] {
  const at = args.indexOf(`--${flag}`);
  return [...args.slice(0, at), ...args.slice(at + 2)];
}
/** The server as the authorization server: the API's app, its secret, the store's key, its public URL. */
const SIGN_IN = [
  '--transport',
  'http',
  '--oauth-api-client-id',
  'app',
  '--oauth-api-client-secret',
  's',
  '--token-store-key',
  Buffer.alloc(32, 9).toString('base64'),
  '--public-url',
  'http://127.0.0.1:3000',
];
const CONTEXT: Record<string, string[]> = {
  'oauth-issuer': ['--transport', 'http'],
  'public-url': OAUTH,
  'oauth-audience': OAUTH,
  'oauth-token-check': [...OAUTH, ...CLIENT],
  'oauth-client-id': OAUTH,
  'oauth-client-secret': OAUTH,
  'oauth-read-scope': OAUTH,
  'oauth-write-scope': OAUTH,
  'oauth-introspection-cache-ms': OAUTH,
  'oauth-scope-prefix': OAUTH,
  'token-exchange': [...OAUTH, ...CLIENT, '--token-exchange-scope', 'x'],
  'token-exchange-audience': [...OAUTH, ...CLIENT, '--token-exchange-scope', 'x'],
  'token-exchange-scope': [...OAUTH, ...CLIENT, '--token-exchange-audience', 'api'],
  'upstream-identity-header': OAUTH,
  'oauth-api-client-id': [
    ...OAUTH,
    ...CLIENT,
    '--public-url',
    'https://mcp.example',
    '--oauth-api-client-secret',
    's',
    '--token-store-key',
    STORE_KEY,
  ],
  'oauth-api-client-secret': without(SIGN_IN, 'oauth-api-client-secret'),
  'oauth-api-authorization-url': SIGN_IN,
  'oauth-api-token-url': SIGN_IN,
  'oauth-api-scopes': SIGN_IN,
  'oauth-api-client-auth': SIGN_IN,
  'token-store': SIGN_IN,
  'data-dir': SIGN_IN,
  'token-store-key': without(SIGN_IN, 'token-store-key'),
};
/** Variables beside the context: a setting every configuration needs, given here so that the flag can replace it. */
const CONTEXT_ENV: Record<string, Record<string, string>> = {
  'oauth-api-client-secret': { MCP_OAUTH_API_CLIENT_SECRET: 'other' },
  'token-store-key': { MCP_TOKEN_STORE_KEY: Buffer.alloc(32, 1).toString('base64') },
  'operation-store': { MCP_TOKEN_STORE_KEY: STORE_KEY },
};

describe('.env.example: credentials first, then the settings by concern', () => {
  it('every setting is in exactly one group', () => {
    const grouped = SETTING_GROUPS.flatMap((g) => g.flags);
    expect([...grouped].sort()).toEqual(SETTINGS.map((s) => s.flag).sort());
    expect(new Set(grouped).size).toBe(grouped.length);
  });

  it('lists the credentials, then each group under its heading, each variable once', () => {
    const text = String(files['.env.example']);
    const headings = [...text.matchAll(/^# --- (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(SETTING_GROUPS.map((g) => g.title));
    expect(text.indexOf('SWAGGER_PETSTORE_API_KEY=')).toBeLessThan(text.indexOf('# --- '));
    for (const s of SETTINGS) expect(text.match(new RegExp(`^${s.env}=$`, 'gm')), s.env).toHaveLength(1);
    expect(text.indexOf('MCP_TRANSPORT=')).toBeLessThan(text.indexOf('MCP_OAUTH_ISSUER='));
  });
});

describe('every setting, in every place', () => {
  it('a choice or a number has its default among the values it takes, so readConfig can fall back to it', () => {
    // --max-connections-per-address's default is derived from --max-connections.
    for (const s of SETTINGS.filter((s) => s.range !== undefined && s.flag !== 'max-connections-per-address')) {
      const n = Number(s.default);
      expect(Number.isInteger(n) && n >= s.range!.min && n <= s.range!.max, s.flag).toBe(true);
    }
    for (const s of SETTINGS.filter((s) => s.choices !== undefined && s.default !== undefined)) {
      // --tools and --token-exchange describe a default that depends on other settings.
      if (!['tools', 'token-exchange'].includes(s.flag)) expect(s.choices, s.flag).toContain(s.default);
    }
  });
  it('a security scheme whose credential variable would be a setting is refused, e.g. MCP_AUTH_TOKEN', () => {
    expect(() =>
      buildAuth(
        { components: { securitySchemes: { auth: { type: 'http', scheme: 'bearer' } } } },
        { prefix: 'MCP', chosen: true },
        'spec.yaml',
      ),
    ).toThrow(SpecError);
    expect(isServerSetting('SWAGGER_PETSTORE_API_KEY')).toBe(false);
  });

  it.each(SETTINGS.map((s) => [s.flag, s] as const))('--%s', (flag, s) => {
    // --help shows the flag and its variable
    expect(USAGE).toContain(`  ${flagText(s)}`);
    expect(USAGE).toContain(`[${envText(s)}]`);
    // the generated README's options table has its row, and .env.example its line
    expect(files['README.md']).toContain(`| \`${flagText(s)}\` | \`${envText(s)}\` |`);
    expect(files['.env.example']).toMatch(new RegExp(`^${s.env}=$`, 'm'));
    // its variable is reserved: no credential variable may take it
    expect(isServerSetting(s.env)).toBe(true);
  });

  it.each(SETTINGS.map((s) => [s.flag, s] as const))('--%s and its variable both reach the configuration, the flag first', (flag, s) => {
    const value = s.value === undefined ? undefined : SAMPLE[flag];
    if (s.value !== undefined) expect(value, `a sample value for --${flag}`).toBeDefined();
    const context = CONTEXT[flag] ?? [];
    const base = CONTEXT_ENV[flag] ?? {};
    const viaFlag = readConfig([...context, ...(value === undefined ? [`--${flag}`] : [`--${flag}`, value])], base) as ServerConfig;
    const viaEnv = readConfig(context, { ...base, [s.env]: value ?? '1' }) as ServerConfig;
    const none = readConfig(context, base) as ServerConfig;
    // Some combinations are refused on purpose (e.g. --dynamic-toolsets with another mode), so
    // compare the whole configurations: the variable does what the flag does, and both change something.
    expect(viaEnv).toEqual(viaFlag);
    expect(viaFlag).not.toEqual(none);
    if (value !== undefined) {
      const both = readConfig([...context, `--${flag}`, value], {
        ...base,
        [s.env]: flag === 'header' ? 'X-Other: c' : (SAMPLE[flag === 'port' ? 'max-sessions' : 'port'] ?? ''),
      }) as ServerConfig;
      expect(both).toEqual(viaFlag);
    }
  });
});

describe('scale-out settings (#17)', () => {
  it('--replica-id is a short token, since it starts every session id and is a proxy routing key', () => {
    expect((readConfig(['--replica-id', 'eu-1_b'], {}) as ServerConfig).replicaId).toBe('eu-1_b');
    expect((readConfig([], {}) as ServerConfig).replicaId).toBeUndefined();
    for (const bad of ['a.b', 'x'.repeat(33), 'a b', 'é', '']) {
      expect(() => readConfig(['--replica-id', bad], {}), JSON.stringify(bad)).toThrow(
        /^--replica-id must be 1 to 32 letters, digits, _ or - \(got ".*"\)$/,
      );
    }
  });

  it('the SSE keep-alive defaults well below the 60 s read timeout of nginx; the drain delay to none', () => {
    expect(readConfig([], {})).toMatchObject({ sseKeepAliveMs: 15_000, drainDelayMs: 0 });
    expect(readConfig(['--sse-keepalive-ms', '0'], {})).toMatchObject({ sseKeepAliveMs: 0 });
    expect(() => readConfig(['--drain-delay-ms', '1.5'], {})).toThrow(/--drain-delay-ms must be a whole number/);
  });
});
