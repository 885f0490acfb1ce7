// Generated servers judged by MCP clients written by others, over every transport: the Vercel
// AI SDK's (@ai-sdk/mcp), LangChain's (@langchain/mcp-adapters) and the MCP Inspector's CLI,
// each pinned in test/fixtures/<name>/package.json and installed into test/.tmp/_<name>. Each
// pair connects, lists the tools (names and a schema the client holds), calls getPetById (a
// path parameter) and findPetsByStatus (an exploded query array) whose requests the recording
// upstream must receive exactly, sees the upstream's answer, and gets an error result, not a
// crash, for bad arguments. Petstore (v2) has no operation with both a path and a query
// parameter, hence two calls. Every client here speaks all three transports (stdio, Streamable
// HTTP, legacy HTTP+SSE), so no pair is left out.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, generateProject, REPO, startServer, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { installInspector, NODE22, runInspector } from '../harness/inspector.js';
import { installPinned } from '../harness/pinned-tools.js';
import { petAnswer, startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';
import type { ToolTable } from '../../src/contract/table.js';

const SECRETS = { SWAGGER_PETSTORE_API_KEY: 'k', SWAGGER_PETSTORE_AUTH_TOKEN: 't' };
type Transport = 'stdio' | 'http' | 'sse';
let dir: string;
let names: string[];
let upstream: Upstream;
const children = new Children();

function answer(req: Recorded): Answer {
  if (req.path === '/v2/pet/findByStatus') return { body: JSON.stringify([{ id: 1, name: 'found-1', photoUrls: [] }]) };
  return petAnswer(req);
}

beforeAll(async () => {
  const driven = ['ai-sdk-mcp', 'langchain-mcp'].map((name) => installPinned(name, installed));
  await Promise.all([installInspector(), ...driven]);
  upstream = await startUpstream(answer);
  dir = generateProject(join(REPO, 'samples/petstore/openapi.json'), 'e2e-third-party-clients');
  await buildProject(dir);
  names = (JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable).tools.map((t) => t.name).sort();
}, 600_000);

afterAll(async () => {
  await children.stopAll();
  await upstream?.close();
});

/** Whether an npm install into `installDir` finished (npm writes its hidden lockfile last). */
const installed = (installDir: string): boolean => existsSync(join(installDir, 'node_modules/.package-lock.json'));

/** The server as the stdio clients start it. */
const serverCommand = () => ({
  command: process.execPath,
  args: [join(dir, 'dist/main.js'), '--base-url', `${upstream.url}/v2`],
  env: { PATH: process.env.PATH ?? '', ...SECRETS },
});

const GOOD_CALLS = [
  { tool: 'getPetById', args: { petId: 7 } },
  { tool: 'findPetsByStatus', args: { status: ['available', 'sold'] } },
];
const EXPECTED_REQUESTS = ['GET /v2/pet/7 api_key=k', 'GET /v2/pet/findByStatus?status=available&status=sold auth=Bearer t'];
const received = () =>
  upstream.requests.map(
    (r) => `${r.method} ${r.url} ${r.headers.api_key ? `api_key=${String(r.headers.api_key)}` : `auth=${String(r.headers.authorization)}`}`,
  );

interface Driven {
  tools: { name: string; inputSchema: { properties?: Record<string, { type?: string }>; required?: string[] } }[];
  calls: ({ result: unknown } | { threw: { name: string; message: string } })[];
}

/** Runs test/fixtures/<client>/drive.mjs from the client's install with `plan`; its JSON report. */
function drive(client: string, node: string, plan: object): Promise<Driven> {
  const installDir = join(REPO, 'test/.tmp', `_${client}`);
  copyFileSync(join(REPO, 'test/fixtures', client, 'drive.mjs'), join(installDir, 'drive.mjs'));
  return new Promise((resolve, reject) => {
    const child = execFile(
      node,
      [join(installDir, 'drive.mjs'), JSON.stringify(plan)],
      { cwd: installDir, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${client} failed (${error.message}):\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as Driven);
      },
    );
    children.track(child);
  });
}

