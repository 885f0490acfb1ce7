// What a platform cannot serve is refused at start, in words, on every request (issue #40's
// rule): here the address screening a spec read from a URL asks for, which a platform's fetch
// cannot do. The web handler runs in this process as the Deno entry runs it.
import { describe, expect, it } from 'vitest';
import { createWebServer } from '../../../../src/runtime/web/web-server.js';
import { summarize } from '../../../../src/contract/summary.js';
import type { ToolTable } from '../../../../src/contract/table.js';

/** A table of a spec read from https://specs.example (so its servers and token URL are screened on Node). */
function tableFromUrl(tokenUrl: string): ToolTable {
  return {
    format: 1,
    name: 'acme',
    version: '1.0.0',
    servers: [{ url: 'https://api.example' }],
    defs: {},
    auth: {
      machine: {
        type: 'oauth2',
        clientCredentials: { tokenUrl },
        env: { token: 'ACME_MACHINE_TOKEN', clientId: 'ACME_MACHINE_CLIENT_ID', clientSecret: 'ACME_MACHINE_CLIENT_SECRET' },
      },
    },
    publicServers: { trustedOrigin: 'https://specs.example' },
    tools: [],
  } as ToolTable;
}

async function answerOn(table: ToolTable, env: Record<string, string>): Promise<{ status: number; message: string }> {
  const server = createWebServer({ platform: 'deno', summary: summarize(table), table, hooks: {}, env });
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
