// The resource server's web steps (web-resource-server.ts) served alone through the Node adapter,
// in front of a stand-in endpoint: the resource a
// request is for takes the name of the Host the guard let in (loopback names and
// --allowed-hosts) and the port the server listens on when no public URL is set, and the
// metadata never names a Host the guard would refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthConfig, type ServerConfig } from '../../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../../src/runtime/start/command-line.js';
import { hostOriginGuard } from '../../../../../src/runtime/web/web-steps.js';
import { webResourceServer } from '../../../../../src/runtime/oauth/resource-server/web-resource-server.js';
import { scopePolicy } from '../../../../../src/runtime/mcp/tool-scopes.js';
import type { ToolTable } from '../../../../../src/contract/table.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../../harness/authorization-server.js';
import { recordingLogger, send, serveWebSteps, type StepServer } from '../../../../harness/http-steps.js';

const table = { name: 't', version: '1', tools: [] } as unknown as ToolTable;
let as: AuthorizationServer;
let served: StepServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ resources: {} });
  const config = readConfig(['--transport', 'http', '--oauth-issuer', as.issuer, '--allowed-hosts', 'mcp.internal'], {}) as ServerConfig & {
    oauth: OAuthConfig;
  };
  const steps = await webResourceServer(config, { table, policy: scopePolicy(table, config.oauth) }, recordingLogger());
  served = await serveWebSteps(steps.metadata, hostOriginGuard(config), steps.gate);
});
afterAll(async () => {
  await served?.close();
  await as?.close();
});

describe('the resource a request is for, without --public-url', () => {
  it.each([
    ['127.0.0.1:3000', '127.0.0.1'],
    ['localhost:3000', 'localhost'],
    ['localhost', 'localhost'],
    ['mcp.internal:8080', 'mcp.internal'],
  ])("Host %s: the 401 and the metadata name %s with the port the server listens on, never the Host's", async (host, name) => {
    const resource = `http://${name}:${served.port}`;
    const refused = await send(served.port, { method: 'POST', path: '/mcp', headers: { host } });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain(`resource_metadata="${resource}/.well-known/oauth-protected-resource/mcp"`);
    const root = await send(served.port, { path: '/.well-known/oauth-protected-resource', headers: { host } });
    expect(root.json).toMatchObject({ resource: `${resource}/`, authorization_servers: [as.issuer] });
    const endpoint = await send(served.port, { path: '/.well-known/oauth-protected-resource/mcp', headers: { host } });
    expect(endpoint.json).toMatchObject({ resource: `${resource}/mcp`, authorization_servers: [as.issuer] });
  });

  it("the authorization server's own metadata is passed through for 2025-03-26 clients, which look for it here", async () => {
    const passed = await send(served.port, { path: '/.well-known/oauth-authorization-server', headers: { host: '127.0.0.1:3000' } });
    expect(passed.status).toBe(200);
    expect(passed.json).toMatchObject({ issuer: as.issuer, token_endpoint: expect.stringContaining(as.issuer) });
  });

  it('a Host the guard refuses gets no metadata naming it, and no further', async () => {
    const metadata = await send(served.port, { path: '/.well-known/oauth-protected-resource', headers: { host: 'evil.example' } });
    expect(metadata.status).toBe(403);
    expect(metadata.json).not.toHaveProperty('resource');
  });
});
