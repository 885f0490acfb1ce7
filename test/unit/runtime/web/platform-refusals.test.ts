// What a platform cannot serve is refused at start, in words, on every request (issue #40's
// rule): the address screening a spec read from a URL asks for, which a platform's fetch cannot
// do, and the settings no platform serves yet. The Node server's own settings (connection caps,
// timeouts, drain, replica ids, session caps) are the platform's concern there: not applied, and
// said so at start, naming them and the platform, while the server serves. The web handler runs
// in this process as the entries run it.
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createWebServer } from '../../../../src/runtime/web/web-server.js';
import { summarize } from '../../../../src/contract/summary.js';
import type { ToolTable } from '../../../../src/contract/table.js';
import { apiWithoutTools } from '../../../harness/http-steps.js';

/** A table of a spec read from https://specs.example (so its servers and token URL are screened on Node). */
function tableFromUrl(tokenUrl: string): ToolTable {
  return apiWithoutTools({
    auth: {
      machine: {
        type: 'oauth2',
        clientCredentials: { tokenUrl },
        env: { token: 'ACME_MACHINE_TOKEN', clientId: 'ACME_MACHINE_CLIENT_ID', clientSecret: 'ACME_MACHINE_CLIENT_SECRET' },
      },
    },
    publicServers: { trustedOrigin: 'https://specs.example' },
  });
}

