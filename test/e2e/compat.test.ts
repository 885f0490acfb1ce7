// Old and new clients, every transport: the generated Petstore server must serve the official
// SDK v1 client pinned to each protocol revision it may meet in the field (2024-11-05,
// 2025-03-26, 2025-06-18, 2025-11-25) over stdio, Streamable HTTP (session and --stateless)
// and legacy HTTP+SSE, and the SDK v2 client both plain (2025-11-25) and negotiating
// 2026-07-28 (server/discover, no initialize). For each: the revision the server answered on
// the wire, tools/list, and a tools/call that reaches a recording upstream.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1StreamableHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport as V1Sse } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Client as V2Client } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, REPO, startServer, type ClientKind, type RunningServer } from '../../harness/project.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const SECRETS = { SWAGGER_PETSTORE_AUTH_TOKEN: 'tok-compat', SWAGGER_PETSTORE_API_KEY: 'key-compat' };
let dir: string;
let upstream: Upstream;
let serverArgs: string[];
let http: RunningServer;
let stateless: RunningServer;
let sse: RunningServer;
let expectedTools: string[];

beforeAll(async () => {
  // /v2/pet/<id> echoes the id, so that every case can ask for its own pet and see its own answer.
  upstream = await startUpstream((req) => {
    const id = /^\/v2\/pet\/(\d+)$/.exec(req.path)?.[1];
    if (req.method === 'GET' && id) return { body: JSON.stringify({ id: Number(id), name: `pet-${id}`, photoUrls: [] }) };
    return { status: 404, body: JSON.stringify({ code: 404, message: `unexpected ${req.method} ${req.path}` }) };
  });
  dir = generateProject(`${REPO}samples/petstore/openapi.json`, 'e2e-compat');
  await buildProject(dir);
  expectedTools = (JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as { tools: { name: string }[] }).tools
    .map((t) => t.name)
    .sort();
  serverArgs = ['--base-url', `${upstream.url}/v2`, '--log-level', 'warn'];
  [http, stateless, sse] = await Promise.all([
    startServer(dir, 'http', serverArgs, SECRETS),
    startServer(dir, 'http', [...serverArgs, '--stateless'], SECRETS),
    startServer(dir, 'sse', serverArgs, SECRETS),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([http?.stop(), stateless?.stop(), sse?.stop()]);
  await upstream?.close();
});

/**
 * The v1 client always offers LATEST_PROTOCOL_VERSION (2025-11-25) in `initialize` and has no
 * option to offer another. This wrapper sits between the client and its real transport: it
 * rewrites the outgoing `initialize` to offer the pinned revision (as an older client would)
 * and records the `protocolVersion` of the server's answer exactly as it came off the wire.
 * Everything else, including `setProtocolVersion` (the MCP-Protocol-Version header on HTTP),
 * goes through unchanged.
 */
class PinnedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** protocolVersion in the server's initialize result, as received. */
  answered: string | undefined;
  /** protocolVersion this transport actually sent in initialize. */
  offered: string | undefined;
  private initializeId: RequestId | undefined;

  constructor(
    readonly inner: Transport,
    private readonly revision: string,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if ('id' in message && message.id === this.initializeId && 'result' in message) {
        this.answered = (message.result as { protocolVersion?: string }).protocolVersion;
      }
      this.onmessage?.(message, extra);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      this.initializeId = message.id;
      this.offered = this.revision;
      message = { ...message, params: { ...message.params, protocolVersion: this.revision } };
    }
    return this.inner.send(message, options);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

type V1Kind = 'stdio' | 'http' | 'stateless' | 'sse';
const V1_TRANSPORTS: { kind: V1Kind; label: string }[] = [
  { kind: 'stdio', label: 'stdio' },
  { kind: 'http', label: 'Streamable HTTP (session)' },
  { kind: 'stateless', label: 'Streamable HTTP (--stateless)' },
  { kind: 'sse', label: 'legacy HTTP+SSE' },
];
const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

function v1Transport(kind: V1Kind): Transport {
  if (kind === 'stdio') {
    return new V1Stdio({
      command: 'node',
      args: [join(dir, 'dist/main.js'), ...serverArgs],
      env: { PATH: process.env.PATH ?? '', ...SECRETS },
      stderr: 'pipe',
    });
  }
  if (kind === 'sse') return new V1Sse(new URL(`${sse.url}/sse`));
  return new V1StreamableHttp(new URL(`${(kind === 'http' ? http : stateless).url}/mcp`));
}

/** A pet id per case, so that an answer that went to the wrong client would show. */
let nextPetId = 1000;

/** The same checks for any client: tools/list, then getPetById through to the upstream. */
function toolChecks(getClient: () => V1Client | V2Client) {
  it('tools/list returns the Petstore tools', async () => {
    const { tools } = await getClient().listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(expectedTools);
    expect(tools).toHaveLength(20);
    const getPet = tools.find((t) => t.name === 'getPetById');
    expect(getPet?.inputSchema.required).toEqual(['petId']);
    expect(getPet?.annotations?.readOnlyHint).toBe(true);
  });

  it('tools/call getPetById reaches the upstream (GET /v2/pet/{id}) and returns its body', async () => {
    const petId = nextPetId++;
    upstream.clear();
    const result = await getClient().callTool({ name: 'getPetById', arguments: { petId } });
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET /v2/pet/${petId}`]);
    expect(upstream.requests[0]?.headers.api_key).toBe('key-compat');
    expect(result.isError).toBeFalsy();
    const body = { id: petId, name: `pet-${petId}`, photoUrls: [] };
    expect(result.structuredContent).toEqual(body);
    expect((result.content as { type: string; text: string }[])[0]).toEqual({ type: 'text', text: JSON.stringify(body) });
  });
}

const V1_CASES = REVISIONS.flatMap((revision) =>
  V1_TRANSPORTS.map(({ kind, label }) => [`SDK v1 client pinned to ${revision} over ${label}`, revision, kind] as const),
);

describe.each(V1_CASES)('%s', (_title, revision, kind) => {
  let client: V1Client;
  let transport: PinnedTransport;
  beforeAll(async () => {
    client = new V1Client({ name: 'mcp-gen-compat-v1', version: '1.0.0' });
    transport = new PinnedTransport(v1Transport(kind), revision);
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it(`the server answers initialize with ${revision}`, () => {
    expect(transport.offered).toBe(revision);
    expect(transport.answered).toBe(revision);
    expect(client.getServerVersion()?.name).toBe('swagger-petstore-mcp');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  if (kind === 'http') {
    it('the session is kept (Mcp-Session-Id)', () => {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    });
  }
  if (kind === 'stateless') {
    it('no session is opened', () => {
      expect(transport.sessionId).toBeUndefined();
    });
  }

  toolChecks(() => client);
});

interface V2Case {
  name: string;
  kind: ClientKind;
  negotiate: boolean;
  version: string;
  era: 'modern' | 'legacy';
}
const V2_CASES: V2Case[] = [
  { name: 'negotiating (auto) over Streamable HTTP: 2026-07-28', kind: 'http', negotiate: true, version: '2026-07-28', era: 'modern' },
  { name: 'negotiating (auto) over stdio: 2026-07-28', kind: 'stdio', negotiate: true, version: '2026-07-28', era: 'modern' },
  {
    name: 'negotiating (auto) over legacy HTTP+SSE: falls back to 2025-11-25',
    kind: 'sse',
    negotiate: true,
    version: '2025-11-25',
    era: 'legacy',
  },
  { name: 'plain over Streamable HTTP: 2025-11-25', kind: 'http', negotiate: false, version: '2025-11-25', era: 'legacy' },
  { name: 'plain over stdio: 2025-11-25', kind: 'stdio', negotiate: false, version: '2025-11-25', era: 'legacy' },
  { name: 'plain over legacy HTTP+SSE: 2025-11-25', kind: 'sse', negotiate: false, version: '2025-11-25', era: 'legacy' },
];

describe.each(V2_CASES.map((c) => [`SDK v2 client, ${c.name}`, c] as const))('%s', (_title, { kind, negotiate, version, era }) => {
  let client: V2Client;
  beforeAll(async () => {
    const target = kind === 'stdio' ? dir : kind === 'http' ? http.url : sse.url;
    client = await connect(kind, target, { negotiate, env: SECRETS, args: serverArgs });
  });
  afterAll(async () => {
    await client?.close();
  });

  it(`negotiates ${version}`, () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    // 'modern' means the era was settled by server/discover, without an initialize handshake
    expect(client.getProtocolEra()).toBe(era);
  });

  if (kind === 'http') {
    it(era === 'modern' ? 'stateless: no session is opened' : 'a session is opened (Mcp-Session-Id)', () => {
      const sessionId = client.transport?.sessionId;
      if (era === 'modern') expect(sessionId).toBeUndefined();
      else expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    });
  }

  toolChecks(() => client);
});
