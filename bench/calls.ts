// 4. Calls: N `tools/call getPetById` (Petstore), one at a time and 50 at once, over stdio
// and Streamable HTTP, against a local upstream — versus the same N requests sent straight
// to the upstream with fetch (the limit). Then the memory each open HTTP session costs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startServer } from '../harness/project.js';
import { stdioClient } from './lib/clients.js';
import { mcpGenProject, omgProject, placeIn, type OmgBuild } from './lib/fixtures.js';
import { profileClock, readProfile, selfTime } from './lib/profile.js';
import { CALL_MODES, CONCURRENCY, type CallMode, type CallsResult, type SessionMemory } from './lib/results.js';
import { startUpstream } from './lib/upstream.js';
import { TMP, drive, interleave, log, median, sleep, summarize } from './lib/util.js';
import { cpuMs, freePort, rssKb, stopChild } from '../harness/process.js';

/** The answer the upstream gives is in the result: the call really went through. */
function okText(result: unknown): boolean {
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  return !r.isError && (r.content ?? []).some((c) => c.type === 'text' && (c.text ?? '').includes('doggie'));
}

interface Target {
  call: () => Promise<boolean>;
  ping?: () => Promise<unknown>;
  close: () => Promise<void>;
  /** The MCP server's process, for its CPU time. */
  pid?: number;
}

function toolCaller(client: Client, name: string, args: Record<string, unknown>): () => Promise<boolean> {
  return async () => okText(await client.callTool({ name, arguments: args }));
}

interface OmgHttp {
  url: string;
  child: ChildProcess;
  /** The line of its stderr that says why it failed, if it did. */
  crash(): string | undefined;
}

