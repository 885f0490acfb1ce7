// Streaming answers through the official SDK v2 client, over stdio and Streamable HTTP (2025-11-25
// sessions and 2026-07-28 stateless requests), against a real local upstream that streams: a
// chat-completions-shaped SSE answer ending with [DONE] (and left open after it), a JSON Lines
// export of 10,000 records, and an event stream that never ends. Each: progress while it is read,
// a result valid against the listed outputSchema and within --max-answer-bytes; the endless one
// ended by --stream-time-ms; a cancel closing the upstream connection within a second, as the
// upstream measures it. The same as a task: past --timeout up to the stream's own limits, its
// progress as the task's status message (tasks/get, 2025-11-25's notifications/tasks/status), and
// a cancelled task closing the upstream connection within a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome, toolDeclarationFromMcpTool } from '@modelcontextprotocol/ext-tasks/client';
import { buildProject, connect, generateProject, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Answer, type Recorded, type Upstream } from '../harness/upstream.js';
import { rawDispatch } from '../harness/task-requests.js';

const SPEC = `openapi: 3.1.0
info: { title: Streams, version: '1.0' }
servers: [{ url: 'https://streams.example.com' }]
paths:
  /chat/completions:
    post:
      operationId: createChatCompletion
      summary: Complete a chat
      requestBody:
        content: { application/json: { schema: { type: object, properties: { prompt: { type: string }, stream: { type: boolean } } } } }
      responses:
        '200':
          description: the completion, whole or in chunks as the request's stream asks
          content:
            application/json: { schema: { type: object, properties: { id: { type: string }, text: { type: string } } } }
            text/event-stream: { schema: { type: string } }
  /export:
    get:
      operationId: exportRecords
      summary: Export every record
      responses:
        '200': { description: one record per line, content: { application/jsonl: { schema: { type: string } } } }
  /dump:
    get:
      operationId: dumpEverything
      summary: Dump every record there is
      responses:
        '200': { description: one record per line, content: { application/x-ndjson: { schema: { type: string } } } }
  /messages:
    post:
      operationId: createMessage
      summary: Create a message, streamed as Anthropic does
      responses:
        '200':
          description: the message's events, the last one message_stop
          content:
            text/event-stream:
              schema: { type: string }
              x-mcp-stream-end: { event: message_stop }
  /jobs/log:
    get:
      operationId: followJobLog
      summary: Follow a job's log until it finishes
      responses:
        '200': { description: one log record per line, content: { application/jsonl: { schema: { type: string } } } }
  /live:
    get:
      operationId: followLive
      summary: Follow the live feed
      responses:
        '200': { description: events without end, content: { text/event-stream: { schema: { type: string } } } }
`;

/** OpenAPI 3.2: each item described by an itemSchema, an event's data by its contentSchema (OAS 3.2 §4.14.4.2). */
const SPEC_32 = `openapi: 3.2.0
info: { title: Streams 3.2, version: '1.0' }
servers: [{ url: 'https://streams.example.com' }]
components:
  schemas:
    Adoption:
      type: object
      required: [petId]
      properties: { petId: { type: integer }, adopter: { type: string } }
paths:
  /adoptions:
    get:
      operationId: followAdoptions
      responses:
        '200':
          description: one adoption per line
          content:
            application/jsonl:
              itemSchema: { $ref: '#/components/schemas/Adoption' }
  /completions:
    post:
      operationId: complete
      responses:
        '200':
          description: the completion's chunks
          content:
            text/event-stream:
              itemSchema:
                type: object
                required: [data]
                properties:
                  event: { type: string }
                  data:
                    type: string
                    contentMediaType: application/json
                    contentSchema: { type: object, required: [delta], properties: { delta: { type: string } } }
`;

const STREAM_TIME_MS = 1_500;
const MAX_ANSWER_BYTES = 65_536;
const WORDS = ['Hel', 'lo', ', ', 'wor', 'ld'];
const RECORDS = 10_000;
const DUMP_PIECES = 100;

