// Names that are also Object.prototype's (`constructor`, `toString`, `__proto__`) as prompt
// arguments, tool arguments, query parameters and template variables, through the official
// client: each is only what the spec and the client say, never an inherited value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connectInMemory } from '../../../../harness/in-memory.js';
import { startUpstream, type Upstream } from '../../../harness/upstream.js';
import type { ParamSpec, ToolTable } from '../../../../src/contract/table.js';

// `__proto__` itself never reaches a server: the SDK's request schemas drop the key, and ajv
// ignores it in `properties`; so mcp-gen names such a parameter's argument `proto` (model.test.ts).
const NAMES = ['constructor', 'proto', 'toString'];
const param = (arg: string, where: 'query' | 'header' = 'query'): ParamSpec => ({
  arg,
  name: arg === 'proto' ? '__proto__' : arg,
  in: where,
  style: where === 'query' ? 'form' : 'simple',
  explode: where === 'query',
  required: false,
});

let upstream: Upstream;
let client: Client;
/** The headers of each request as sent, seen by a beforeRequest hook (node's HTTP parser keeps no `__proto__` header). */
const sentHeaders: [string, string][][] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  const table: ToolTable = {
    format: 1,
    name: 'proto',
    version: '1',
    servers: [{ url: upstream.url }],
    defs: {},
    auth: {},
    prompts: [
      {
        name: 'visit',
        arguments: [{ name: 'constructor', required: true }, { name: 'hasOwnProperty', enum: ['cat', 'cow'] }, { name: 'toString' }],
        template: 'Visit {{constructor}} with {{hasOwnProperty}} at {{toString}}.',
      },
    ],
    tools: [
      {
        name: 'getThings',
        description: 'Things',
        inputSchema: {
          type: 'object',
          properties: Object.fromEntries([...NAMES, 'protoHeader'].map((n) => [n, { type: 'string', examples: [`${n}-example`] }])),
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
        http: {
          method: 'GET',
          path: '/things',
          params: [...NAMES.map((n) => param(n)), { ...param('protoHeader', 'header'), name: '__proto__' }],
        },
        resource: {
          uriTemplate: 'proto://things{?constructor,proto,toString}',
          variables: Object.fromEntries(NAMES.map((n) => [n, n])),
        },
      },
    ],
  };
  client = await connectInMemory(
    table,
    {},
    {
      beforeRequest(request) {
        sentHeaders.push(Object.entries(request.headers));
        return request;
      },
    },
  );
});
afterAll(async () => {
  await client?.close();
  await upstream?.close();
});

const promptText = async (args: Record<string, string>) =>
  ((await client.getPrompt({ name: 'visit', arguments: args })).messages[0]?.content as { text: string }).text;

describe('prompt arguments named like Object.prototype keys', () => {
  it('a missing required `constructor` is refused', async () => {
    await expect(client.getPrompt({ name: 'visit', arguments: { toString: 'noon' } })).rejects.toThrow(/needs the argument "constructor"/);
  });

  it('given values are used verbatim', async () => {
    expect(await promptText({ constructor: 'the zoo', hasOwnProperty: 'a cow', toString: 'noon' })).toBe(
      'Visit the zoo with a cow at noon.',
    );
  });

  it('absent optional ones render nothing, not an inherited value', async () => {
    expect(await promptText({ constructor: 'the zoo' })).toBe('Visit the zoo with  at .');
  });

  it('completion of each answers normally: the enum of `hasOwnProperty`, nothing for the others', async () => {
    const complete = (name: string, value = '') =>
      client.complete({ ref: { type: 'ref/prompt', name: 'visit' }, argument: { name, value } });
    expect((await complete('hasOwnProperty', 'c')).completion).toEqual({ values: ['cat', 'cow'], total: 2, hasMore: false });
    expect((await complete('constructor')).completion).toEqual({ values: [], total: 0, hasMore: false });
    expect((await complete('toString')).completion).toEqual({ values: [], total: 0, hasMore: false });
    expect((await complete('valueOf')).completion).toEqual({ values: [], total: 0, hasMore: false });
  });
});

describe('tool arguments, query parameters and template variables named like Object.prototype keys', () => {
  it('given ones reach the upstream as query parameters of those names', async () => {
    upstream.clear();
    const result = await client.callTool({
      name: 'getThings',
      arguments: { constructor: 'c', proto: 'p', toString: 't', protoHeader: 'h' },
    });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/things?constructor=c&__proto__=p&toString=t']);
    expect(sentHeaders.at(-1)).toContainEqual(['__proto__', 'h']);
  });

  it('absent ones send nothing', async () => {
    upstream.clear();
    const result = await client.callTool({ name: 'getThings', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/things']);
  });

  it('a resource read fills them from the URI, and completion offers their examples', async () => {
    upstream.clear();
    await client.readResource({ uri: 'proto://things?proto=p&constructor=c' });
    expect(upstream.requests.map((r) => r.url)).toEqual(['/things?constructor=c&__proto__=p']);
    const ref = { type: 'ref/resource' as const, uri: 'proto://things{?constructor,proto,toString}' };
    for (const name of NAMES)
      expect((await client.complete({ ref, argument: { name, value: '' } })).completion.values).toEqual([`${name}-example`]);
    expect((await client.complete({ ref, argument: { name: 'valueOf', value: '' } })).completion.values).toEqual([]);
  });
});