async function omgHttpServer(build: OmgBuild, env: Record<string, string>): Promise<OmgHttp> {
  const port = await freePort();
  const child = spawn(process.execPath, [build.entry], {
    cwd: build.dir,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const crash = () => (child.exitCode !== null ? (/^\w*Error\b.*$/m.exec(stderr)?.[0] ?? `exited with ${child.exitCode}`) : undefined);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`openapi-mcp-generator's HTTP server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child, crash };
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error("openapi-mcp-generator's HTTP server did not start in 10 s");
}

/** An error of a client of an openapi-mcp-generator server, with the server's own reason if it died. */
async function withCrash(server: OmgHttp, error: unknown): Promise<Error> {
  await sleep(200);
  const reason = server.crash();
  return new Error(reason ? `the server crashed: ${reason}` : ((error as Error).message.split('\n')[0] ?? 'failed'));
}

const WRITES = new Set(['writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeUcs2String', 'writeBuffer', 'writev']);

/** What a leaf frame of the server's profile belongs to. */
function category(frame: { functionName: string; url: string }): string {
  const { functionName: fn, url } = frame;
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'garbage collection';
  if (WRITES.has(fn)) return 'write system calls (stdout pipe, upstream socket)';
  if (url.includes('node:internal/deps/undici')) return 'fetch (undici)';
  if (url.includes('/zod/')) return 'zod (the SDK checking each message)';
  if (url.includes('/ajv')) return 'ajv (arguments, structured result)';
  if (url.includes('@modelcontextprotocol/')) return 'MCP SDK';
  if (url.includes('/dist/runtime/') || url.includes('/dist/contract/')) return 'generated runtime';
  if (url.startsWith('node:')) return 'Node internals (streams, events, …)';
  return 'other (V8, natives, module loading)';
}

/** The stdio server under `--cpu-prof`; only the samples taken during `calls` sequential calls count (after start-up and 50 warm-up calls). */
async function profileStdioServer(
  entry: string,
  upstream: string,
  env: Record<string, string>,
  calls: number,
): Promise<CallsResult['serverProfile']> {
  const dir = join(TMP, 'calls-profile');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { client } = await stdioClient({ args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, entry, '--base-url', upstream], env });
  const call = toolCaller(client, 'getPetById', { petId: 1 });
  await client.listTools();
  for (let i = 0; i < 50; i++) await call();
  const from = profileClock();
  for (let i = 0; i < calls; i++) await call();
  const to = profileClock();
  await client.close();
  for (let i = 0; i < 100 && !readdirSync(dir).some((f) => f.endsWith('.cpuprofile')); i++) await sleep(100);
  const profile = readProfile(dir);
  rmSync(dir, { recursive: true, force: true });
  if (!profile) return undefined;
  const parts = selfTime(profile, category, { from, to });
  const totalMs = Object.values(parts).reduce((a, b) => a + b, 0);
  return { calls, totalMs, parts };
}

export async function runCalls(options: { quick: boolean }): Promise<CallsResult> {
  const n = options.quick ? 200 : 2000;
  const reps = options.quick ? 1 : 3;
  const upstream = await startUpstream();
  const petstore = await mcpGenProject('petstore');
  const omgStdio = await omgProject('petstore');
  const omgHttp = await omgProject('petstore-http');
  const mcpEnv = { SWAGGER_PETSTORE_API_KEY: 'bench' };
  // openapi-mcp-generator names the variable API_KEY_<SCHEME> and reads the base URL from API_BASE_URL.
  const omgEnv = { API_KEY_API_KEY: 'bench', API_BASE_URL: upstream.url };
  const args = { petId: 1 };

  const targets: Partial<Record<CallMode, Target>> = {};
  const unavailable: CallsResult['unavailable'] = {};
  const open = async (mode: CallMode, make: () => Promise<Target>) => {
    try {
      const target = await make();
      // Warm-up (JIT, lazily compiled validators, connection pools); also checks the answer.
      for (let i = 0; i < 50; i++) if (!(await target.call())) throw new Error('the call did not return the upstream answer');
      targets[mode] = target;
    } catch (error) {
      unavailable[mode] = (error as Error).message.split('\n')[0];
    }
  };

  await open('direct', async () => ({
    call: async () => JSON.stringify(await (await fetch(`${upstream.url}/pet/1`)).json()).includes('doggie'),
    close: async () => undefined,
  }));
  // For reference: the same request with node:http and a keep-alive agent instead of fetch.
  const agent = new Agent({ keepAlive: true });
  await open('direct http', async () => ({
    call: () =>
      new Promise<boolean>((resolve, reject) => {
        httpGet(`${upstream.url}/pet/1`, { agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))).includes('doggie')));
          res.on('error', reject);
        }).on('error', reject);
      }),
    close: async () => agent.destroy(),
  }));
  await open('mcp-gen stdio', async () => {
    const { client, pid } = await stdioClient({ args: [`${petstore}/dist/main.js`, '--base-url', upstream.url], env: mcpEnv });
    await client.listTools();
    return { call: toolCaller(client, 'getPetById', args), ping: () => client.ping(), close: () => client.close(), pid };
  });
  // The floor: the SDK with one tool that only GETs the upstream (bench/floor-server.mjs).
  await open('floor stdio', async () => {
    const { client, pid } = await stdioClient({ args: [placeIn(petstore, 'floor-server.mjs')], env: { UPSTREAM_URL: upstream.url } });
    await client.listTools();
    return { call: toolCaller(client, 'getPetById', args), close: () => client.close(), pid };
  });
  const http = await startServer(petstore, 'http', ['--base-url', upstream.url], mcpEnv);
  await open('mcp-gen http', async () => {
    const client = await connect('http', http.url);
    await client.listTools();
    return {
      call: toolCaller(client, 'getPetById', args),
      ping: () => client.ping(),
      close: () => client.close(),
      pid: http.process.pid as number,
    };
  });
  await open('mcp-gen http stateless', async () => {
    const client = await connect('http', http.url, { negotiate: true });
    await client.listTools();
    return { call: toolCaller(client, 'getPetById', args), close: () => client.close(), pid: http.process.pid as number };
  });
  await open('omg stdio', async () => {
    const { client, pid } = await stdioClient({ args: [omgStdio.entry], cwd: omgStdio.dir, env: omgEnv });
    await client.listTools();
    return { call: toolCaller(client, 'getPetById', args), close: () => client.close(), pid };
  });
  let omgServer: ChildProcess | undefined;
  await open('omg http', async () => {
    const server = await omgHttpServer(omgHttp, omgEnv);
    omgServer = server.child;
    try {
      const client = await connect('http', server.url);
      await client.listTools();
      return { call: toolCaller(client, 'getPetById', args), close: () => client.close(), pid: server.child.pid as number };
    } catch (error) {
      throw await withCrash(server, error);
    }
  });

  // The stateless (2026-07-28) path only 50 at once: sequentially it is as slow as the session
  // path and would add a minute to the run.
  const combos = CALL_MODES.filter((m) => targets[m])
    .flatMap((m) => CONCURRENCY.map((c) => `${m}@${c}` as const))
    .filter((combo) => combo !== 'mcp-gen http stateless@1');
  log(`calls: ${reps} × ${n} calls × ${combos.join(', ')}`);
  const runs = await interleave(reps, combos, async (combo) => {
    const [mode, c] = combo.split('@') as [CallMode, string];
    const target = targets[mode] as Target;
    const upstreamPid = upstream.child.pid as number;
    const before = { client: process.cpuUsage(), server: target.pid ? cpuMs(target.pid) : 0, upstream: cpuMs(upstreamPid) };
    const result = await drive(n, Number(c), target.call);
    const clientCpu = process.cpuUsage(before.client);
    const cpu = {
      client: (clientCpu.user + clientCpu.system) / 1000 / n,
      server: target.pid ? (cpuMs(target.pid) - before.server) / n : 0,
      upstream: (cpuMs(upstreamPid) - before.upstream) / n,
    };
    return { ...result, cpu };
  });
  const cells: CallsResult['cells'] = {};
  for (const combo of combos) cells[combo] = summarize(runs[combo], n);
  const pingCalls = Math.round(n / 4);
  const pingTargets = { stdio: targets['mcp-gen stdio']?.ping, http: targets['mcp-gen http']?.ping };
  log(`calls: ${reps} × ${pingCalls} pings over stdio and Streamable HTTP`);
  const pingRuns = await interleave(reps, ['stdio', 'http'] as const, async (kind) => {
    const ping = pingTargets[kind];
    if (!ping) return NaN;
    return (await drive(pingCalls, 1, async () => (await ping(), true))).ms / pingCalls;
  });
  const pings = { calls: pingCalls, stdio: median(pingRuns.stdio), http: median(pingRuns.http) };
  log(`calls: CPU profile of the mcp-gen stdio server over ${options.quick ? 200 : 1000} sequential calls`);
  const serverProfile = await profileStdioServer(`${petstore}/dist/main.js`, upstream.url, mcpEnv, options.quick ? 200 : 1000);
  for (const target of Object.values(targets)) await target.close().catch(() => undefined);
  await http.stop();
  if (omgServer) await stopChild(omgServer);

  // Memory per open Streamable HTTP session: RSS growth of the server process while 100
  // clients hold a session each (fresh server each repetition).
  const sessions: SessionMemory[] = [];
  const wanted = options.quick ? 20 : 100;
  const memReps = options.quick ? 1 : 3;
  const github = await mcpGenProject('github');
  // `warm`: one session is opened and closed first, so that lazy start-up work is not
  // counted. Not for openapi-mcp-generator: its server can hold only one session (below).
  const memServers: {
    name: string;
    warm: boolean;
    start: () => Promise<{ url: string; pid: number; stop: () => Promise<void>; crash?: OmgHttp }>;
  }[] = [
    {
      name: 'mcp-gen petstore',
      warm: true,
      start: async () => {
        const s = await startServer(petstore, 'http', ['--base-url', upstream.url], mcpEnv);
        return { url: s.url, pid: s.process.pid as number, stop: s.stop };
      },
    },
    {
      name: 'mcp-gen github',
      warm: true,
      start: async () => {
        const s = await startServer(github, 'http', ['--base-url', upstream.url]);
        return { url: s.url, pid: s.process.pid as number, stop: s.stop };
      },
    },
    {
      name: 'omg petstore',
      warm: false,
      start: async () => {
        const s = await omgHttpServer(omgHttp, omgEnv);
        return { url: s.url, pid: s.child.pid as number, stop: () => stopChild(s.child), crash: s };
      },
    },
  ];
  for (const server of memServers) {
    log(`calls: memory of ${wanted} Streamable HTTP sessions, ${server.name}, ${memReps} ×`);
    const perSession: number[] = [];
    const bases: number[] = [];
    let opened = 0;
    let error: string | undefined;
    for (let rep = 0; rep < memReps; rep++) {
      const s = await server.start();
      const clients: Client[] = [];
      try {
        if (server.warm) await (await connect('http', s.url)).close();
        await sleep(300);
        const before = rssKb(s.pid);
        bases.push(before / 1024);
        for (let i = 0; i < wanted; i++) {
          try {
            clients.push(await connect('http', s.url));
          } catch (e) {
            const reason = s.crash ? (await withCrash(s.crash, e)).message : (e as Error).message.split('\n')[0];
            error ??= `session ${i + 1} of ${wanted} failed: ${reason}`;
            break;
          }
        }
        await sleep(500);
        opened = clients.length;
        const alive = existsSync(`/proc/${s.pid}/status`);
        if (clients.length > 0 && alive) perSession.push((rssKb(s.pid) - before) / clients.length);
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
        await s.stop();
      }
    }
    sessions.push({
      server: server.name,
      opened,
      wanted,
      kbPerSession: median(perSession),
      runs: perSession,
      baseRssMb: median(bases),
      ...(error ? { error } : {}),
    });
  }
  await upstream.stop();
  const serverUsesFetch = /\bfetch\(/.test(readFileSync(join(petstore, 'lib/runtime/call/executor.js'), 'utf8'));
  return { calls: n, reps, cells, unavailable, pings, serverUsesFetch, ...(serverProfile ? { serverProfile } : {}), sessions };
}
