// `mcp-gen serve <spec>`: the tool table built in memory and served by the same runtime as a
// generated project, over every transport, checked through the official SDK client against a
// recording upstream; the options that choose tools give what a generated server gives.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startNode, TMP, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const run = promisify(execFile);
const CLI = join(REPO, 'bin/mcp-gen.js');
const PETSTORE = join(REPO, 'samples/petstore/openapi.json');
// serve reads credentials in mcp-gen's own namespace: the spec's title does not choose them.
const CREDENTIALS = { MCPGEN_API_KEY: 'key-1', MCPGEN_PETSTORE_AUTH_TOKEN: 'token-1' };
const GENERATED_CREDENTIALS = { SWAGGER_PETSTORE_API_KEY: 'key-1', SWAGGER_PETSTORE_AUTH_TOKEN: 'token-1' };

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream(() => ({ body: '{"id":1,"name":"doggie"}' }));
});
afterAll(async () => {
  await upstream?.close();
});

const serveArgs = (...more: string[]) => [CLI, 'serve', PETSTORE, '--base-url', `${upstream.url}/v2`, '--log-level', 'warn', ...more];
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

describe.each(['stdio', 'http', 'sse'] as const)('mcp-gen serve over %s', (kind) => {
  let client: Client;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    if (kind === 'stdio') {
      client = await connect('stdio', REPO, { argv: serveArgs(), env: CREDENTIALS });
    } else {
      server = await startNode(serveArgs('--transport', kind, '--port', '0'), REPO, CREDENTIALS);
      client = await connect(kind, server.url);
    }
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('lists one tool per Petstore operation', async () => {
    expect(await names(client)).toHaveLength(20);
    expect(await names(client)).toContain('getPetById');
  });

  it('a tool call makes the request the spec describes, with the credential from the environment', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 7 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 1, name: 'doggie' });
    expect(upstream.requests.map((r) => `${r.method} ${r.url} api_key=${String(r.headers['api_key'])}`)).toEqual([
      'GET /v2/pet/7 api_key=key-1',
    ]);
  });
});

describe('mcp-gen serve chooses tools as a generated server does', () => {
  it.each([
    ['--include-tags store (a generator option)', ['--include-tags', 'store']],
    ['--toolsets user (a server option)', ['--toolsets', 'user']],
    ['--tools dynamic', ['--tools', 'dynamic']],
    ['--read-only', ['--read-only']],
  ])(
    '%s',
    async (_label, flags) => {
      const served = await connect('stdio', REPO, { argv: serveArgs(...flags), env: CREDENTIALS });
      const fromServe = await names(served);
      await served.close();
      // The same choice made by a generated project: generator options at generation, server options at start.
      const generatorFlags = flags[0] === '--include-tags' ? flags : [];
      const dir = generateProject(PETSTORE, `serve-compare-${flags[0]?.slice(2)}`, generatorFlags);
      await buildProject(dir);
      const generated = await connect('stdio', dir, {
        args: ['--base-url', `${upstream.url}/v2`, ...(generatorFlags.length ? [] : flags)],
        env: GENERATED_CREDENTIALS,
      });
      expect(fromServe).toEqual(await names(generated));
      await generated.close();
      expect(fromServe.length).toBeLessThan(20);
    },
    120_000,
  );
});

describe('mcp-gen serve: errors and settings', () => {
  const fails = (args: string[], cwd = REPO) =>
    run('node', [CLI, 'serve', ...args], { cwd, env: { PATH: process.env.PATH ?? '' } }).then(
      () => expect.unreachable('should have failed'),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it('a missing spec: exit 1 and one line naming it', async () => {
    const error = await fails(['no-such-spec.yaml']);
    expect(error.code).toBe(1);
    expect(error.stderr.trim().split('\n')).toHaveLength(1);
    expect(error.stderr).toContain('no-such-spec.yaml');
  });

  it('a bad server option: exit 2 and a line naming the option, after the tool count', async () => {
    const error = await fails([PETSTORE, '--transport', 'carrier-pigeon']);
    expect(error.code).toBe(2);
    expect(error.stderr).toContain('--transport must be stdio, http, sse or http+sse (got "carrier-pigeon")');
    expect(error.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('an unknown option: exit 2', async () => {
    const error = await fails([PETSTORE, '--no-such-option']);
    expect(error.code).toBe(2);
    expect(error.stderr).toContain("unknown option '--no-such-option'");
  });

  it('credentials from a .env in the current folder (variables already set would win)', async () => {
    const dir = join(TMP, 'serve-dotenv');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.env'), 'MCPGEN_API_KEY=from-dotenv\nMCPGEN_PETSTORE_AUTH_TOKEN=t\n');
    const client = await connect('stdio', dir, { argv: serveArgs(), env: {} });
    upstream.clear();
    const result = await client.callTool({ name: 'getPetById', arguments: { petId: 1 } });
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(upstream.requests[0]?.headers['api_key']).toBe('from-dotenv');
  });
});
