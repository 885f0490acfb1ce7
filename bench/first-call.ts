// 3, second part (issue #43): cold start to the first answered tools/call. Spawn → initialize →
// tools/list → one tools/call that reaches the bench's upstream, for the minimal unbundled SDK
// server doing the same (floor-server.mjs: one tool that GETs the upstream) and the generated
// servers. Spoken as raw JSON-RPC lines over stdio (clients.ts RawStdio: the messages the SDK
// client sends), so that the time is the server's: the SDK client would add its own work, which
// grows with the listing (on the first callTool it compiles an output validator for every
// listed tool: hundreds of ms for GitHub's 1,224), the same for any server listing those tools.
import { RawStdio, type ServerCommand } from './lib/clients.js';
import { mcpGenProject, omgProject, placeIn } from './lib/fixtures.js';
import { START_SERVERS, type FirstCallResult, type StartServer } from './lib/results.js';
import { startUpstream, type Upstream } from './lib/upstream.js';
import { interleave, log, median } from './lib/util.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A server to start, and the call that must reach the upstream. */
interface Contender extends ServerCommand {
  tool: string;
  arguments: Record<string, unknown>;
  note?: string;
}

/** Milliseconds from spawn to each answer. */
interface Phases {
  initialize: number;
  list: number;
  call: number;
  tools: number;
}

const PET = { tool: 'getPetById', arguments: { petId: 1 } };
const GITHUB_ROOT = { tool: 'meta_root', arguments: {} };

async function contenders(upstream: string): Promise<Partial<Record<StartServer, Contender>>> {
  const petstore = await mcpGenProject('petstore');
  const github = await mcpGenProject('github');
  const dynamic = await mcpGenProject('github-dynamic');
  const omgPet = await omgProject('petstore');
  const omgGithub = await omgProject('github');
  const mcpGen = (dir: string) => [join(dir, 'dist/main.js'), '--base-url', upstream];
  // openapi-mcp-generator names the variable API_KEY_<SCHEME> and reads the base URL from API_BASE_URL.
  const omgEnv = { API_KEY_API_KEY: 'bench', API_BASE_URL: upstream };
  const out: Partial<Record<StartServer, Contender>> = {
    minimal: { args: [placeIn(petstore, 'floor-server.mjs')], env: { UPSTREAM_URL: upstream }, ...PET },
    'mcp-gen petstore': { args: mcpGen(petstore), env: { SWAGGER_PETSTORE_API_KEY: 'bench' }, ...PET },
    'mcp-gen github': { args: mcpGen(github), ...GITHUB_ROOT },
    'mcp-gen github dynamic': { args: mcpGen(dynamic), tool: 'invoke_operation', arguments: { name: 'meta_root', arguments: {} } },
  };
  if (existsSync(omgPet.entry)) out['omg petstore'] = { args: [omgPet.entry], cwd: omgPet.dir, env: omgEnv, ...PET };
  if (existsSync(omgGithub.entry))
    out['omg github'] = {
      args: [omgGithub.entry],
      cwd: omgGithub.dir,
      env: omgEnv,
      ...GITHUB_ROOT,
      ...(omgGithub.built ? {} : { note: 'its build failed; this runs the JavaScript tsc emitted anyway' }),
    };
  return out;
}

/** One cold start through the first call; throws unless the call succeeded and the upstream saw one request. */
async function firstCall(server: Contender, upstream: Upstream): Promise<Phases> {
  const before = (await upstream.counts()).served;
  const started = performance.now();
  const session = await RawStdio.start(server);
  try {
    const initialize = performance.now() - started;
    const list = await session.request('tools/list');
    const listed = performance.now() - started;
    const call = await session.request('tools/call', { name: server.tool, arguments: server.arguments });
    const called = performance.now() - started;
    const result = call.message.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
    if (!result || result.isError) throw new Error(`${server.tool}: ${JSON.stringify(call.message.error ?? result?.content?.[0]?.text)}`);
    const served = (await upstream.counts()).served - before;
    if (served !== 1) throw new Error(`${server.tool}: the upstream saw ${served} requests, not 1`);
    return { initialize, list: listed, call: called, tools: (list.message.result as { tools: unknown[] }).tools.length };
  } finally {
    await session.close();
  }
}

export async function runFirstCall(reps: number): Promise<FirstCallResult> {
  const upstream = await startUpstream();
  try {
    const servers = await contenders(upstream.url);
    const names = START_SERVERS.filter((s) => servers[s]);
    log(`cold start to the first call: ${reps} × ${names.join(', ')}`);
    const errors: Partial<Record<StartServer, string>> = {};
    const runs = await interleave(reps, names, async (name): Promise<Phases | undefined> => {
      try {
        return await firstCall(servers[name] as Contender, upstream);
      } catch (error) {
        errors[name] ??= (error as Error).message.split('\n')[0];
        return undefined;
      }
    });
    const cells: FirstCallResult['cells'] = {};
    for (const name of names) {
      const ok = runs[name].filter((r): r is Phases => r !== undefined);
      const note = servers[name]?.note;
      const error = errors[name];
      cells[name] = {
        runs: ok.map((r) => r.call),
        ms: median(ok.map((r) => r.call)),
        initializeMs: median(ok.map((r) => r.initialize)),
        listMs: median(ok.map((r) => r.list)),
        ...(ok[0] ? { tools: ok[0].tools } : {}),
        ...(note ? { note } : {}),
        ...(error ? { error } : {}),
      };
    }
    return { reps, cells };
  } finally {
    await upstream.stop();
  }
}
