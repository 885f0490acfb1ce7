// Credential variable names (src/model/auth.ts): the spec names the security schemes, so it
// must not be able to make the generated server read another tool's secret.
import { formatWarning } from '../../../src/warnings.js';
import { describe, expect, it } from 'vitest';
import {
  buildAuth,
  credentialGroups,
  credentialNaming,
  credentialParameters,
  credentialSummary,
  envPrefixFor,
  joinOverlapping,
  withSchemes,
} from '../../../src/model/auth.js';
import type { AuthSchemeSpec, ToolSpec } from '../../../src/contract/table.js';
import { param } from '../../harness/params.js';
import { packageNameFor } from '../../../src/model/naming.js';
import { SpecError } from '../../../src/errors.js';
import type { JsonObject } from '../../../src/parse/pointer.js';

const doc = (schemes: JsonObject): JsonObject => ({ openapi: '3.0.3', components: { securitySchemes: schemes } });
const apiKey = { type: 'apiKey', in: 'header', name: 'X-Key' };
const bearer = { type: 'http', scheme: 'bearer' };
const variables = (schemes: JsonObject, prefix: string, chosen = false) =>
  Object.fromEntries(Object.entries(buildAuth(doc(schemes), { prefix, chosen }, 'spec.yaml').schemes).map(([name, s]) => [name, s.env]));

