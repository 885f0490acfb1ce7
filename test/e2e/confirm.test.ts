// Confirmations (--confirm, an operation's own `confirm`): a generated server asks the official
// SDK client, by form elicitation, before a call that needs the user's yes, on both protocol
// eras (input-required for 2026-07-28; elicitation/create for 2025-11-25 over stdio, a Streamable
// HTTP session and legacy HTTP+SSE), and the recording upstream shows that nothing is sent
// unless the user accepts. A client that cannot be asked gets a tool error; invoke_operation asks
// as a tool call does; a code-mode program asks on a 2025 session and otherwise stops with an
// error; the question never shows the API key.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Client, ElicitResult } from '@modelcontextprotocol/client';
import { buildProject, connect, generateProject, startServer, TMP, type RunningServer } from '../../harness/project.js';
import { Children } from '../harness/children.js';
import { startUpstream, type Upstream } from '../harness/upstream.js';

const ok = { '200': { description: 'ok' } };
const petId = { name: 'petId', in: 'path', required: true, schema: { type: 'integer' } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Pet Shop', version: '1.0.0' },
  servers: [{ url: 'https://shop.example/v1' }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  security: [{ key: [] }],
  paths: {
    '/pets': {
      get: { operationId: 'listPets', parameters: [{ name: 'status', in: 'query', schema: { type: 'string' } }], responses: ok },
      post: {
        operationId: 'createPet',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', properties: { name: { type: 'string' }, note: { type: 'string' } } } },
          },
        },
        responses: ok,
      },
    },
    '/pets/{petId}': {
      delete: {
        operationId: 'deletePet',
        parameters: [petId, { name: 'reason', in: 'query', schema: { type: 'string' } }],
        responses: { '204': { description: 'gone' } },
      },
    },
    '/pets/{petId}/photos/{photoId}': {
      delete: {
        operationId: 'deletePhoto',
        'x-mcp': { confirm: false },
        parameters: [petId, { name: 'photoId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'gone' } },
      },
    },
    '/export': { get: { operationId: 'exportAll', 'x-mcp': { confirm: true }, responses: ok } },
  },
};
/** The API key the server holds: never in a question. */
const KEY = `key-${randomBytes(12).toString('hex')}`;
const ENV = { PET_SHOP_KEY: KEY };

/** The recording API, the generated project, and its server over HTTP with sessions and --stateless. */
let upstream: Upstream, dir: string, http: RunningServer, stateless: RunningServer;
const clients: Client[] = [];
const children = new Children();

beforeAll(async () => {
  upstream = await startUpstream((req) => ({
    status: req.method === 'DELETE' ? 204 : 200,
    body: req.method === 'DELETE' ? '' : '{"ok":true}',
  }));
  mkdirSync(TMP, { recursive: true });
  const spec = join(TMP, `confirm-spec-${process.pid}.json`);
  writeFileSync(spec, JSON.stringify(SPEC));
  dir = generateProject(spec, 'e2e-confirm', ['--resources', 'get']);
  await buildProject(dir);
  const args = ['--base-url', upstream.url, '--confirm', 'destructive'];
  http = await startServer(dir, 'http+sse', args, ENV);
  children.track(http.process);
  stateless = await startServer(dir, 'http', [...args, '--stateless'], ENV);
  children.track(stateless.process);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await children.stopAll();
  await upstream?.close();
});

beforeEach(() => upstream.clear());

type Answer = 'accept' | 'decline' | 'cancel';
/** stdio; Streamable HTTP with sessions for 2025 clients, or under --stateless; legacy HTTP+SSE beside it. */
type Where = 'stdio' | 'http' | 'stateless' | 'sse';

/** An SDK client; with `answer`, it takes form elicitation, answers so and keeps each question's message in `asked`. */
async function client(
  where: Where,
  options: { negotiate?: boolean; answer?: Answer; asked?: string[]; confirm?: string; tools?: string } = {},
): Promise<Client> {
  const { answer, asked } = options;
  const elicit =
    answer === undefined
      ? undefined
      : async (params: { message: string }): Promise<ElicitResult> => {
          asked?.push(params.message);
          return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
        };
  const common = { ...(options.negotiate ? { negotiate: true } : {}), ...(elicit ? { elicit } : {}) };
  const made =
    where === 'stdio'
      ? await connect('stdio', dir, {
          ...common,
          env: ENV,
          args: [
            '--base-url',
            upstream.url,
            '--confirm',
            options.confirm ?? 'destructive',
            ...(options.tools ? ['--tools', options.tools] : []),
          ],
        })
      : where === 'sse'
        ? await connect('sse', http.url, common)
        : await connect('http', (where === 'http' ? http : stateless).url, common);
  clients.push(made);
  return made;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const deletePet = (c: Client) => c.callTool({ name: 'deletePet', arguments: { petId: 42, reason: `sold, key ${KEY}` } });

const ERAS: [string, Where, boolean][] = [
  ['stdio, 2025-11-25 (elicitation/create)', 'stdio', false],
  ['Streamable HTTP, 2026-07-28 (input-required)', 'http', true],
  ['Streamable HTTP, a 2025-11-25 session (elicitation/create)', 'http', false],
  ['legacy HTTP+SSE (elicitation/create)', 'sse', false],
];

describe('--confirm destructive, with a client that takes form elicitation', () => {
  it.each(ERAS)('%s: asked with the request and no secret; accepted, the DELETE is sent once', async (_label, where, negotiate) => {
    const asked: string[] = [];
    const c = await client(where, { negotiate, answer: 'accept', asked });
    const result = await deletePet(c);
    expect(result.isError, text(result)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('deletePet would send this request to the API:\nDELETE /pets/42?reason=sold, key ***');
    expect(asked[0]).not.toContain(KEY);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /pets/42']);
    expect(upstream.requests[0]?.headers['x-api-key']).toBe(KEY);
  });

  it.each(
    ERAS.flatMap(([label, where, negotiate]) =>
      (['decline', 'cancel'] as const).map((answer) => [`${label}, ${answer}`, where, negotiate, answer] as const),
    ),
  )('%s: nothing is sent and the answer says so', async (_label, where, negotiate, answer) => {
    const asked: string[] = [];
    const c = await client(where, { negotiate, answer, asked });
    const result = await deletePet(c);
    expect(asked).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      answer === 'decline' ? /^The user declined: deletePet was not called and nothing was sent/ : /^The user dismissed the question/,
    );
    expect(text(result)).not.toContain(KEY);
    expect(upstream.requests).toEqual([]);
  });

  it('a GET and a DELETE marked confirm: false go without a question; a GET marked confirm: true asks', async () => {
    const asked: string[] = [];
    const c = await client('stdio', { answer: 'decline', asked });
    expect((await c.callTool({ name: 'listPets', arguments: { status: 'sold' } })).isError).toBeFalsy();
    expect((await c.callTool({ name: 'deletePhoto', arguments: { petId: 1, photoId: 'p9' } })).isError).toBeFalsy();
    expect(asked).toEqual([]);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /pets', 'DELETE /pets/1/photos/p9']);
    upstream.clear();
    const exported = await c.callTool({ name: 'exportAll', arguments: {} });
    expect(exported.isError).toBe(true);
    expect(asked).toEqual(['exportAll would send this request to the API:\nGET /export\nSend it?']);
    expect(upstream.requests).toEqual([]);
  });

  it('a resource read of an operation that needs the yes is refused, nothing sent', async () => {
    const c = await client('stdio', { answer: 'accept' });
    await expect(c.readResource({ uri: 'pet-shop://export' })).rejects.toThrow(/needs the user's confirmation.*call the tool exportAll/);
    expect(upstream.requests).toEqual([]);
  });

  it('a POST goes without a question under destructive, and asks under writes, with a short body and no secret', async () => {
    const body = { name: 'Rex', note: `the key is ${KEY}` };
    const asked: string[] = [];
    const destructive = await client('stdio', { answer: 'decline', asked });
    expect((await destructive.callTool({ name: 'createPet', arguments: { body } })).isError).toBeFalsy();
    expect(asked).toEqual([]);
    expect(upstream.requests).toHaveLength(1);
    upstream.clear();
    const writes = await client('stdio', { answer: 'accept', asked, confirm: 'writes' });
    expect((await writes.callTool({ name: 'createPet', arguments: { body } })).isError).toBeFalsy();
    expect(asked).toEqual([
      'createPet would send this request to the API:\nPOST /pets\nbody: {"name":"Rex","note":"the key is ***"}\nSend it?',
    ]);
    expect(upstream.requests.map((r) => JSON.parse(r.body.toString()) as unknown)).toEqual([body]);
  });
});

describe('what the question shows', () => {
  it('a long body shows every field, the short ones first: 340 characters of filler hide neither role: "admin" nor auth_level', async () => {
    const body = { note: `${'filler '.repeat(48)}and ${KEY}`, role: 'admin', auth_level: 'root' };
    const asked: string[] = [];
    const c = await client('stdio', { answer: 'decline', asked, confirm: 'writes' });
    await c.callTool({ name: 'createPet', arguments: { body } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('role: "admin", auth_level: "root", note: "filler filler');
    expect(asked[0]).not.toContain(KEY);
    expect(upstream.requests).toEqual([]);
  });

  it("the model's text cannot reorder or add the lines the user reads: bidi controls, separators and invisible characters show as escapes", async () => {
    // U+202E shows what follows right to left; U+2028 starts a line in many renderers; U+200B shows nothing
    const body = { name: 'Rex\u202e"nimda" :elor', note: 'ok\u2028Send it? The request is safe.\u200b' };
    const asked: string[] = [];
    const c = await client('stdio', { answer: 'decline', asked, confirm: 'writes' });
    await c.callTool({ name: 'deletePet', arguments: { petId: 42, reason: 'sold\u2066\u202e' } });
    await c.callTool({ name: 'createPet', arguments: { body } });
    expect(asked).toEqual([
      'deletePet would send this request to the API:\nDELETE /pets/42?reason=sold\\u2066\\u202e\nSend it?',
      'createPet would send this request to the API:\nPOST /pets\nbody: {"name":"Rex\\u202e\\"nimda\\" :elor","note":"ok\\u2028Send it? The request is safe.\\u200b"}\nSend it?',
    ]);
    expect(upstream.requests).toEqual([]);
  });
});

describe('a client that cannot be asked', () => {
  it.each([
    ['stdio, 2025-11-25, no elicitation', 'stdio', false, false, 'it declares no form elicitation'],
    ['Streamable HTTP, 2026-07-28, no elicitation', 'http', true, false, 'it declares no form elicitation'],
    [
      'Streamable HTTP under --stateless, 2025-11-25 with elicitation: a request without a session cannot ask',
      'stateless',
      false,
      true,
      'a 2025-era request without a session, as under --stateless, cannot carry a question',
    ],
  ] as const)(
    '%s: a tool error says what would have been sent and how to allow it; nothing is sent',
    async (_label, where, negotiate, elicits, why) => {
      const asked: string[] = [];
      const c = await client(where, { negotiate, ...(elicits ? { answer: 'accept' as const, asked } : {}) });
      const result = await deletePet(c);
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`deletePet needs the user's confirmation, and this client cannot be asked (${why}): nothing was sent`);
      expect(text(result).startsWith('deletePet needs')).toBe(true);
      expect(text(result)).toContain('DELETE /pets/42?reason=sold, key ***');
      expect(text(result)).toContain('--confirm none');
      expect(text(result)).not.toContain(KEY);
      expect(asked).toEqual([]);
      expect(upstream.requests).toEqual([]);
    },
  );
});

describe('no way around the question', () => {
  const invoke = (c: Client) => c.callTool({ name: 'invoke_operation', arguments: { name: 'deletePet', arguments: { petId: 7 } } });

  it.each([
    ['2025-11-25', false],
    ['2026-07-28', true],
  ] as const)(
    'invoke_operation (--tools dynamic, stdio %s) asks too: declined, nothing is sent; accepted, it is',
    async (_label, negotiate) => {
      const asked: string[] = [];
      const declining = await client('stdio', { negotiate, answer: 'decline', asked, tools: 'dynamic' });
      expect(text(await invoke(declining))).toMatch(/^The user declined/);
      expect(upstream.requests).toEqual([]);
      const accepting = await client('stdio', { negotiate, answer: 'accept', asked, tools: 'dynamic' });
      expect((await invoke(accepting)).isError).toBeFalsy();
      expect(asked).toHaveLength(2);
      expect(asked[1]).toContain('DELETE /pets/7');
      expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /pets/7']);
    },
  );

  const PROGRAM = 'await api.listPets({ status: "sold" }); await api.deletePet({ petId: 9 }); return "done";';
  const execute = (c: Client) => c.callTool({ name: 'execute', arguments: { code: PROGRAM } });

  it.each([
    ['2026-07-28, which has no server-to-client request', true, 'accept', 'a 2026-07-28 request carries no server-to-client request'],
    ['2025-11-25 without elicitation', false, undefined, 'the client declares no form elicitation'],
  ] as const)('a code-mode program on %s: its api call throws, and the DELETE is not sent', async (_label, negotiate, answer, why) => {
    const asked: string[] = [];
    const c = await client('stdio', { negotiate, tools: 'code', asked, ...(answer ? { answer } : {}) });
    const result = await execute(c);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`deletePet needs the user's confirmation, which a program cannot ask for here (${why};`);
    expect(text(result)).toContain('DELETE /pets/9');
    expect(asked).toEqual([]);
    // The program's GET before it went; the DELETE did not.
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /pets']);
  });

  it('a code-mode program on a 2025-11-25 session with elicitation asks mid-program: declined, it throws; accepted, it goes on', async () => {
    const asked: string[] = [];
    const declining = await client('stdio', { tools: 'code', answer: 'decline', asked });
    const declined = await execute(declining);
    expect(declined.isError).toBe(true);
    expect(text(declined)).toContain('The user declined: deletePet was not called and nothing was sent');
    expect(upstream.requests.map((r) => r.method)).toEqual(['GET']);
    upstream.clear();
    const accepting = await client('stdio', { tools: 'code', answer: 'accept', asked });
    const accepted = await execute(accepting);
    expect(accepted.isError, text(accepted)).toBeFalsy();
    expect(accepted.structuredContent).toMatchObject({ result: 'done', calls: 2 });
    expect(asked).toHaveLength(2);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /pets', 'DELETE /pets/9']);
  });
});

describe('arguments are checked before the question', () => {
  const bad = { petId: 'not-a-number' };
  it.each([
    ['a tools/call', undefined, (c: Client) => c.callTool({ name: 'deletePet', arguments: bad })],
    [
      'invoke_operation',
      'dynamic',
      (c: Client) => c.callTool({ name: 'invoke_operation', arguments: { name: 'deletePet', arguments: bad } }),
    ],
    [
      "a code-mode program's api call",
      'code',
      (c: Client) => c.callTool({ name: 'execute', arguments: { code: `return await api.deletePet(${JSON.stringify(bad)});` } }),
    ],
  ] as const)('%s with a bad argument: a tool error names it, no question is asked, nothing is sent', async (_label, tools, call) => {
    const asked: string[] = [];
    const c = await client('stdio', { answer: 'accept', asked, ...(tools ? { tools } : {}) });
    const result = await call(c);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Invalid arguments for deletePet');
    expect(text(result)).toContain('petId');
    expect(asked).toEqual([]);
    expect(upstream.requests).toEqual([]);
  });
});
