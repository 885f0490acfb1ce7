// completion/complete (src/runtime/mcp/resources.ts) through the official client: a template
// variable's enum values and examples, a prompt argument's enum, and the user's complete hook
// (src/hooks.ts), which can add values fetched from the API.
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createServerFactory } from '../../../../src/runtime/mcp/server.js';
import { createExecutor } from '../../../../src/runtime/call/executor.js';
import { createLogger } from '../../../../src/runtime/start/log.js';
import { type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import type { Hooks } from '../../../../src/runtime/hooks-api.js';
import type { ToolTable } from '../../../../src/contract/table.js';

const table: ToolTable = {
  format: 1,
  name: 'git-mcp',
  version: '1',
  servers: [{ url: 'https://api.example.com' }],
  defs: {},
  auth: {},
  prompts: [{ name: 'triage', arguments: [{ name: 'state', enum: ['open', 'closed'] }], template: 'Triage {{state}} issues.' }],
  tools: [
    {
      name: 'listIssues',
      description: 'List issues',
      inputSchema: {
        type: 'object',
        properties: { owner: { type: 'string', examples: ['octo-org'] }, state: { type: 'string', enum: ['open', 'closed', 'all'] } },
        required: ['owner'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      http: {
        method: 'GET',
        path: '/repos/{owner}/issues',
        params: [
          { arg: 'owner', name: 'owner', in: 'path', style: 'simple', explode: false, required: true },
          { arg: 'state', name: 'state', in: 'query', style: 'form', explode: true, required: false },
        ],
      },
      resource: { uriTemplate: 'git://repos/{owner}/issues{?state}', variables: { owner: 'owner', state: 'state' } },
    },
  ],
};

async function client(hooks: Hooks = {}) {
  const executor = createExecutor(table, readConfig([], {}) as ServerConfig, hooks, createLogger('git', 'silent'));
  const server = createServerFactory(table, executor, undefined, { mode: 'direct', profile: 'portable', initialToolsets: [], hooks })();
  const [a, b] = InMemoryTransport.createLinkedPair();
  const c = new Client({ name: 't', version: '1' });
  await server.connect(b);
  await c.connect(a);
  return c;
}
const ref = { type: 'ref/resource' as const, uri: 'git://repos/{owner}/issues{?state}' };

describe('completion/complete', () => {
  it('a template variable: its enum values that start with what was typed, any case', async () => {
    const c = await client();
    expect((await c.complete({ ref, argument: { name: 'state', value: 'C' } })).completion).toEqual({
      values: ['closed'],
      total: 1,
      hasMore: false,
    });
    expect((await c.complete({ ref, argument: { name: 'owner', value: '' } })).completion.values).toEqual(['octo-org']); // from examples
    await c.close();
  });

  it('a prompt argument: its enum values', async () => {
    const c = await client();
    expect(
      (await c.complete({ ref: { type: 'ref/prompt', name: 'triage' }, argument: { name: 'state', value: 'o' } })).completion.values,
    ).toEqual(['open']);
    await c.close();
  });

  it('the complete hook adds values (e.g. from the API), and sees what is already filled', async () => {
    const seen: unknown[] = [];
    const c = await client({
      complete(request) {
        seen.push(request);
        return request.argument === 'owner' ? ['octocat', 'octo-org', 'other'] : undefined;
      },
    });
    const result = await c.complete({ ref, argument: { name: 'owner', value: 'octo' }, context: { arguments: { state: 'open' } } });
    expect(result.completion.values).toEqual(['octo-org', 'octocat']);
    expect(seen).toEqual([
      { uriTemplate: 'git://repos/{owner}/issues{?state}', argument: 'owner', value: 'octo', context: { state: 'open' } },
    ]);
    await c.close();
  });
});
