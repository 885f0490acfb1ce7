// Which upstreams a spec loaded from a URL may choose (src/model/upstreams.ts): no server URL and
// no OAuth tokenUrl on an internal address, each refusal a warning naming its place. IP
// addresses only, so that no test depends on DNS.
import { describe, expect, it } from 'vitest';
import type { LoadedSpec } from '../../../src/parse/load.js';
import type { JsonObject } from '../../../src/parse/pointer.js';
import { screenUpstreams } from '../../../src/model/upstreams.js';
import { buildModel } from '../../../src/model/build.js';
import { formatWarning } from '../../../src/warnings.js';

const PUBLIC = 'https://93.184.215.14';
const ok = { responses: { '200': { description: 'ok' } } };
const doc = (): JsonObject => ({
  openapi: '3.0.3',
  info: { title: 'T', version: '1' },
  servers: [{ url: 'http://10.0.0.5/api' }, { url: '/v1' }, { url: 'http://{host}/x', variables: { host: { default: '[::1]' } } }],
  components: {
    securitySchemes: {
      oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'http://192.168.1.1/token', scopes: {} } } },
      outside: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${PUBLIC}/token`, scopes: {} } } },
      signIn: {
        type: 'oauth2',
        flows: { authorizationCode: { authorizationUrl: `${PUBLIC}/authorize`, tokenUrl: 'http://10.1.2.3/token', scopes: {} } },
      },
    },
  },
  paths: {
    '/meta': { servers: [{ url: 'http://169.254.169.254/latest' }], get: { operationId: 'meta', ...ok } },
    '/pets': { get: { operationId: 'pets', servers: [{ url: `${PUBLIC}/pets-api` }], ...ok } },
  },
});
const loaded = (source: string): LoadedSpec => ({ doc: doc(), specVersion: '3.0.3', source, warnings: [] });

describe('the upstreams of a spec loaded from a URL', () => {
  it("an internal server URL or tokenUrl is left out, with a warning at its place; public ones and the spec's own origin stay", async () => {
    const spec = loaded(`${PUBLIC}/openapi.json`);
    expect(await screenUpstreams(spec, false)).toEqual({});
    expect(spec.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(
        /^#\/servers\/0\/url: http:\/\/10\.0\.0\.5\/api is an internal address \(10\.0\.0\.5\).*--base-url.*--allow-internal-servers$/,
      ),
      expect.stringMatching(/^#\/servers\/2\/url: http:\/\/\[::1\]\/x is an internal address \(::1\)/),
      expect.stringMatching(/^#\/paths\/~1meta\/servers\/0\/url: http:\/\/169\.254\.169\.254\/latest is an internal address/),
      expect.stringMatching(
        /^#\/components\/securitySchemes\/oauth\/flows\/clientCredentials\/tokenUrl: http:\/\/192\.168\.1\.1\/token is an internal address \(192\.168\.1\.1\), where a spec loaded from a URL may not send the client secret: not used; the scheme takes a ready token/,
      ),
      expect.stringMatching(
        /^#\/components\/securitySchemes\/signIn\/flows\/authorizationCode\/tokenUrl: http:\/\/10\.1\.2\.3\/token is an internal address/,
      ),
    ]);
    const { table } = buildModel(spec, { maxDescriptionLength: 1000 });
    expect(table.servers.map((s) => s.url)).toEqual([`${PUBLIC}/v1`]);
    expect(table.tools.map((t) => [t.name, t.http.servers?.map((s) => s.url)])).toEqual([
      ['meta', undefined],
      ['pets', [`${PUBLIC}/pets-api`]],
    ]);
    expect(table.auth.oauth).not.toHaveProperty('clientCredentials');
    expect(table.auth.outside).toHaveProperty('clientCredentials', { tokenUrl: `${PUBLIC}/token` });
    expect(table.auth.signIn).not.toHaveProperty('authorizationCode');
  });

  it('a spec fetched from an internal address trusts its own origin there, and nothing else internal', async () => {
    const spec = loaded('http://10.0.0.5/openapi.json');
    expect(await screenUpstreams(spec, false)).toEqual({ trustedOrigin: 'http://10.0.0.5' });
    expect(spec.warnings.map((w) => w.where)).toEqual([
      '#/servers/2/url',
      '#/paths/~1meta/servers/0/url',
      '#/components/securitySchemes/oauth/flows/clientCredentials/tokenUrl',
      '#/components/securitySchemes/signIn/flows/authorizationCode/tokenUrl',
    ]);
  });

  it.each([
    ['a spec file', 'spec.json', false],
    ['--allow-internal-servers', `${PUBLIC}/openapi.json`, true],
  ])('%s: nothing is left out and no rule is carried', async (_label, source, allow) => {
    const spec = loaded(source);
    expect(await screenUpstreams(spec, allow)).toBeUndefined();
    expect(spec.warnings).toEqual([]);
    expect(spec.doc).toEqual(doc());
  });
});