describe('credential variable names', () => {
  it.each([
    ['swagger-petstore-mcp', 'SWAGGER_PETSTORE'],
    ['stripe-api-mcp', 'STRIPE_API'],
    ['github-v3-rest-api-mcp', 'GITHUB_V3_REST_API'],
    ['42-things-mcp', 'AUTH_42_THINGS'],
  ])('the default prefix of %s is %s', (pkg, want) => {
    expect(envPrefixFor(pkg)).toBe(want);
  });

  it.each([
    ['SWAGGER_PETSTORE', 'API_KEY', 'SWAGGER_PETSTORE_API_KEY'],
    ['SWAGGER_PETSTORE', 'PETSTORE_AUTH', 'SWAGGER_PETSTORE_AUTH'],
    ['STRIPE', 'STRIPE', 'STRIPE'],
    ['STRIPE', 'STRIPE_KEY', 'STRIPE_KEY'],
    ['ACME', 'BEARER', 'ACME_BEARER'],
    ['', 'BEARER', 'BEARER'],
  ])('%s + %s = %s', (prefix, stem, want) => {
    expect(joinOverlapping(prefix, stem)).toBe(want);
  });

  it('prefixes every part of every scheme with the API name', () => {
    const env = variables(
      {
        api_key: apiKey,
        petstore_auth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://x/token', scopes: {} } } },
        basic: { type: 'http', scheme: 'basic' },
      },
      'SWAGGER_PETSTORE',
    );
    expect(env).toEqual({
      api_key: { key: 'SWAGGER_PETSTORE_API_KEY' },
      basic: { username: 'SWAGGER_PETSTORE_BASIC_USERNAME', password: 'SWAGGER_PETSTORE_BASIC_PASSWORD' },
      petstore_auth: {
        token: 'SWAGGER_PETSTORE_AUTH_TOKEN',
        clientId: 'SWAGGER_PETSTORE_AUTH_CLIENT_ID',
        clientSecret: 'SWAGGER_PETSTORE_AUTH_CLIENT_SECRET',
      },
    });
  });

  // A hostile spec names its scheme so that the variable is a secret it wants to exfiltrate: with
  // the default prefix, the variables move to PREFIX_MCP_… (said in a warning); never that name.
  it.each([
    ['AWS', { SECRET_ACCESS: apiKey }, { SECRET_ACCESS: { key: 'AWS_MCP_SECRET_ACCESS_KEY' } }],
    ['GITHUB', { token: bearer }, { token: { token: 'GITHUB_MCP_TOKEN' } }],
    ['NPM', { 'a/b': bearer, token: bearer }, { 'a/b': { token: 'NPM_MCP_A_B_TOKEN' }, token: { token: 'NPM_MCP_TOKEN' } }],
  ])('default prefix %s with schemes %j: a well-known name moves to the PREFIX_MCP_ namespace', (prefix, schemes, want) => {
    expect(variables(schemes, prefix)).toEqual(want);
    const model = buildAuth(doc(schemes), { prefix, chosen: false }, 'spec.yaml');
    expect(model.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(new RegExp(`^credential variables start with ${prefix}_MCP_: .*a well-known secret of another tool`)),
    ]);
  });

  it.each([
    ['MCP', { auth: bearer }, 'MCP_AUTH_TOKEN', '#/components/securitySchemes/auth'],
    ['ACME', { MCP_ALLOWED_HOSTS: bearer }, 'ACME_MCP_ALLOWED_HOSTS_TOKEN', undefined],
  ])("prefix %s with schemes %j: %s (the server's own namespace) is refused unless it is harmless", (prefix, schemes, name, where) => {
    if (where === undefined) {
      expect(
        Object.values(variables(schemes, prefix))
          .map((e) => Object.values(e))
          .flat(),
      ).toEqual([name]);
      return;
    }
    expect(() => variables(schemes, prefix)).toThrow(SpecError);
    try {
      variables(schemes, prefix);
    } catch (error) {
      expect((error as SpecError).message).toContain(`would be ${name}`);
      expect((error as SpecError).message).toContain('--env-prefix');
      expect((error as SpecError).where).toBe(`spec.yaml${where}`);
    }
  });

  it("lets the user choose a well-known name on purpose, but never one in the server's MCP_ namespace", () => {
    expect(variables({ token: bearer }, 'GITHUB', true)).toEqual({ token: { token: 'GITHUB_TOKEN' } });
    expect(() => variables({ token: bearer }, 'MCP_AUTH', true)).toThrow(/MCP_AUTH_TOKEN, one of the server's own settings/);
  });

  it('numbers names that two schemes share', () => {
    expect(variables({ 'api-key': apiKey, api_key: apiKey }, 'ACME')).toEqual({
      'api-key': { key: 'ACME_API_KEY' },
      api_key: { key: 'ACME_API_KEY_2' },
    });
  });

  it.each([
    ['a prefix the user gives', { envPrefix: 'ACME' }, true, { prefix: 'ACME', chosen: true }],
    ['a package name the user gives', { name: 'warehouse-mcp' }, false, { prefix: 'WAREHOUSE', chosen: false }],
    ["the title's package name, for a spec file generated from", {}, true, { prefix: 'DB', chosen: false }],
    ["mcp-gen's own namespace otherwise (serve, a spec URL)", {}, false, { prefix: 'MCPGEN', chosen: false }],
  ])('the prefix comes from %s', (_label, user, titleMayName, want) => {
    const packageName = 'name' in user ? (user.name as string) : packageNameFor('DB', undefined);
    expect(credentialNaming(user, packageName, titleMayName)).toEqual(want);
  });
});

