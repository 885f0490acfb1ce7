// Server capacity over Streamable HTTP, measured the way an operator would: a lean load client
// (raw JSON-RPC over node:http with a keep-alive agent, no SDK client and its ~1 ms of CPU per
// call) sends `tools/call getPetById` to the generated Petstore server, one at a time and with
// 8 and 50 in flight — against the same requests sent straight to the upstream with the same
// node:http agent, in the same run. A call costs at least one inbound and one outbound HTTP
// exchange, so about 0.5× the direct rate is the ceiling.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { startNode, startServer } from '../harness/project.js';
import { cpuMs } from '../harness/process.js';
import { mcpGenProject, placeIn } from './lib/fixtures.js';
import { CAPACITY_CONCURRENCY, CAPACITY_MODES, type CapacityMode, type CapacityResult } from './lib/results.js';
import { startUpstream } from './lib/upstream.js';
import { drive, interleave, log, median, summarize } from './lib/util.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(agent: Agent, url: URL, method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // A server that stops answering must fail the call, not hang the run.
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.end(body);
  });
}

interface RpcMessage {
  id?: number | string;
  result?: { isError?: boolean; content?: { type: string; text?: string }[]; structuredContent?: unknown };
  error?: { message: string };
}

/** The JSON-RPC answer to request `id`, from an `application/json` body or from the `data:` lines of an SSE stream. */
function answerTo(answer: Answer, id: number | string): RpcMessage | undefined {
  const type = String(answer.headers['content-type'] ?? '');
  const messages: unknown[] = [];
  if (type.startsWith('application/json')) {
    const parsed = JSON.parse(answer.body) as unknown;
    messages.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  } else if (type.startsWith('text/event-stream')) {
    // Events are separated by a blank line; an event's data may span several `data:` lines.
    for (const event of answer.body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) messages.push(JSON.parse(data));
    }
  }
  return (messages as RpcMessage[]).find((m) => m.id === id);
}

/** A call is right only when its result carries the upstream's pet and is not an error. */
const isPet = (message: RpcMessage | undefined) =>
  !!message?.result &&
  !message.result.isError &&
  (message.result.content ?? []).some((c) => c.type === 'text' && (c.text ?? '').includes('doggie'));

const CLIENT_INFO = { name: 'mcp-gen-bench-lean', version: '1.0.0' };
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

interface Caller {
  /** One call; true when it returned the pet. */
  call: () => Promise<boolean>;
  /** Content types of the answers, counted. */
  contentTypes: Record<string, number>;
  /** The process to charge server CPU to (none for direct). */
  pid?: number;
}

/** Sends `tools/call getPetById {petId: 1}` with the given headers (and extra params), counting the answers' content types. */
function toolCaller(
  agent: Agent,
  endpoint: URL,
  pid: number,
  headers: Record<string, string>,
  extra: Record<string, unknown> = {},
): Caller {
  let nextId = 1;
  const contentTypes: Record<string, number> = {};
  return {
    pid,
    contentTypes,
    call: async () => {
      const id = nextId++;
      const params = { name: 'getPetById', arguments: { petId: 1 }, ...extra };
      const answer = await send(agent, endpoint, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }));
      countType(contentTypes, answer);
      return answer.status === 200 && isPet(answerTo(answer, id));
    },
  };
}

const countType = (counts: Record<string, number>, answer: Answer) => {
  const type = String(answer.headers['content-type'] ?? `HTTP ${answer.status}`).split(';')[0] as string;
  counts[type] = (counts[type] ?? 0) + 1;
};