async function answerOn(
  table: ToolTable,
  env: Record<string, string>,
  platform: 'cloudflare' | 'deno' | 'lambda' | 'vercel' = 'deno',
): Promise<{ status: number; message: string }> {
  const server = createWebServer({ platform, summary: summarize(table), table, hooks: {}, env });
  const response = await server.fetch(
    new Request('http://127.0.0.1:3000/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
  );
  const body = (await response.json()) as { error?: { message?: string } };
  return { status: response.status, message: body.error?.message ?? '' };
}

describe('a spec read from a URL, served on a platform', () => {
  const base = { API_BASE_URL: 'https://api.example', MCP_AUTH_TOKEN: 'shared' };

  it('is refused when the client credentials token URL would need screening, naming it and what to do', async () => {
    const answer = await answerOn(tableFromUrl('https://login.example/oauth/token?tenant=x'), {
      ...base,
      ACME_MACHINE_CLIENT_ID: 'id',
      ACME_MACHINE_CLIENT_SECRET: 'secret',
    });
    expect(answer.status).toBe(503);
    expect(answer.message).toContain('OAuth token URL (https://login.example/oauth/token)');
    expect(answer.message).toContain('generate from a saved copy of the spec');
    expect(answer.message).not.toContain('secret');
  });

  it("is served when that scheme is not used (no client id), or its token URL is the spec's own origin", async () => {
    expect((await answerOn(tableFromUrl('https://login.example/oauth/token'), base)).status).not.toBe(503);
    const sameOrigin = await answerOn(tableFromUrl('https://specs.example/token'), { ...base, ACME_MACHINE_CLIENT_ID: 'id' });
    expect(sameOrigin.status).not.toBe(503);
  });

  it('is refused without API_BASE_URL, since its servers would need screening', async () => {
    const answer = await answerOn(tableFromUrl('https://specs.example/token'), { MCP_AUTH_TOKEN: 'shared' });
    expect(answer.status).toBe(503);
    expect(answer.message).toContain('set API_BASE_URL');
  });
});

/**
 * A table of two APIs as generate joins them: shop from a file, zoo from https://specs.example
 * (its servers and token URL screened on Node); the root's publicServers is the first API's.
 */
function twoApis(zooTokenUrl: string, zooFirst = false): ToolTable {
  const shop = { servers: [{ url: 'https://shop.example' }], baseUrlEnv: 'SHOP_BASE_URL' };
  const zoo = {
    servers: [{ url: 'https://zoo.example' }],
    baseUrlEnv: 'ZOO_BASE_URL',
    publicServers: { trustedOrigin: 'https://specs.example' },
  };
  const scheme = (namespace: string, tokenUrl: string) => ({
    api: namespace.toLowerCase(),
    type: 'oauth2',
    clientCredentials: { tokenUrl },
    env: { token: `${namespace}_MACHINE_TOKEN`, clientId: `${namespace}_MACHINE_CLIENT_ID` },
  });
  return {
    format: 1,
    name: 'shop-zoo',
    version: '1.0.0',
    servers: [],
    defs: {},
    auth: { shop_machine: scheme('SHOP', 'https://login.example/token'), zoo_machine: scheme('ZOO', zooTokenUrl) },
    apis: zooFirst ? { zoo, shop } : { shop, zoo },
    ...(zooFirst ? { publicServers: zoo.publicServers } : {}),
    tools: [],
  } as ToolTable;
}

describe('several APIs, one of them read from a URL, served on a platform', () => {
  const base = { MCP_AUTH_TOKEN: 'shared' };

  it("is refused without that API's base URL variable, naming it", async () => {
    const answer = await answerOn(twoApis('https://specs.example/token'), base);
    expect(answer.status).toBe(503);
    expect(answer.message).toContain("the zoo API's spec came from a URL");
    expect(answer.message).toContain('set ZOO_BASE_URL');
  });

  it("is served with that API's variable alone, whichever API comes first", async () => {
    for (const zooFirst of [false, true]) {
      const answer = await answerOn(twoApis('https://specs.example/token', zooFirst), { ...base, ZOO_BASE_URL: 'https://zoo.example' });
      expect(answer.status, answer.message).not.toBe(503);
    }
  });

  it('refuses a token URL only by the rule of the API whose scheme it is', async () => {
    const env = { ...base, ZOO_BASE_URL: 'https://zoo.example', SHOP_MACHINE_CLIENT_ID: 'id' };
    expect((await answerOn(twoApis('https://specs.example/token', true), env)).status).not.toBe(503);
    const answer = await answerOn(twoApis('https://login.example/oauth/token'), { ...env, ZOO_MACHINE_CLIENT_ID: 'id' });
    expect(answer.status).toBe(503);
    expect(answer.message).toContain('OAuth token URL (https://login.example/oauth/token)');
  });
});

/** A table of one API from a saved spec: nothing of it needs what a platform lacks. */
const PLAIN_TABLE = apiWithoutTools();

describe.each(['cloudflare', 'deno', 'lambda', 'vercel'] as const)('on %s, a setting no platform serves yet', (platform) => {
  const table = PLAIN_TABLE;
  const base = { MCP_AUTH_TOKEN: 'shared' };
  // OAuth in place of the shared token.
  const issuer = {
    MCP_AUTH_TOKEN: '',
    MCP_OAUTH_ISSUER: 'https://login.example',
    MCP_PUBLIC_URL: 'https://mcp.example',
    MCP_OAUTH_CLIENT_ID: 'mcp',
    MCP_OAUTH_CLIENT_SECRET: 'mcp-secret',
  };

  it.each([
    ['legacy SSE', { MCP_TRANSPORT: 'sse' }, `MCP_TRANSPORT=sse: ${platform} serves Streamable HTTP at /mcp only`],
    [
      'OpenTelemetry export in protobuf',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf: ${platform} exports traces as OTLP/HTTP JSON only: set it to http/json, or unset it`,
    ],
    [
      'OpenTelemetry export with another sampler',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_TRACES_SAMPLER: 'traceidratio' },
      `OTEL_TRACES_SAMPLER=traceidratio: ${platform} samples as parentbased_always_on only: unset it, or use the Node server`,
    ],
    [
      'linking API accounts',
      {
        ...issuer,
        MCP_OAUTH_API_CLIENT_ID: 'app',
        MCP_OAUTH_API_CLIENT_SECRET: 'mcp-secret',
        MCP_TOKEN_STORE_KEY: Buffer.alloc(32, 7).toString('base64'),
        MCP_OAUTH_API_AUTHORIZATION_URL: 'https://api.example/auth',
        MCP_OAUTH_API_TOKEN_URL: 'https://api.example/token',
      },
      `linking API accounts (MCP_OAUTH_ISSUER with MCP_OAUTH_API_CLIENT_ID) is not served on ${platform} yet`,
    ],
  ])('%s is refused on every request, in one line naming the setting', async (_feature, env, reason) => {
    const answer = await answerOn(table, { ...base, ...env }, platform);
    expect(answer.status).toBe(503);
    expect(answer.message).toContain(reason);
    expect(answer.message).not.toContain('\n');
    expect(answer.message).not.toContain('mcp-secret');
  });
});

let printed: MockInstance<typeof console.error>;
beforeEach(() => {
  printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => printed.mockRestore());

/** What the server printed at start on `platform` with `env`, and its health answer's status. */
async function startOn(platform: 'cloudflare' | 'deno' | 'lambda' | 'vercel', env: Record<string, string>) {
  const server = createWebServer({
    platform,
    summary: summarize(PLAIN_TABLE),
    table: PLAIN_TABLE,
    hooks: {},
    env: { MCP_AUTH_TOKEN: 'shared', ...env },
  });
  const health = await server.fetch(new Request('http://127.0.0.1:3000/healthz'));
  return { lines: printed.mock.calls.map((call) => String(call[0])), status: health.status };
}

describe.each(['cloudflare', 'deno', 'lambda', 'vercel'] as const)("on %s, the Node server's own settings", (platform) => {
  it("says at start which of the Node server's settings it does not apply, and serves", async () => {
    const started = await startOn(platform, {
      MCP_MAX_CONNECTIONS: '50',
      MCP_REQUEST_TIMEOUT_MS: '1000',
      API_BASE_URL: 'https://api.example',
    });
    const said = started.lines.filter((line) => line.includes('MCP_MAX_CONNECTIONS'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`MCP_MAX_CONNECTIONS, MCP_REQUEST_TIMEOUT_MS are the Node server's and not applied on ${platform}`);
    expect(said[0]).not.toContain('API_BASE_URL');
    expect(started.status).toBe(200);
  });

  it('says nothing of the kind without them', async () => {
    const started = await startOn(platform, { API_BASE_URL: 'https://api.example' });
    expect(started.lines.filter((line) => line.includes('not applied'))).toEqual([]);
    expect(started.status).toBe(200);
  });
});

describe('on deno, settings refused as they are read', () => {
  it('still listens on HOST and PORT, where the refusal is said', async () => {
    const env = { HOST: '127.0.0.2', PORT: '4567', MCP_AUTH_TOKEN: 'shared', MCP_OAUTH_API_CLIENT_ID: 'app' };
    const server = createWebServer({ platform: 'deno', summary: summarize(PLAIN_TABLE), table: PLAIN_TABLE, hooks: {}, env });
    expect(server.address).toEqual({ hostname: '127.0.0.2', port: 4567 });
    const answer = await server.fetch(new Request('http://127.0.0.2:4567/mcp', { method: 'POST', body: '{}' }));
    expect(answer.status).toBe(503);
    expect(await answer.text()).toContain('MCP_OAUTH_API_CLIENT_SECRET');
  });
});