let upstream: Upstream;
let dir: string;
let http: RunningServer;
const clients: Client[] = [];
const children = new Children();
/** When the upstream saw each live feed's connection closed, by request order. */
const liveClosed: Promise<number>[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

async function* chat(): AsyncGenerator<string> {
  yield ': the model is thinking\n\n';
  for (const word of WORDS) {
    await sleep(250);
    yield `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: word } }] })}\n\n`;
  }
  yield 'data: [DONE]\n\n';
  // Left open after [DONE], as a careless proxy may: the terminal event must end the reading.
  await sleep(20_000);
}

async function* exported(): AsyncGenerator<string> {
  for (let start = 0; start < RECORDS; start += 500) {
    let lines = '';
    for (let id = start; id < start + 500; id++) lines += JSON.stringify({ id, name: `record-${id}`, payload: 'x'.repeat(40) }) + '\n';
    yield lines;
    await sleep(5);
  }
}

/** About 100 MB of JSON Lines in pieces of 1 MB, a malformed line in each, cut in the middle of its last record. */
async function* dump(): AsyncGenerator<string> {
  const filler = 'z'.repeat(70);
  for (let piece = 0; piece < DUMP_PIECES; piece++) {
    const lines: string[] = [];
    for (let n = 0; n < 10_000; n++) lines.push(`{"id":${piece * 10_000 + n},"fill":"${filler}"}`);
    lines[5_000] = 'this line is not JSON';
    yield lines.join('\n') + '\n';
  }
  yield '{"id":-1,"fill":"the stream is cut he';
}

async function* live(connection: { closed: Promise<void> }): AsyncGenerator<string> {
  let open = true;
  void connection.closed.then(() => (open = false));
  for (let n = 0; open; n++) {
    yield `event: tick\nid: ${n}\ndata: {"n":${n}}\n\n`;
    await sleep(100);
  }
}

/** Anthropic's Messages stream: named events, the last `message_stop`; left open after it. */
async function* message(): AsyncGenerator<string> {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  yield event('message_start', { message: { id: 'msg_1', role: 'assistant' } });
  for (const text of WORDS) {
    await sleep(50);
    yield event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  }
  yield event('message_stop', {});
  await sleep(20_000);
}

/** A job's log: its lines, then the record saying it finished, which only a hook knows ends it; left open after it. */
async function* jobLog(): AsyncGenerator<string> {
  for (const line of ['starting', 'working']) yield JSON.stringify({ status: 'running', line }) + '\n';
  yield JSON.stringify({ status: 'finished' }) + '\n';
  await sleep(20_000);
}

function respond(req: Recorded): Answer {
  if (req.method === 'POST' && req.path === '/chat/completions') {
    // As chat APIs do: one JSON answer unless the request asks for a stream.
    if ((JSON.parse(req.body.toString()) as { stream?: boolean }).stream === false)
      return { body: JSON.stringify({ id: 'c1', text: 'Hello, world' }) };
    return { headers: SSE, stream: chat };
  }
  if (req.path === '/export') return { headers: { 'content-type': 'application/jsonl' }, stream: exported };
  if (req.path === '/adoptions') {
    const lines = [1, 2, 3].map((petId) => JSON.stringify({ petId, adopter: `adopter-${petId}` }) + '\n');
    // One record off the itemSchema (petId is an integer there): set aside, not the whole answer failed.
    lines.splice(1, 0, JSON.stringify({ petId: 'four' }) + '\n');
    return { headers: { 'content-type': 'application/jsonl' }, body: lines.join('') };
  }
  if (req.path === '/completions') {
    return {
      headers: SSE,
      body: ['Hi', ' there'].map((delta) => `event: chunk\ndata: ${JSON.stringify({ delta })}\n\n`).join('') + 'data: [DONE]\n\n',
    };
  }
  if (req.path === '/messages') return { headers: SSE, stream: message };
  if (req.path === '/jobs/log') return { headers: { 'content-type': 'application/jsonl' }, stream: jobLog };
  if (req.path === '/dump') return { headers: { 'content-type': 'application/x-ndjson' }, stream: dump };
  if (req.path === '/live') {
    return {
      headers: SSE,
      stream: (connection) => {
        liveClosed.push(connection.closed.then(() => Date.now()));
        return live(connection);
      },
    };
  }
  return { status: 404, body: JSON.stringify({ error: `no ${req.method} ${req.path}` }) };
}

beforeAll(async () => {
  upstream = await startUpstream(respond);
  mkdirSync(TMP, { recursive: true });
  const spec = join(TMP, 'streaming.yaml');
  writeFileSync(spec, SPEC);
  dir = generateProject(spec, 'e2e-streaming');
  writeFileSync(
    join(dir, 'src/hooks.ts'),
    `import type { Hooks } from '../lib/runtime/hooks-api.js';
export const hooks: Hooks = {
  tools: { followJobLog: { endsStream: (item) => (item as { status?: string }).status === 'finished' } },
};
`,
  );
  await buildProject(dir);
  http = await startServer(dir, 'http', serverArgs());
  children.track(http.process);
}, 300_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await children.stopAll();
  await upstream?.close();
});