/** What each driven client gives back for a tool's answer: the text the model would see. */
const CLIENTS = {
  // execute() returns the CallToolResult as it came (isError included): the AI SDK hands it to the model
  'ai-sdk-mcp': {
    node: () => NODE22, // @ai-sdk/mcp declares engines node >= 22
    text: (result: unknown) => JSON.stringify(result),
    bad: { tool: 'getPetById', args: { petId: 1.5 } },
    badSeen: (call: Driven['calls'][number]) => {
      expect(call).toHaveProperty('result.isError', true);
      expect(JSON.stringify(call)).toContain('petId');
    },
  },
  // invoke() returns the text content (a text block with structuredContent when there is one); an isError result becomes a ToolException (its documented
  // handling, dist/tools.js _convertCallToolResult), and it checks arguments against the listed
  // schema itself, so the bad call is one that fits the schema and only the server refuses
  'langchain-mcp': {
    node: () => process.execPath,
    text: (result: unknown) => JSON.stringify(result),
    bad: { tool: 'getUserByName', args: { username: '..' } },
    badSeen: (call: Driven['calls'][number]) => {
      expect(call).toHaveProperty('threw.name', 'ToolException');
      expect(JSON.stringify(call)).toContain('argument \\"username\\"');
    },
  },
} as const;

describe.each(['stdio', 'http', 'sse'] as const)('over %s', (transport: Transport) => {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    if (transport === 'stdio') return;
    server = await startServer(dir, transport, ['--base-url', `${upstream.url}/v2`], SECRETS);
    children.track(server.process);
  }, 60_000);
  afterAll(async () => server?.stop());
  const url = () => `${server?.url}/${transport === 'http' ? 'mcp' : 'sse'}`;

  it.each(Object.keys(CLIENTS) as (keyof typeof CLIENTS)[])(
    '%s lists, calls, and gets an error result for bad arguments',
    async (name) => {
      const client = CLIENTS[name];
      upstream.clear();
      const plan = transport === 'stdio' ? { transport, ...serverCommand() } : { transport, url: url() };
      const report = await drive(name, client.node(), { ...plan, calls: [...GOOD_CALLS, client.bad] });
      expect(report.tools.map((t) => t.name).sort()).toEqual(names);
      const getPet = report.tools.find((t) => t.name === 'getPetById');
      expect(getPet?.inputSchema.properties?.petId?.type).toBe('integer');
      expect(getPet?.inputSchema.required).toEqual(['petId']);
      expect(received()).toEqual(EXPECTED_REQUESTS);
      const [pet, found, bad] = report.calls;
      expect(client.text((pet as { result: unknown }).result)).toContain('pet-7');
      expect(client.text((found as { result: unknown }).result)).toContain('found-1');
      client.badSeen(bad as Driven['calls'][number]);
    },
    60_000,
  );

  it('the Inspector CLI lists, calls, and gets an error result for bad arguments', async () => {
    upstream.clear();
    // the CLI starts a stdio server with only the variables -e gives it
    const secrets = Object.entries(SECRETS).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const target =
      transport === 'stdio'
        ? [...secrets, '--', serverCommand().command, ...serverCommand().args]
        : ['--transport', transport, '--', url()];
    const env = {};
    const list = await runInspector(['--method', 'tools/list', ...target], env);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort(), list.stderr).toEqual(names);
    const call = (tool: string, args: string[]) =>
      runInspector(['--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...args, ...target], env);
    const pet = await call('getPetById', ['petId=7']);
    const found = await call('findPetsByStatus', ['status=["available","sold"]']);
    expect(received()).toEqual(EXPECTED_REQUESTS);
    expect(pet.stdout, pet.stderr).toContain('pet-7');
    expect(found.stdout, found.stderr).toContain('found-1');
    // petId=abc would not do: the CLI turns it into Number('abc'), NaN, sent as null, which the
    // server takes for an absent argument (checks.ts repairArguments); 1.5 reaches it as sent
    const bad = await call('getPetById', ['petId=1.5']);
    expect(JSON.parse(bad.stdout)).toMatchObject({ isError: true });
    expect(bad.stdout).toContain('petId');
    expect(upstream.requests).toHaveLength(2);
  }, 60_000);
});
