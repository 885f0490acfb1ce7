// The server's log quotes what clients send, and the log is often the operator's terminal. A
// client that reaches an OAuth authorization server (here `mcp-gen serve` with users' sign-in at
// the API) chooses its client ID; with the metadata-document fetches all busy, the server logged
// that ID as it came, escape sequences included. Every log line is one line of visible text.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPO, startNode, type RunningServer } from '../../harness/project.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-log-injection-'));
/** Accepts connections and never answers: each client ID document fetch to it stays busy. */
let blackHole: Server;
let server: RunningServer;

beforeAll(async () => {
  buildCli();
  blackHole = createServer(() => undefined);
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Logs', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: { '/x': { get: { operationId: 'x', responses: { '200': { description: 'ok' } } } } },
  };
  mkdirSync(join(scratch, 'data'));
  writeFileSync(join(scratch, 'openapi.json'), JSON.stringify(spec));
  server = await startNode([join(REPO, 'bin/mcp-gen.js'), 'serve', 'openapi.json', '--transport', 'http', '--port', '0'], scratch, {
    MCP_PUBLIC_URL: 'http://127.0.0.1:1',
    MCP_OAUTH_API_CLIENT_ID: 'client',
    MCP_OAUTH_API_CLIENT_SECRET: 'client-secret',
    MCP_OAUTH_API_AUTHORIZATION_URL: 'https://auth.example.com/authorize',
    MCP_OAUTH_API_TOKEN_URL: 'https://auth.example.com/token',
    MCP_TOKEN_STORE_KEY: Buffer.alloc(32, 7).toString('base64'),
    MCP_DATA_DIR: join(scratch, 'data'),
  });
});

afterAll(async () => {
  await server?.stop();
  blackHole?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const authorize = (clientId: string) =>
  fetch(
    `${server.url}/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:1/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's',
    }).toString()}`,
    { redirect: 'manual' },
  );

describe("a client's text in the server's log", () => {
  it('shows escape sequences as escapes: the client cannot erase lines, set the title or write the clipboard', async () => {
    const port = (blackHole.address() as AddressInfo).port;
    // ten fetches under way (the server's bound), each waiting on the black hole
    const busy = Array.from({ length: 10 }, (_, i) => authorize(`https://127.0.0.1:${port}/client-${i}`).catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const hostile = `https://127.0.0.1/\u001b]0;PWNED\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2K\rclient`;
    await authorize(hostile);
    await expect.poll(() => server.stderr(), { timeout: 5_000 }).toContain('not fetched');
    const line =
      server
        .stderr()
        .split('\n')
        .find((l) => l.includes('not fetched')) ?? '';
    expect(line).toContain('https://127.0.0.1/\\u001b]0;PWNED\\u0007\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b[2K\\u000dclient');
    expect(server.stderr()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    blackHole.close();
    await Promise.all(busy);
  });
});
