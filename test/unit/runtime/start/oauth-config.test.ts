// The resource-server settings are checked together at start: each mistake is one line naming
// the setting, and the combinations that would leak a token or accept any token are refused.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import { metadataUrls } from '../../../../src/runtime/oauth/resource-server/discovery.js';
import { metadataUrlOf } from '../../../../src/runtime/oauth/resource-server/resource.js';
import { scopePolicy } from '../../../../src/runtime/mcp/tool-scopes.js';
import type { ToolSpec, ToolTable } from '../../../../src/contract/table.js';

const HTTP = ['--transport', 'http'];
const ISSUER = ['--oauth-issuer', 'https://login.example/realms/team'];
const config = (args: string[], env: Record<string, string> = {}) => readConfig([...HTTP, ...args], env) as ServerConfig;

describe('--oauth-issuer and the settings around it', () => {
  it('defaults: JWT checks, the mcp:read and mcp:write scopes, a 30 s introspection cache, no exchange', () => {
    expect(config(ISSUER).oauth).toEqual({
      issuer: 'https://login.example/realms/team',
      audiences: [],
      tokenCheck: 'jwt',
      readScope: 'mcp:read',
      writeScope: 'mcp:write',
      introspectionCacheMs: 30_000,
    });
    expect(config([]).oauth).toBeUndefined();
  });

  it('counts as authentication: a server beyond loopback starts with it and a public URL', () => {
    const served = config([...ISSUER, '--host', '0.0.0.0', '--public-url', 'https://mcp.example/']);
    expect(served.oauth?.publicUrl).toBe('https://mcp.example');
  });

  it.each([
    [['--oauth-issuer', 'https://a.example', '--auth-token', 'tok'], /exclude each other/],
    [[...ISSUER, '--host', '0.0.0.0'], /needs --public-url \(MCP_PUBLIC_URL\)/],
    [['--oauth-issuer', 'http://login.example'], /must be an https URL/],
    [['--oauth-issuer', 'login.example'], /must be an absolute URL/],
    [['--oauth-issuer', 'https://u:p@login.example'], /must not carry a fragment or credentials/],
    [[...ISSUER, '--oauth-token-check', 'opaque'], /--oauth-token-check must be jwt or introspection/],
    [
      [...ISSUER, '--oauth-token-check', 'introspection'],
      /needs this server's client: set MCP_OAUTH_CLIENT_ID and MCP_OAUTH_CLIENT_SECRET/,
    ],
    [[...ISSUER, '--token-exchange-audience', 'api'], /--token-exchange needs this server's client/],
    [[...ISSUER, '--token-exchange', 'entra-obo', '--oauth-client-id', 'c', '--oauth-client-secret', 's'], /needs --token-exchange-scope/],
    [[...ISSUER, '--token-exchange', 'saml'], /--token-exchange must be off, rfc8693 or entra-obo/],
    [[...ISSUER, '--oauth-read-scope', 'two words'], /--oauth-read-scope must be one OAuth scope/],
    [[...ISSUER, '--upstream-identity-header', 'Host'], /--upstream-identity-header "Host"/],
    [[...ISSUER, '--upstream-identity-header', 'X User'], /not a valid header name/],
    [[...ISSUER, '--auth-from-headers', 'Authorization=petstore_auth'], /cannot map Authorization with --oauth-issuer/],
    [
      ['--oauth-audience', 'api'],
      /^--oauth-audience needs --oauth-issuer \(MCP_OAUTH_ISSUER\): it is for tokens of your authorization server$/,
    ],
  ])('%j is refused: %s', (args, message) => {
    expect(() => config(args)).toThrow(ConfigError);
    expect(() => config(args)).toThrow(message);
  });

  it.each(['--public-url', '--oauth-scope-prefix', '--upstream-identity-header'])(
    '%s without either mode names what each mode needs, by its exact names',
    (flag) => {
      const value = flag === '--public-url' ? 'https://mcp.example' : 'X-User';
      expect(() => config([flag, value])).toThrow(
        `${flag} needs --oauth-issuer (MCP_OAUTH_ISSUER) to check the tokens of your authorization server, ` +
          'or --oauth-api-client-id (MCP_OAUTH_API_CLIENT_ID) with MCP_OAUTH_API_CLIENT_SECRET for this server to sign users in at the API',
      );
    },
  );

  it('a mistyped MCP_OAUTH_API_CLIENT_ID beside its secret is named, not taken for the other mode', () => {
    const env = {
      MCP_PUBLIC_URL: 'https://mcp.example',
      MCP_OAUTH_API_CLIENTID: 'app',
      MCP_OAUTH_API_CLIENT_SECRET: 's',
      MCP_TOKEN_STORE_KEY: KEY,
    };
    expect(() => config([], env)).toThrow(
      '--public-url needs --oauth-api-client-id (MCP_OAUTH_API_CLIENT_ID): MCP_OAUTH_API_CLIENT_SECRET is set, its client id is not',
    );
  });

  it('is for HTTP clients only: stdio refuses it', () => {
    expect(() => readConfig(ISSUER, {})).toThrow(/--oauth-issuer serves HTTP clients/);
  });

  it('an http issuer is allowed on a loopback host, for development', () => {
    expect(config(['--oauth-issuer', 'http://127.0.0.1:8080']).oauth?.issuer).toBe('http://127.0.0.1:8080');
  });
});

const KEY = Buffer.alloc(32, 3).toString('base64');
const APP = ['--oauth-api-client-id', 'app'];
const APP_ENV = { MCP_OAUTH_API_CLIENT_SECRET: 'app-secret', MCP_TOKEN_STORE_KEY: KEY };
const OWN = [...APP, '--public-url', 'https://mcp.example'];

describe('--oauth-api-client-id: each user signs in at the API', () => {
  it('without --oauth-issuer the server is the authorization server: its issuer is its public URL', () => {
    expect(config(OWN, APP_ENV).oauth).toEqual({
      issuer: 'https://mcp.example',
      publicUrl: 'https://mcp.example',
      audiences: [],
      tokenCheck: 'self',
      readScope: 'mcp:read',
      writeScope: 'mcp:write',
      introspectionCacheMs: 30_000,
      signIn: {
        clientId: 'app',
        clientSecret: 'app-secret',
        clientAuth: 'post',
        store: { location: 'file', dataDir: '.mcp-data', keys: KEY },
      },
    });
  });

  it('with --oauth-issuer it keeps that issuer and links API accounts', () => {
    const client = ['--oauth-client-id', 'mcp', '--oauth-client-secret', 's', '--public-url', 'https://mcp.example'];
    const oauth = config([...ISSUER, ...APP, ...client], APP_ENV).oauth;
    expect(oauth?.tokenCheck).toBe('jwt');
    expect(oauth?.signIn?.clientId).toBe('app');
  });

  it('the API URLs, scopes, client authentication and a Redis store are settings', () => {
    const signIn = config(
      [
        ...OWN,
        '--oauth-api-authorization-url',
        'https://github.com/login/oauth/authorize',
        '--oauth-api-token-url',
        'https://github.com/login/oauth/access_token',
        '--oauth-api-scopes',
        'repo, read:org',
        '--oauth-api-client-auth',
        'basic',
        '--token-store',
        'redis://:pw@10.0.0.2:6379/1',
      ],
      APP_ENV,
    ).oauth?.signIn;
    expect(signIn).toMatchObject({
      authorizationUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
      scopes: ['repo', 'read:org'],
      clientAuth: 'basic',
      store: { location: 'redis://:pw@10.0.0.2:6379/1' },
    });
  });

  it.each([
    [APP, APP_ENV, /needs --public-url \(MCP_PUBLIC_URL\).*<public-url>\/oauth\/callback/],
    [OWN, { MCP_TOKEN_STORE_KEY: KEY }, /needs the app's secret: set MCP_OAUTH_API_CLIENT_SECRET/],
    [OWN, { MCP_OAUTH_API_CLIENT_SECRET: 's' }, /needs MCP_TOKEN_STORE_KEY.*openssl rand -base64 32/],
    [
      [...OWN, '--token-store', 'memcached://x'],
      APP_ENV,
      /--token-store must be file, a redis:\/\/ or rediss:\/\/ URL, deno-kv\[:PATH\], workers-kv:BINDING or durable-object:BINDING/,
    ],
    [[...OWN, '--token-store', 'workers-kv:not a name'], APP_ENV, /--token-store must be file/],
    [[...OWN, '--oauth-api-client-auth', 'jwt'], APP_ENV, /--oauth-api-client-auth must be post or basic/],
    [[...OWN, '--oauth-api-scopes', 'a"b'], APP_ENV, /--oauth-api-scopes: "a"b" is not an OAuth scope/],
    [[...OWN, '--oauth-api-token-url', 'http://api.example/token'], APP_ENV, /--oauth-api-token-url must be an https URL/],
    [[...OWN, '--token-exchange-audience', 'x'], APP_ENV, /is for tokens of another authorization server/],
    [[...OWN, '--auth-token', 'tok'], APP_ENV, /--oauth-api-client-id and --auth-token \(MCP_AUTH_TOKEN\) exclude each other/],
    [[...OWN, '--auth-from-headers', 'Authorization=petstore_auth'], APP_ENV, /cannot map Authorization with --oauth-api-client-id/],
    [['--data-dir', '/tmp/x'], {}, /--data-dir needs --oauth-api-client-id \(MCP_OAUTH_API_CLIENT_ID\)/],
    [
      [...ISSUER, ...APP, '--public-url', 'https://mcp.example'],
      APP_ENV,
      /linking API accounts .* needs --public-url and this server's client/,
    ],
  ])('%j %j is refused: %s', (args, env, message) => {
    expect(() => config(args, env)).toThrow(ConfigError);
    expect(() => config(args, env)).toThrow(message);
  });

  it.each(['workers-kv:MCP_TOKENS', 'durable-object:MCP_TOKENS', 'deno-kv', 'deno-kv:/var/tokens.sqlite'])(
    'takes the platform store %s',
    (location) => {
      expect(config([...OWN, '--token-store', location], APP_ENV).oauth?.signIn?.store.location).toBe(location);
    },
  );

  it('stdio refuses it, and no message carries a secret', () => {
    expect(() => readConfig([...OWN], APP_ENV)).toThrow(/--oauth-api-client-id serves HTTP clients/);
    let message = 'accepted';
    try {
      config([...OWN, '--token-store', 'memcached://user:hunter2@x'], APP_ENV);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/--token-store must be/);
    expect(message).not.toContain('hunter2');
  });
});

describe('discovery and metadata URLs', () => {
  it('RFC 8414 puts the well-known part before the issuer path, OpenID after it', () => {
    expect(metadataUrls('https://kc.example/realms/team')).toEqual([
      'https://kc.example/.well-known/oauth-authorization-server/realms/team',
      'https://kc.example/realms/team/.well-known/openid-configuration',
      'https://kc.example/.well-known/openid-configuration/realms/team',
    ]);
    expect(metadataUrls('https://tenant.auth0.com/')).toEqual([
      'https://tenant.auth0.com/.well-known/oauth-authorization-server',
      'https://tenant.auth0.com/.well-known/openid-configuration',
    ]);
  });

  it('RFC 9728 §3.1: the resource metadata URL carries the resource path', () => {
    expect(metadataUrlOf('https://mcp.example/')).toBe('https://mcp.example/.well-known/oauth-protected-resource');
    expect(metadataUrlOf('https://example.com/tools/mcp')).toBe('https://example.com/.well-known/oauth-protected-resource/tools/mcp');
  });
});

describe('scope policy', () => {
  const tool = (name: string, readOnly: boolean, scopes?: string[]): ToolSpec =>
    ({ name, annotations: { readOnlyHint: readOnly }, ...(scopes ? { scopes } : {}) }) as unknown as ToolSpec;
  const table = {
    tools: [tool('get', true), tool('put', false), tool('admin', false, ['api:admin', 'mcp:write']), tool('open', false, [])],
  } as ToolTable;
  const policy = scopePolicy(table, { readScope: 'r', writeScope: 'w' });
  const auth = (...scopes: string[]) => ({ token: 't', clientId: 'c', scopes });

  it('read-only tools need the read scope, others the write scope, rules their own (all of them)', () => {
    expect(table.tools.map((t) => policy.required(t))).toEqual([['r'], ['w'], ['api:admin', 'mcp:write'], []]);
    expect(policy.supported).toEqual(['r', 'w', 'api:admin', 'mcp:write']);
    const visible = (...scopes: string[]) => table.tools.filter((t) => policy.allows(t, auth(...scopes))).map((t) => t.name);
    expect(visible('r')).toEqual(['get', 'open']);
    expect(visible('r', 'w')).toEqual(['get', 'put', 'open']);
    expect(visible('api:admin')).toEqual(['open']);
    expect(visible('api:admin', 'mcp:write', 'openid')).toEqual(['admin', 'open']);
  });
});
