// 9. The OAuth resource server (--oauth-issuer): what checking a JWT on every request costs
// against the static bearer check (--auth-token) and against no check at all, per call and at
// start, with a real authorization server (oidc-provider, test/harness/authorization-server.ts)
// on loopback. The features section (11) reports the JWT check beside the unchecked call.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startNode, startServer, type RunningServer } from '../harness/project.js';
import { freePort } from '../harness/process.js';
import { discoverAuthorizationServer } from '../src/runtime/oauth/resource-server/discovery.js';
import { jwtVerifier } from '../src/runtime/oauth/resource-server/verify.js';
import { startAuthorizationServer, type AuthorizationServer } from '../test/harness/authorization-server.js';
import { mcpGenProject } from './lib/fixtures.js';
import { staticImports } from './lib/modules.js';
import { OAUTH_MODES, type OAuthMode, type OAuthResult } from './lib/results.js';
import { startUpstream } from './lib/upstream.js';
import { interleave, latencyCell, log, median, sequentialCalls } from './lib/util.js';

const SCOPES = ['mcp:read', 'mcp:write'];

/** The answer the upstream gives is in the result: the call really went through. */
function okText(result: unknown): boolean {
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  return !r.isError && (r.content ?? []).some((c) => c.type === 'text' && (c.text ?? '').includes('doggie'));
}

/** The server's resource identifier on loopback, as the authorization server puts it in the token's audience. */
const resourceOf = (url: string) => `${url}/`;

/** A token the --oauth-issuer server listening on `url` accepts: issued for its resource, with both scopes. */
/** Distinct tokens whose first check (the signature) is timed. */
const FIRST_CHECKS = 500;
const cpuMsOf = (cpu: NodeJS.CpuUsage): number => (cpu.user + cpu.system) / 1000;

async function tokenFor(as: AuthorizationServer, url: string): Promise<string> {
  as.addResource(resourceOf(url), SCOPES);
  return as.issueToken({ user: 'alice', scopes: SCOPES, resource: resourceOf(url) });
}