/** A 2025-era session (or, on a `--stateless` server, a 2025-style client that gets no session): `initialize`, `notifications/initialized`, then calls. */
async function legacyCaller(agent: Agent, endpoint: URL, pid: number): Promise<Caller> {
  const base = { accept: ACCEPT, 'content-type': 'application/json' };
  const init = await send(
    agent,
    endpoint,
    'POST',
    base,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    }),
  );
  if (init.status !== 200 || !answerTo(init, 0)?.result) throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 200)}`);
  const session = init.headers['mcp-session-id'];
  const headers: Record<string, string> = {
    ...base,
    'mcp-protocol-version': LEGACY_VERSION,
    ...(typeof session === 'string' ? { 'mcp-session-id': session } : {}),
  };
  const ack = await send(agent, endpoint, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  if (ack.status !== 202) throw new Error(`notifications/initialized answered ${ack.status}`);
  return toolCaller(agent, endpoint, pid, headers);
}

/** The 2026-07-28 protocol: no initialize; every request carries the version, the method and name headers and the client's `_meta`, as the v2 SDK client sends them. */
function modernCaller(agent: Agent, endpoint: URL, pid: number): Caller {
  const headers = {
    accept: ACCEPT,
    'content-type': 'application/json',
    'mcp-method': 'tools/call',
    'mcp-name': 'getPetById',
    'mcp-protocol-version': MODERN_VERSION,
  };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return toolCaller(agent, endpoint, pid, headers, { _meta: meta });
}

function directCaller(agent: Agent, upstream: string): Caller {
  const url = new URL('/pet/1', upstream);
  const contentTypes: Record<string, number> = {};
  return {
    contentTypes,
    call: async () => {
      const answer = await send(agent, url, 'GET', { accept: 'application/json' });
      countType(contentTypes, answer);
      return answer.status === 200 && (JSON.parse(answer.body) as { name?: string }).name === 'doggie';
    },
  };
}

export async function runCapacity(options: { quick: boolean }): Promise<CapacityResult> {
  const n = options.quick ? 300 : 2000;
  const reps = options.quick ? 1 : 3;
  const upstream = await startUpstream();
  const petstore = await mcpGenProject('petstore');
  const env = { SWAGGER_PETSTORE_API_KEY: 'bench' };
  const stateful = await startServer(petstore, 'http', ['--base-url', upstream.url], env);
  const stateless = await startServer(petstore, 'http', ['--base-url', upstream.url, '--stateless'], env);
  // The floor: the SDK's own session transport with JSON answers and one tool that only GETs the upstream.
  const floor = await startNode([placeIn(petstore, 'floor-server.mjs'), '--http', '0'], petstore, { UPSTREAM_URL: upstream.url });
  // One keep-alive agent per mode, so that no mode reuses (or waits for) another's sockets.
  const agents: Agent[] = [];
  const agent = () => {
    const a = new Agent({ keepAlive: true, maxSockets: 64 });
    agents.push(a);
    return a;
  };
  const callers: Partial<Record<CapacityMode, Caller>> = {};
  const unavailable: CapacityResult['unavailable'] = {};
  const open = async (mode: CapacityMode, make: () => Promise<Caller> | Caller) => {
    try {
      const caller = await make();
      // Warm-up (JIT, validators compiled on first use, sockets); also checks the answer.
      for (let i = 0; i < 100; i++) if (!(await caller.call())) throw new Error('the call did not return the upstream pet');
      await drive(100, 8, caller.call);
      for (const k of Object.keys(caller.contentTypes)) delete caller.contentTypes[k];
      callers[mode] = caller;
    } catch (error) {
      unavailable[mode] = (error as Error).message.split('\n')[0];
    }
  };
  await open('direct', () => directCaller(agent(), upstream.url));
  await open('floor', () => legacyCaller(agent(), new URL('/mcp', floor.url), floor.process.pid as number));
  await open('stateful', () => legacyCaller(agent(), new URL('/mcp', stateful.url), stateful.process.pid as number));
  await open('stateless', () => legacyCaller(agent(), new URL('/mcp', stateless.url), stateless.process.pid as number));
  await open('2026-07-28', () => modernCaller(agent(), new URL('/mcp', stateful.url), stateful.process.pid as number));

  const combos = CAPACITY_MODES.filter((m) => callers[m]).flatMap((m) => CAPACITY_CONCURRENCY.map((c) => `${m}@${c}` as const));
  log(`capacity: ${reps} × ${n} calls × ${combos.join(', ')}`);
  const upstreamPid = upstream.child.pid as number;
  const runs = await interleave(reps, combos, async (combo) => {
    const [mode, c] = combo.split('@') as [CapacityMode, string];
    const caller = callers[mode] as Caller;
    const counted = await upstream.counts();
    const before = { client: process.cpuUsage(), server: caller.pid ? cpuMs(caller.pid) : 0, upstream: cpuMs(upstreamPid) };
    const result = await drive(n, Number(c), caller.call);
    const client = process.cpuUsage(before.client);
    const after = await upstream.counts();
    return {
      ...result,
      upstreamRequests: after.served - counted.served,
      upstreamConnections: after.connections - counted.connections,
      cpu: {
        client: (client.user + client.system) / 1000 / n,
        server: caller.pid ? (cpuMs(caller.pid) - before.server) / n : NaN,
        upstream: (cpuMs(upstreamPid) - before.upstream) / n,
      },
    };
  });
  const cells: CapacityResult['cells'] = {};
  for (const combo of combos) {
    const list = runs[combo];
    cells[combo] = {
      ...summarize(list, n),
      upstreamRequests: median(list.map((r) => r.upstreamRequests)),
      upstreamConnections: median(list.map((r) => r.upstreamConnections)),
    };
  }
  const contentTypes = Object.fromEntries(
    Object.entries(callers).map(([mode, caller]) => [mode, caller.contentTypes]),
  ) as CapacityResult['contentTypes'];
  for (const a of agents) a.destroy();
  await stateful.stop();
  await stateless.stop();
  await floor.stop();
  await upstream.stop();
  return { calls: n, reps, cells, contentTypes, unavailable };
}