const serverArgs = () => ['--base-url', upstream.url, '--stream-time-ms', String(STREAM_TIME_MS)];

type Kind = 'stdio' | 'http 2025' | 'http 2026';
const KINDS: Kind[] = ['stdio', 'http 2025', 'http 2026'];

/** A client of the shared servers, or with `args` of a stdio server and `server` the HTTP one started with them. */
async function client(kind: Kind, args = serverArgs(), server = http): Promise<Client> {
  const made =
    kind === 'stdio'
      ? await connect('stdio', dir, { args })
      : await connect('http', server.url, kind === 'http 2026' ? { negotiate: true } : {});
  clients.push(made);
  return made;
}

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (result: Result) => (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

/** The result's structuredContent, checked against the outputSchema tools/list gave the tool. */
async function validStructure(c: Client, name: string, result: Result): Promise<Record<string, unknown>> {
  const { tools } = await c.listTools();
  const schema = tools.find((t) => t.name === name)?.outputSchema;
  expect(schema, `${name} lists an outputSchema`).toBeDefined();
  const validate = new Ajv2020({ strict: false }).compile(schema as object);
  expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

describe.each(KINDS)('over %s', (kind) => {
  it('a chat completion streamed as events: progress as the chunks come, the chunks as items, ended by [DONE]', async () => {
    const c = await client(kind);
    const progress: { progress: number; message?: string }[] = [];
    const started = Date.now();
    const result = await c.callTool(
      { name: 'createChatCompletion', arguments: { body: { prompt: 'Say hello' } } },
      { onprogress: (p) => void progress.push(p), timeout: 30_000 },
    );
    expect(result.isError ?? false, text(result)).toBe(false);
    // [DONE] ended it, not the upstream (which keeps the connection open) nor --stream-time-ms.
    expect(Date.now() - started).toBeLessThan(STREAM_TIME_MS + 1_000);
    const structured = await validStructure(c, 'createChatCompletion', result);
    expect(structured.ended).toBe('terminal');
    const items = structured.items as { data: { choices: { delta: { content: string } }[] } }[];
    expect(items.map((item) => item.data.choices[0]?.delta.content).join('')).toBe('Hello, world');
    // One report per chunk while the chunks come 250 ms apart; the server tells at most one per
    // 200 ms (streamed-answer.ts), so on a loaded machine two chunks read close together give one.
    const told = progress.map((p) => p.progress);
    expect(told[0]).toBe(1);
    expect(told.every((n, i) => i === 0 || n > (told[i - 1] as number))).toBe(true);
    expect(told.length).toBeGreaterThanOrEqual(3);
    expect(told.at(-1)).toBeLessThanOrEqual(WORDS.length);
    expect(progress[0]?.message).toBe('createChatCompletion: 1 item so far, the latest: "Hel"');
  }, 60_000);

  /** A call of `name` ended by a terminal mark, well before --stream-time-ms though the upstream keeps it open: its valid result. */
  async function endedEarly(name: string): Promise<Record<string, unknown>> {
    const c = await client(kind);
    const started = Date.now();
    const result = await c.callTool({ name, arguments: {} }, { timeout: 30_000 });
    expect(result.isError ?? false, text(result)).toBe(false);
    expect(Date.now() - started).toBeLessThan(STREAM_TIME_MS);
    const structured = await validStructure(c, name, result);
    expect(structured.ended).toBe('terminal');
    return structured;
  }

  it('an Anthropic-style stream ends at the event the spec names (x-mcp-stream-end: message_stop)', async () => {
    const items = (await endedEarly('createMessage')).items as { event: string; data: { delta?: { text: string } } }[];
    expect(items.map((item) => item.event)).toEqual(['message_start', ...WORDS.map(() => 'content_block_delta')]);
    expect(items.map((item) => item.data.delta?.text ?? '').join('')).toBe('Hello, world');
  }, 60_000);

  it("a JSON Lines stream ends at the record the user's endsStream hook names", async () => {
    const items = (await endedEarly('followJobLog')).items;
    expect(items).toEqual([
      { status: 'running', line: 'starting' },
      { status: 'running', line: 'working' },
    ]);
  }, 60_000);

  it('the same tool answered with one JSON value (stream: false): that value, valid against the listed schema', async () => {
    const c = await client(kind);
    const result = await c.callTool({ name: 'createChatCompletion', arguments: { body: { prompt: 'Say hello', stream: false } } });
    expect(result.isError ?? false, text(result)).toBe(false);
    expect(await validStructure(c, 'createChatCompletion', result)).toEqual({ id: 'c1', text: 'Hello, world' });
  }, 60_000);

  it('a JSON Lines export of 10,000 records: read to its end, whole records within the budget, the rest counted', async () => {
    const c = await client(kind);
    const progress: number[] = [];
    const result = await c.callTool(
      { name: 'exportRecords', arguments: {} },
      { onprogress: (p) => void progress.push(p.progress), timeout: 30_000 },
    );
    expect(result.isError ?? false, text(result)).toBe(false);
    const structured = await validStructure(c, 'exportRecords', result);
    const items = structured.items as { id: number }[];
    expect(structured.ended).toBe('end');
    expect(items.length).toBeGreaterThan(100);
    expect(items.map((item) => item.id)).toEqual(items.map((_, index) => index));
    expect(items.length + (structured.omitted as number)).toBe(RECORDS);
    expect(structured.note).toMatch(new RegExp(`^${RECORDS - items.length} of ${RECORDS} records read were left out`));
    expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toBe(1);
  }, 60_000);

  it('a stream that never ends: ended by --stream-time-ms with the items so far, and its connection closed', async () => {
    const c = await client(kind);
    const progress: number[] = [];
    const index = liveClosed.length;
    const started = Date.now();
    const result = await c.callTool(
      { name: 'followLive', arguments: {} },
      { onprogress: (p) => void progress.push(p.progress), timeout: 30_000 },
    );
    const answeredAt = Date.now();
    expect(result.isError ?? false, text(result)).toBe(false);
    expect(answeredAt - started).toBeGreaterThanOrEqual(STREAM_TIME_MS);
    expect(answeredAt - started).toBeLessThan(STREAM_TIME_MS + 2_000);
    const structured = await validStructure(c, 'followLive', result);
    expect(structured.ended).toBe('time');
    expect((structured.items as unknown[]).length).toBeGreaterThan(5);
    expect(structured.items).toContainEqual({ data: { n: 0 }, event: 'tick', id: '0' });
    expect(progress.length).toBeGreaterThan(1);
    const closedAt = await liveClosed[index];
    expect((closedAt ?? Infinity) - answeredAt).toBeLessThan(1_000);
  }, 60_000);

  it('a cancel closes the upstream connection within a second, measured at the upstream', async () => {
    const c = await client(kind);
    const index = liveClosed.length;
    const controller = new AbortController();
    let cancelledAt = 0;
    const call = c.callTool(
      { name: 'followLive', arguments: {} },
      {
        signal: controller.signal,
        timeout: 30_000,
        onprogress: (p) => {
          if (p.progress >= 3 && cancelledAt === 0) {
            cancelledAt = Date.now();
            controller.abort();
          }
        },
      },
    );
    await expect(call).rejects.toThrow();
    const closedAt = await Promise.race([liveClosed[index], sleep(5_000).then(() => Infinity)]);
    expect(cancelledAt).toBeGreaterThan(0);
    expect((closedAt ?? Infinity) - cancelledAt).toBeLessThan(1_000);
  }, 60_000);
});

/** A process's resident memory now, and its peak so far (VmRSS, VmHWM), in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

describe('a 100 MB stream, with malformed records and cut mid-record', () => {
  it('is read to its end in bounded memory: the peak grows far less than the stream', async () => {
    const big = await startServer(dir, 'http', [
      '--base-url',
      upstream.url,
      '--stream-time-ms',
      '60000',
      '--stream-max-items',
      '100000000',
      '--timeout',
      '120000',
    ]);
    children.track(big.process);
    const pid = big.process.pid ?? 0;
    const c = await connect('http', big.url, { negotiate: true });
    clients.push(c);
    await c.listTools();
    const before = memoryOf(pid);
    const result = await c.callTool({ name: 'dumpEverything', arguments: {} }, { timeout: 120_000 });
    const after = memoryOf(pid);
    expect(result.isError ?? false, text(result)).toBe(false);
    const structured = await validStructure(c, 'dumpEverything', result);
    const items = structured.items as { id: number }[];
    const malformed = structured.malformed as unknown[];
    expect(structured.ended).toBe('end');
    // every record counted: 10,000 per piece (one of them malformed), and the one cut short
    expect(items.length + malformed.length + (structured.omitted as number)).toBe(DUMP_PIECES * 10_000 + 1);
    // the budget is full long before the first malformed line: it is counted with the rest
    expect(malformed).toEqual([]);
    expect(structured.note).toMatch(/^\d+ of 1000001 records read were left out/);
    expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    const growth = after.peak - Math.max(before.rss, 0);
    console.log(`100 MB stream: server RSS ${before.rss.toFixed(0)} MiB before, peak ${after.peak.toFixed(0)} MiB (+${growth.toFixed(0)})`);
    expect(growth).toBeLessThan(64);
  }, 180_000);
});

describe('an OpenAPI 3.2 spec: items as its itemSchema describes them', () => {
  let c: Client;

  beforeAll(async () => {
    const spec = join(TMP, 'streaming-3.2.yaml');
    writeFileSync(spec, SPEC_32);
    const dir32 = generateProject(spec, 'e2e-streaming-32');
    await buildProject(dir32);
    c = await connect('stdio', dir32, { args: serverArgs() });
    clients.push(c);
  }, 300_000);

  it("JSON Lines: each item is the itemSchema's, in the listed outputSchema and in the result", async () => {
    const { tools } = await c.listTools();
    const tool = tools.find((t) => t.name === 'followAdoptions');
    // the Adoption schema, in $defs or inlined as the client profile lists it
    expect(JSON.stringify(tool?.outputSchema)).toContain('"petId"');
    const result = await c.callTool({ name: 'followAdoptions', arguments: {} });
    expect(result.isError ?? false, text(result)).toBe(false);
    const structured = await validStructure(c, 'followAdoptions', result);
    expect(structured).toMatchObject({ items: [{ petId: 1 }, { petId: 2 }, { petId: 3 }], omitted: 0, ended: 'end' });
    expect(structured.malformed).toEqual([
      { at: 1, text: '{"petId":"four"}', note: expect.stringMatching(/^does not match the spec's item schema: .*petId/) as unknown },
    ]);
  }, 60_000);

  it("server-sent events: each event's data is its contentSchema's, parsed", async () => {
    const { tools } = await c.listTools();
    const data = (
      tools.find((t) => t.name === 'complete')?.outputSchema?.properties as Record<string, { items?: { properties?: { data?: object } } }>
    ).items?.items?.properties?.data;
    expect(data).toMatchObject({ properties: { delta: {} } });
    const result = await c.callTool({ name: 'complete', arguments: {} });
    expect(result.isError ?? false, text(result)).toBe(false);
    const structured = await validStructure(c, 'complete', result);
    expect(structured).toMatchObject({
      items: [
        { event: 'chunk', data: { delta: 'Hi' } },
        { event: 'chunk', data: { delta: ' there' } },
      ],
      ended: 'terminal',
    });
  }, 60_000);
});

describe('as a task (2025-11-25 Tasks over stdio and a session, the 2026-07-28 tasks extension), the ext-tasks client', () => {
  /** Shorter than the stream's own limit: a plain call ends at it, a task runs past it. */
  const TIMEOUT_MS = 1_000;
  const TASK_STREAM_MS = 2_500;
  const taskArgs = () => ['--base-url', upstream.url, '--timeout', String(TIMEOUT_MS), '--stream-time-ms', String(TASK_STREAM_MS)];
  let short: RunningServer;

  beforeAll(async () => {
    short = await startServer(dir, 'http', taskArgs());
    children.track(short.process);
  }, 60_000);

  const taskClient = (kind: Kind) => client(kind, taskArgs(), short);

  /** A task session on `c`: 2026-07-28's through the raw path the ext-tasks client takes, else 2025-11-25's with the tool's declaration. */
  async function taskSession(c: Client, kind: Kind, name: string) {
    const { tools } = await c.listTools();
    const listed = tools.find((t) => t.name === name);
    if (kind === 'http 2026') {
      const session = createTaskSessionFromClient(c, {
        endpointId: `e2e-stream-${name}-2026`,
        rawDispatch: rawDispatch(() => short.url),
        v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: { name: 'e2e', version: '1' }, clientCapabilities: {} },
      });
      return { session, options: {} };
    }
    // 2026-07-28 lists no execution: its client asks for a task in the request's capabilities.
    expect(listed?.execution?.taskSupport).toBe('optional');
    return {
      session: createTaskSessionFromClient(c, { endpointId: `e2e-stream-${name}-${kind}` }),
      options: { declaration: toolDeclarationFromMcpTool(listed as never) },
    };
  }

  describe.each(KINDS)('over %s', (kind) => {
    it('a plain call is held to --timeout; as a task the stream runs to --stream-time-ms and the result is the bounded items', async () => {
      const c = await taskClient(kind);
      const plain = await c.callTool({ name: 'followLive', arguments: {} }, { timeout: 30_000 });
      expect((plain.structuredContent as { ended?: string } | undefined)?.ended).toBe('timeout');
      const { session, options } = await taskSession(c, kind, 'followLive');
      try {
        const started = Date.now();
        const execution = await session.callTool('followLive', {}, { task: { preference: 'require' }, ...options });
        expect(execution.kind).toBe('task');
        const { outcome } = await execution.settle();
        const took = Date.now() - started;
        expect(outcome.status).toBe('completed');
        const result = resultFromTaskOutcome(outcome) as Result;
        expect(result.isError ?? false, text(result)).toBe(false);
        expect(took).toBeGreaterThanOrEqual(TASK_STREAM_MS);
        const structured = await validStructure(c, 'followLive', result);
        expect(structured.ended).toBe('time');
        expect((structured.items as unknown[]).length).toBeGreaterThan(TIMEOUT_MS / 100 + 5);
      } finally {
        await session.close();
      }
    }, 60_000);

    it('tasks/get while the stream is read says the items so far, growing; 2025-11-25 is told by notifications/tasks/status', async () => {
      const c = await taskClient(kind);
      const notified: { taskId: string; status: string; statusMessage?: string }[] = [];
      // Set before the session, which passes on to it what it does not take.
      c.fallbackNotificationHandler = async (n) => {
        if (n.method === 'notifications/tasks/status') notified.push(n.params as (typeof notified)[number]);
      };
      const { session, options } = await taskSession(c, kind, 'followLive');
      try {
        const execution = await session.callTool('followLive', {}, { task: { preference: 'require' }, ...options });
        if (execution.kind !== 'task') throw new Error(`followLive answered ${execution.kind}, not a task`);
        const task = session.task(execution.handle.taskId);
        const told: string[] = [];
        for (let view = await task.snapshot(); view.status === 'working'; view = await task.snapshot()) {
          if (view.statusMessage !== undefined && view.statusMessage !== told.at(-1)) told.push(view.statusMessage);
          await sleep(250);
        }
        const counts = told.map((message) => Number(/^followLive: (\d+) items? so far/.exec(message)?.[1]));
        expect(told.length, told.join(' | ')).toBeGreaterThanOrEqual(2);
        expect(counts.every((n) => n > 0) && counts.every((n, i) => i === 0 || n > (counts[i - 1] ?? 0)), told.join(' | ')).toBe(true);
        const { outcome } = await execution.settle();
        expect(outcome.status).toBe('completed');
        const result = resultFromTaskOutcome(outcome) as Result;
        expect((await validStructure(c, 'followLive', result)).ended).toBe('time');
        if (kind === 'http 2026') {
          // 2026-07-28's notifications/tasks go to a client that subscribed (subscriptions/listen), which this server does not serve.
          expect(notified).toEqual([]);
        } else {
          expect(notified.length).toBeGreaterThanOrEqual(2);
          expect(notified[0]).toMatchObject({ taskId: execution.handle.taskId, status: 'working' });
          expect(notified.at(-1)?.statusMessage).toMatch(/^followLive: \d+ items so far/);
        }
      } finally {
        await session.close();
      }
    }, 60_000);

    it('a cancelled task closes the upstream connection within a second, measured at the upstream', async () => {
      const c = await taskClient(kind);
      const { session, options } = await taskSession(c, kind, 'followLive');
      try {
        const index = liveClosed.length;
        const execution = await session.callTool('followLive', {}, { task: { preference: 'require' }, ...options });
        while (liveClosed.length === index) await sleep(20);
        await sleep(300);
        const cancelledAt = Date.now();
        await execution.cancel();
        const closedAt = await Promise.race([liveClosed[index], sleep(5_000).then(() => Infinity)]);
        expect((closedAt ?? Infinity) - cancelledAt).toBeLessThan(1_000);
      } finally {
        await session.close();
      }
    }, 60_000);
  });
});