function lazyCheck(project: string): OAuthResult['lazy'] {
  const common = readFileSync(join(project, 'lib/runtime/http/listener.js'), 'utf8');
  const { files, packages } = staticImports(join(project, 'dist/main.js'));
  const staticOAuth = [
    ...files.map((f) => relative(project, f)).filter((f) => /oauth/i.test(f)),
    ...[...packages].filter((p) => p === 'jose' || p === 'oidc-provider'),
  ];
  return { dynamicImport: /\bimport\(\s*['"][./]*oauth\/resource-server\/resource-server\.js['"]\s*\)/.test(common), staticOAuth };
}

export async function runOAuth(options: { quick: boolean }): Promise<OAuthResult> {
  const n = options.quick ? 200 : 2000;
  const reps = options.quick ? 2 : 5;
  const startReps = options.quick ? 3 : 9;
  const iterations = options.quick ? 1000 : 5000;
  const upstream = await startUpstream();
  const petstore = await mcpGenProject('petstore');
  const as = await startAuthorizationServer({ resources: {} });
  const env = { SWAGGER_PETSTORE_API_KEY: 'bench' };
  const staticToken = randomBytes(24).toString('base64url');
  const main = join(petstore, 'dist/main.js');
  const modeArgs: Record<OAuthMode, string[]> = {
    'no auth': [],
    'static token': ['--auth-token', staticToken],
    'oauth jwt': ['--oauth-issuer', as.issuer],
  };

  // ── 1. per call: the same sequential tools/call against both servers, interleaved
  const servers: Partial<Record<OAuthMode, { server: RunningServer; client: Client; token: string }>> = {};
  const unavailable: OAuthResult['unavailable'] = {};
  for (const mode of OAUTH_MODES) {
    try {
      const server = await startServer(petstore, 'http', ['--base-url', upstream.url, ...modeArgs[mode]], env);
      // The unchecked server gets the static token's header too (it ignores it): every mode sends the same bytes.
      const token = mode === 'oauth jwt' ? await tokenFor(as, server.url) : staticToken;
      const client = await connect('http', server.url, { headers: { authorization: `Bearer ${token}` } });
      servers[mode] = { server, client, token };
      await client.listTools();
      // Warm-up (JIT, validators, the JWKS fetch and the key import); also checks the answer.
      for (let i = 0; i < 50; i++) {
        if (!okText(await client.callTool({ name: 'getPetById', arguments: { petId: 1 } })))
          throw new Error('the call did not return the upstream answer');
      }
    } catch (error) {
      unavailable[mode] = (error as Error).message.split('\n')[0];
    }
  }
  const modes = OAUTH_MODES.filter((m) => servers[m] && !unavailable[m]);
  log(`oauth: ${reps} × ${n} sequential tools/call × ${modes.join(', ')}`);
  const runs = await interleave(reps, modes, async (mode) => {
    const { server, client } = servers[mode] as NonNullable<(typeof servers)[OAuthMode]>;
    return sequentialCalls(
      n,
      async () => okText(await client.callTool({ name: 'getPetById', arguments: { petId: 1 } })),
      server.process.pid as number,
    );
  });
  const cells: OAuthResult['cells'] = {};
  for (const mode of modes) cells[mode] = latencyCell(runs[mode]);
  const jwksFetches = as.jwksRequests;

  // ── the JWT check alone, in this process: the lower bound of what the server adds per request
  const oauthServer = servers['oauth jwt'];
  const url = oauthServer?.server.url ?? 'http://127.0.0.1:1';
  const token = oauthServer?.token ?? (await tokenFor(as, url));
  const metadata = await discoverAuthorizationServer(as.issuer);
  // As the server builds it for a loopback request: both spellings of the resource.
  const verifier = jwtVerifier(metadata)({ audiences: [url, resourceOf(url)], resource: url });
  await verifier.verifyAccessToken(token); // fetches the JWKS and imports the key once
  log(`oauth: ${reps} × ${iterations} JWT verifications in-process`);
  const verifyRuns: { ms: number; cpuMs: number }[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await verifier.verifyAccessToken(token);
    const ms = (performance.now() - t0) / iterations;
    const cpu = process.cpuUsage(cpu0);
    verifyRuns.push({ ms, cpuMs: (cpu.user + cpu.system) / 1000 / iterations });
  }
  // A token's first check verifies its signature; the server then remembers its claims. Distinct
  // tokens, each checked once, measure that first check.
  const fresh: string[] = [];
  for (let i = 0; i < FIRST_CHECKS; i++) fresh.push(await as.issueToken({ user: `user-${i}`, scopes: SCOPES, resource: resourceOf(url) }));
  const cpuFirst = process.cpuUsage();
  const tFirst = performance.now();
  for (const t of fresh) await verifier.verifyAccessToken(t);
  const first = {
    tokens: FIRST_CHECKS,
    ms: (performance.now() - tFirst) / FIRST_CHECKS,
    cpuMs: cpuMsOf(process.cpuUsage(cpuFirst)) / FIRST_CHECKS,
  };
  const header = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8')) as { alg?: string };
  const verify = {
    iterations,
    reps,
    runs: verifyRuns.map((r) => r.ms),
    ms: median(verifyRuns.map((r) => r.ms)),
    cpuMs: median(verifyRuns.map((r) => r.cpuMs)),
    alg: header.alg ?? 'unknown',
    tokenBytes: Buffer.byteLength(token),
    first,
  };
  for (const { server, client } of Object.values(servers)) {
    await client.close().catch(() => undefined);
    await server.stop();
  }

  // ── 2. cold start over HTTP: spawn → initialize answered, each server with its own check.
  // The port is chosen first, so that the OAuth token (whose audience names it) is minted
  // before the clock starts.
  log(`oauth: cold start over HTTP, ${startReps} × ${OAUTH_MODES.join(', ')}`);
  const startErrors: Partial<Record<OAuthMode, string>> = {};
  const startRuns = await interleave(startReps, [...OAUTH_MODES], async (mode) => {
    const port = await freePort();
    const serverUrl = `http://127.0.0.1:${port}`;
    const bearer = mode === 'oauth jwt' ? await tokenFor(as, serverUrl) : staticToken;
    let server: RunningServer | undefined;
    let client: Client | undefined;
    try {
      const t0 = performance.now();
      server = await startNode(
        [main, '--transport', 'http', '--port', String(port), '--base-url', upstream.url, ...modeArgs[mode]],
        petstore,
        env,
      );
      const listening = performance.now() - t0;
      client = await connect('http', server.url, { headers: { authorization: `Bearer ${bearer}` } });
      return { ms: performance.now() - t0, listening };
    } catch (error) {
      startErrors[mode] ??= (error as Error).message.split('\n')[0];
      return { ms: NaN, listening: NaN };
    } finally {
      await client?.close().catch(() => undefined);
      await server?.stop();
    }
  });
  const startCells: OAuthResult['start']['cells'] = {};
  for (const mode of OAUTH_MODES) {
    const list = startRuns[mode];
    const error = startErrors[mode];
    startCells[mode] = {
      runs: list.map((r) => r.ms),
      ms: median(list.map((r) => r.ms)),
      listenRuns: list.map((r) => r.listening),
      listenMs: median(list.map((r) => r.listening)),
      ...(error ? { error } : {}),
    };
  }

  await as.close();
  await upstream.stop();
  const jose = (JSON.parse(readFileSync(join(petstore, 'node_modules/jose/package.json'), 'utf8')) as { version: string }).version;
  return {
    calls: n,
    reps,
    cells,
    unavailable,
    jwksFetches,
    verify,
    start: { reps: startReps, cells: startCells },
    lazy: lazyCheck(petstore),
    jose,
  };
}