// The secrets issue #23 saw a spec collect through `mcp-gen serve <url>`: with its title as the
// prefix (DB, Postgres, …) each scheme below named one of them, the OAuth client secret (sent to
// the spec's tokenUrl) included. In mcp-gen's namespace none can be named.
describe("a spec's title does not name the credentials when no one reviews them", () => {
  const oauth = { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://attacker.example/token', scopes: {} } } };
  it.each([
    ['DB', { db: { type: 'http', scheme: 'basic' } }, 'DB_PASSWORD'],
    ['Postgres', { postgres: { type: 'http', scheme: 'basic' } }, 'POSTGRES_PASSWORD'],
    ['Sendgrid', { api: apiKey }, 'SENDGRID_API_KEY'],
    ['Twilio', { auth: bearer }, 'TWILIO_AUTH_TOKEN'],
    ['Mailgun', { api_key: apiKey }, 'MAILGUN_API_KEY'],
    ['Google', { client_secret: oauth }, 'GOOGLE_CLIENT_SECRET'],
    ['Datadog', { api: apiKey }, 'DATADOG_API_KEY'],
  ])('a spec titled %s with schemes %j', (title, schemes, secret) => {
    const read = (titleMayName: boolean) => {
      const naming = credentialNaming({}, packageNameFor(title, undefined), titleMayName);
      return Object.values(buildAuth(doc(schemes), naming, 'spec.yaml').schemes).flatMap((s) => Object.values(s.env) as string[]);
    };
    expect(read(true)).toContain(secret); // generating from a reviewed spec file: the title's names
    expect(read(false)).not.toContain(secret);
    expect(read(false).every((name) => name.startsWith('MCPGEN_'))).toBe(true);
  });
});

describe('schemes that would send a header the server cannot send', () => {
  // With --auth-from-headers the client gives the value: an apiKey "in: header, name: Host"
  // would let it retarget the request, one in Transfer-Encoding smuggle a second one.
  it('are left out, each with a warning at its pointer', () => {
    const model = buildAuth(
      doc({
        host: { type: 'apiKey', in: 'header', name: 'Host' },
        te: { type: 'apiKey', in: 'header', name: 'transfer-encoding' },
        proxy: { type: 'apiKey', in: 'header', name: 'Proxy-Authorization' },
        'a/b': { type: 'apiKey', in: 'header', name: 'X-Key\r\nHost: evil' },
        jar: { type: 'apiKey', in: 'cookie', name: 'a;b' },
        odd: { type: 'http', scheme: 'Bearer x' },
        ok: apiKey,
        cookie: { type: 'apiKey', in: 'cookie', name: 'session' },
      }),
      { prefix: 'API', chosen: false },
      'spec.yaml',
    );
    expect(Object.keys(model.schemes)).toEqual(['cookie', 'ok']);
    const tail = '; the scheme is left out, so operations that need it must be authenticated in src/hooks.ts';
    const owned = 'the HTTP client sets it itself (framing, routing or connection)';
    expect(model.warnings.map(formatWarning)).toEqual([
      `#/components/securitySchemes/a~1b: header "X-Key\\r\\nHost: evil" cannot be sent: not a valid header name (an RFC 9110 token)${tail}`,
      `#/components/securitySchemes/host: header "Host" cannot be sent: ${owned}${tail}`,
      `#/components/securitySchemes/jar: cookie "a;b" cannot be sent: not a valid cookie name (an RFC 6265 token)${tail}`,
      `#/components/securitySchemes/odd: authentication scheme "Bearer x" cannot be sent: not a valid scheme name (an RFC 9110 token)${tail}`,
      `#/components/securitySchemes/proxy: header "Proxy-Authorization" cannot be sent: ${owned}${tail}`,
      `#/components/securitySchemes/te: header "transfer-encoding" cannot be sent: ${owned}${tail}`,
    ]);
    expect(new Set(model.warnings.map((w) => w.code))).toEqual(new Set(['unsendable-header']));
  });
});

describe("the API's own sign-in (authorization code flow)", () => {
  const schemes = (flow: JsonObject) =>
    buildAuth(doc({ oauth: { type: 'oauth2', flows: { authorizationCode: flow } } }), { prefix: 'ACME', chosen: false }, 'spec.yaml')
      .schemes;

  it('keeps the URLs and the declared scope names', () => {
    const flow = {
      authorizationUrl: 'https://acme.example/authorize',
      tokenUrl: 'https://acme.example/token',
      scopes: { repo: 'x', 'read:org': 'y' },
    };
    expect(schemes(flow).oauth).toHaveProperty('authorizationCode', {
      authorizationUrl: 'https://acme.example/authorize',
      tokenUrl: 'https://acme.example/token',
      scopes: ['repo', 'read:org'],
    });
  });

  it.each([
    ['no tokenUrl', { authorizationUrl: 'https://a.example/authorize', scopes: {} }],
    ['a relative authorizationUrl', { authorizationUrl: '/authorize', tokenUrl: 'https://a.example/token', scopes: {} }],
    ['a javascript: URL', { authorizationUrl: 'javascript:alert(1)', tokenUrl: 'https://a.example/token', scopes: {} }],
  ])('leaves out a flow with %s', (_label, flow) => {
    expect(schemes(flow as JsonObject).oauth).not.toHaveProperty('authorizationCode');
  });

  it('drops scope names no request could carry', () => {
    const flow = { authorizationUrl: 'https://a.example/a', tokenUrl: 'https://a.example/t', scopes: { 'a b': '', 'c"': '', ok: '' } };
    expect(schemes(flow).oauth).toHaveProperty('authorizationCode.scopes', ['ok']);
  });
});

describe('parameters that are a credential (a scheme of the same name and location)', () => {
  const schemes: Record<string, AuthSchemeSpec> = {
    appId: { type: 'apiKey', in: 'header', name: 'x-apideck-app-id', env: { key: 'A_APP_ID_KEY' } },
    key: { type: 'apiKey', in: 'query', name: 'key', env: { key: 'A_KEY' } },
  };
  it('a header in any case, a query parameter by its exact name; the required ones and the optional ones', () => {
    const params = [
      param('X-Apideck-App-Id', 'header', true),
      param('key', 'query', false),
      param('Key', 'query', true),
      param('key', 'header', true),
    ];
    const { filled, required, optional } = credentialParameters(params, schemes);
    expect([...filled].map((p) => `${p.in} ${p.name}`)).toEqual(['header X-Apideck-App-Id', 'query key']);
    expect({ required, optional }).toEqual({ required: ['appId'], optional: ['key'] });
  });

  it('a required one joins every way to authenticate; an optional one is used when set, else the call goes without', () => {
    expect(withSchemes([{ bearer: [] }], [], [])).toEqual([{ bearer: [] }]);
    expect(withSchemes(undefined, [], [])).toBeUndefined();
    expect(withSchemes([{ apiKey: [] }], ['appId'], [])).toEqual([{ apiKey: [], appId: [] }]);
    expect(withSchemes(undefined, ['appId'], [])).toEqual([{ appId: [] }]);
    expect(withSchemes([{ oauth: ['write'] }], [], ['key'])).toEqual([{ oauth: ['write'], key: [] }, { oauth: ['write'] }]);
    expect(withSchemes(undefined, [], ['key'])).toEqual([{ key: [] }, {}]);
  });
});

describe('credentialGroups: which schemes are alternatives', () => {
  const scheme = (type: 'basic' | 'http'): AuthSchemeSpec =>
    type === 'basic' ? { type, env: { username: 'U', password: 'P' } } : { type, scheme: 'bearer', env: { token: 'T' } };
  const tool = (name: string, security: Record<string, string[]>[]) => ({ name, security }) as unknown as ToolSpec;
  const cases: [string, { auth: string[]; tools: ToolSpec[]; want: string[][] }][] = [
    [
      "each of two schemes alone, on the same tools (Stripe's basic or bearer): one group",
      {
        auth: ['basic', 'bearer'],
        tools: [tool('a', [{ basic: [] }, { bearer: [] }]), tool('b', [{ bearer: [] }, { basic: [] }])],
        want: [['basic', 'bearer']],
      },
    ],
    [
      'both required together: a group each',
      { auth: ['basic', 'bearer'], tools: [tool('a', [{ basic: [], bearer: [] }])], want: [['basic'], ['bearer']] },
    ],
    [
      'accepted by different tools: a group each',
      {
        auth: ['basic', 'bearer'],
        tools: [tool('a', [{ basic: [] }, { bearer: [] }]), tool('b', [{ bearer: [] }])],
        want: [['basic'], ['bearer']],
      },
    ],
    [
      'a scheme no tool uses: a group of its own',
      { auth: ['basic', 'bearer'], tools: [tool('a', [{ bearer: [] }])], want: [['basic'], ['bearer']] },
    ],
  ];
  it.each(cases)('%s', (_name, { auth, tools, want }) => {
    const table = { auth: Object.fromEntries(auth.map((n) => [n, scheme(n === 'basic' ? 'basic' : 'http')])), tools };
    expect(credentialGroups(table)).toEqual(want);
  });

  it('the summary says "one of" for alternatives', () => {
    const table = { auth: { basic: scheme('basic'), bearer: scheme('http') }, tools: [tool('a', [{ basic: [] }, { bearer: [] }])] };
    expect(credentialSummary(table)).toBe('one of basic (U, P) or bearer (T)');
  });
});
