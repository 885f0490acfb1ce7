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