describe('in code mode', () => {
  let c: Client;

  beforeAll(async () => {
    // room for the 10,000 records (about 700 KB): a program reads a stream whole, up to --max-response-bytes
    c = await client('stdio', [...serverArgs(), '--tools', 'code', '--max-response-bytes', '2000000']);
  }, 60_000);

  it("search_api declares a streaming operation's answer as its items", async () => {
    const found = await c.callTool({ name: 'search_api', arguments: { query: 'export every record' } });
    expect(text(found)).toContain('exportRecords(args: object): Promise<unknown[]>;');
  }, 60_000);

  const SUM = 'const records = await api.exportRecords({}); return { count: records.length, sum: records.reduce((s, r) => s + r.id, 0) };';

  it('a program gets the items of a JSON Lines stream, all 10,000 of them, and sums them', async () => {
    const result = await c.callTool({ name: 'execute', arguments: { code: SUM } }, { timeout: 30_000 });
    expect(result.isError ?? false, text(result)).toBe(false);
    expect((result.structuredContent as { result: unknown }).result).toEqual({ count: RECORDS, sum: (RECORDS * (RECORDS - 1)) / 2 });
  }, 60_000);

  it('a stream larger than --max-response-bytes makes the api call throw, saying so, rather than give part of it', async () => {
    const small = await client('stdio', [...serverArgs(), '--tools', 'code']);
    const result = await small.callTool({ name: 'execute', arguments: { code: SUM } }, { timeout: 30_000 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /api\.exportRecords: the stream held more than --max-response-bytes; \d+ items were read, \d+ more were left out/,
    );
  }, 60_000);
});
