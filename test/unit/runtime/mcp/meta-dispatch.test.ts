// One dispatch table for every meta-tool (src/runtime/meta-tools.ts): which names a
// server instance answers as meta-tools in each mode, and the toolset calls on a real session,
// on the Petstore sample's tool table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { metaCalls, type MetaRequest, type MetaTools, type ToolsetSession } from '../../../../src/runtime/mcp/meta-dispatch.js';
import { OperationIndex } from '../../../../src/runtime/mcp/operation-index.js';
import { metaTools } from '../../../../src/contract/meta-tools.js';
import { toolsetOf } from '../../../../src/contract/toolsets.js';
import type { ToolSpec, ToolTable } from '../../../../src/contract/table.js';

const petstore = JSON.parse(readFileSync(new URL('../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8')) as ToolTable;
const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const noRequest: MetaRequest = {
  invoke: () => Promise.reject(new Error('no operation is called here')),
  visible: () => true,
  signal: new AbortController().signal,
  caller: '',
};

/** A session that lists the tools of its enabled toolsets, and counts list_changed notices. */
function session(enabled: string[], toolCap = 128): ToolsetSession & { changes: number } {
  const made = {
    table: petstore,
    enabled: new Set(enabled),
    listedTools: (visible: (tool: ToolSpec) => boolean) =>
      petstore.tools.filter((t) => made.enabled.has(toolsetOf(t)) && visible(t)).length,
    metaTools: 2,
    toolCap,
    changes: 0,
    listChanged: async () => void made.changes++,
  };
  return made;
}

const operations: MetaTools['operations'] = {
  tools: metaTools(petstore),
  context: {
    table: petstore,
    byName: new Map(petstore.tools.map((t) => [t.name, t])),
    inputSchema: (t) => t.inputSchema,
    checkArguments: async () => undefined,
    index: () => new OperationIndex(petstore.tools),
    outputSchema: (t) => t.output?.schema,
    codeLimits: { memoryBytes: 64 << 20, timeMs: 5_000, maxCalls: 50, maxResultBytes: 1 << 18, maxLogBytes: 1 << 14 },
  },
};

describe('metaCalls: the names answered as meta-tools', () => {
  it.each([
    ['direct mode', {}, []],
    ['dynamic mode', { operations }, ['search_operations', 'describe_operation', 'invoke_operation']],
    ['toolsets mode, in a session', { toolsets: session([]) }, ['list_toolsets', 'enable_toolset']],
    [
      'toolsets mode, a request without a session',
      { toolsets: 'sessionless' as const, operations },
      ['list_toolsets', 'enable_toolset', 'search_operations', 'describe_operation', 'invoke_operation'],
    ],
  ])('%s', (_name, given: MetaTools, want) => {
    expect([...metaCalls(given).keys()]).toEqual(want);
  });
});

describe('toolset meta-tools', () => {
  it('list_toolsets says which toolsets the session has enabled', async () => {
    const list = metaCalls({ toolsets: session(['store']) }).get('list_toolsets');
    const result = await list?.({}, noRequest);
    expect(text(result as CallToolResult)).toBe('pet: 8 tools\nstore: 4 tools (enabled)\nuser: 8 tools');
  });

  it.each([
    ['a new toolset: listed, and the client told', ['store'], 'pet', 128, 'Toolset pet is enabled: 8 tools; the tool list has changed.', 1],
    [
      'one already listed: nothing changes',
      ['pet'],
      'pet',
      128,
      'Toolset pet was already listed (8 tools); the tool list is unchanged.',
      0,
    ],
    [
      'past the cap some clients keep: a warning',
      ['store'],
      'user',
      10,
      'Toolset user is enabled: 8 tools; the tool list has changed. 14 tools are now listed: some clients refuse more than 10.',
      1,
    ],
    ['an unknown one: an error naming it', [], 'cats', 128, 'No toolset named "cats"; see list_toolsets', 0],
  ])('enable_toolset, %s', async (_name, enabled, wanted, cap, want, changes) => {
    const open = session(enabled, cap);
    const result = await metaCalls({ toolsets: open }).get('enable_toolset')?.({ toolset: wanted }, noRequest);
    expect(text(result as CallToolResult)).toBe(want);
    expect(open.changes).toBe(changes);
  });

  it("count only what the caller may see (its token's scopes): a toolset it reaches nothing of is left out, and enabling it says why", async () => {
    const readOnly: MetaRequest = { ...noRequest, visible: (t) => t.annotations.readOnlyHint === true };
    const open = session([]);
    const calls = metaCalls({ toolsets: open });
    const reachable = (toolset: string) => petstore.tools.filter((t) => toolsetOf(t) === toolset && readOnly.visible(t)).length;
    const listed = (await calls.get('list_toolsets')?.({}, readOnly)) as CallToolResult;
    expect(text(listed)).toBe(`pet: ${reachable('pet')} tools\nstore: ${reachable('store')} tools\nuser: ${reachable('user')} tools`);
    const enabled = (await calls.get('enable_toolset')?.({ toolset: 'pet' }, readOnly)) as CallToolResult;
    expect(text(enabled)).toBe(`Toolset pet is enabled: ${reachable('pet')} tools; the tool list has changed.`);
    const nothing: MetaRequest = { ...noRequest, visible: (t) => toolsetOf(t) !== 'user' };
    expect(text((await calls.get('list_toolsets')?.({}, nothing)) as CallToolResult)).not.toContain('user');
    const refused = (await calls.get('enable_toolset')?.({ toolset: 'user' }, nothing)) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('Toolset user has no tool the scopes of your token allow; see list_toolsets');
  });

  it('without a session, both say how to reach operations instead', async () => {
    for (const [name, call] of metaCalls({ toolsets: 'sessionless' })) {
      const result = (await call({}, noRequest)) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(new RegExp(`^${name} needs a session.*search_operations.*invoke_operation`));
    }
  });
});
