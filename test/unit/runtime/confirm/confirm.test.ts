// Confirmations (runtime/confirm.ts): which calls wait for the user's yes under each --confirm
// and per-operation `confirm`, and the question's view of the request: method, filled path,
// query and a short body, bounded, with no credential in it.
import { describe, expect, it } from 'vitest';
import { describeRequest } from '../../../../src/runtime/confirm/confirm.js';
import { needsConfirmation, streamsMidCall } from '../../../../src/runtime/start/optional-features.js';
import { type ConfirmSetting, type ServerConfig } from '../../../../src/runtime/start/config.js';
import { readConfig } from '../../../../src/runtime/start/command-line.js';
import type { ParamSpec, ToolSpec, ToolTable } from '../../../../src/contract/table.js';

function tool(method: string, more: Partial<ToolSpec> = {}): ToolSpec {
  const annotations =
    method === 'GET'
      ? { readOnlyHint: true }
      : method === 'DELETE'
        ? { readOnlyHint: false, destructiveHint: true }
        : { readOnlyHint: false };
  return {
    name: `${method.toLowerCase()}Pet`,
    description: 'd',
    inputSchema: { type: 'object' },
    annotations,
    http: { method, path: '/pets', params: [] },
    ...more,
  };
}

describe('which calls wait for the yes', () => {
  const settings: ConfirmSetting[] = ['none', 'destructive', 'writes'];
  const cases: [string, ToolSpec, boolean[]][] = [
    ['GET', tool('GET'), [false, false, false]],
    ['POST', tool('POST'), [false, false, true]],
    ['PUT', tool('PUT'), [false, false, true]],
    ['DELETE', tool('DELETE'), [false, true, true]],
    ['GET with confirm: true', tool('GET', { confirm: true }), [true, true, true]],
    ['POST with confirm: true', tool('POST', { confirm: true }), [true, true, true]],
    ['DELETE with confirm: false', tool('DELETE', { confirm: false }), [false, false, false]],
    ['POST with confirm: false', tool('POST', { confirm: false }), [false, false, false]],
  ];
  it.each(cases)('%s under none, destructive, writes', (_name, spec, want) => {
    expect(settings.map((setting) => needsConfirmation(spec, setting))).toEqual(want);
  });
});

const param = (arg: string, where: ParamSpec['in'], name = arg): ParamSpec => ({
  arg,
  name,
  in: where,
  style: where === 'query' ? 'form' : 'simple',
  explode: where === 'query',
  required: where === 'path',
});

describe('--confirm', () => {
  it('is none by default, so that clients which cannot be asked keep working', () => {
    expect((readConfig([], {}) as ServerConfig).confirm).toBe('none');
    expect((readConfig([], { MCP_CONFIRM: 'destructive' }) as ServerConfig).confirm).toBe('destructive');
  });

  it('refuses another value with one line naming the setting', () => {
    expect(() => readConfig(['--confirm', 'deletes'], {})).toThrow(/^--confirm must be none, destructive or writes \(got "deletes"\)$/);
  });
});

describe('the request the question shows', () => {
  const SECRET = 'sk-live-0123456789abcdef';
  const noSecrets = (text: string) => text.split(SECRET).join('***');
  const update = tool('PATCH', {
    http: {
      method: 'PATCH',
      path: '/stores/{store}/pets/{petId}',
      params: [
        param('store', 'path'),
        param('petId', 'path'),
        param('dryRun', 'query', 'dry_run'),
        param('access_token', 'query'),
        param('X-Trace', 'header'),
      ],
      body: { arg: 'body', required: true, mediaTypes: ['application/json'] },
    },
  });

  it('method, the path filled and encoded, query arguments and the body on one line', () => {
    const text = describeRequest(update, { store: 'north/east', petId: 42, dryRun: true, body: { name: 'Rex', tags: ['a'] } }, noSecrets);
    expect(text).toBe('PATCH /stores/north%2Feast/pets/42?dry_run=true\nbody: {"name":"Rex","tags":["a"]}');
  });

  it('an OAS 3.2 querystring argument is shown as the query, its secrets taken out', () => {
    const find = tool('GET', { http: { method: 'GET', path: '/pets/find', params: [param('filter', 'querystring')] } });
    const text = describeRequest(find, { filter: { name: 'Rex', key: SECRET } }, noSecrets);
    expect(text).toBe('GET /pets/find?{"name":"Rex","key":"***"}');
  });

  it("shows no credential: the secrets' values taken out wherever they are, a scheme's query parameter as ***, headers left out", () => {
    const text = describeRequest(
      update,
      {
        store: 's',
        petId: SECRET,
        access_token: 'tok-abcdef',
        'X-Trace': 'trace-value',
        body: { name: `a ${SECRET} b`, nested: { note: SECRET } },
      },
      noSecrets,
      new Set(['access_token']),
    );
    for (const secret of [SECRET, 'tok-abcdef', 'trace-value']) expect(text).not.toContain(secret);
    expect(text).toContain('access_token=***');
    expect(text).toContain('{"name":"a *** b","nested":{"note":"***"}}');
    expect(text.startsWith('PATCH /stores/s/pets/***?')).toBe(true);
  });

  it('masks by what the secrets are, not by names: auth_level, password and token fields are shown', () => {
    const body = { auth_level: 'admin', password: 'new-pass-1', token_limit: 5 };
    const text = describeRequest(update, { store: 's', petId: 1, access_token: 'not-a-scheme-here', body }, noSecrets);
    expect(text).toBe(`PATCH /stores/s/pets/1?access_token=not-a-scheme-here\nbody: ${JSON.stringify(body)}`);
  });

  it('a long body shows every field, the short ones first and the long ones cut: filler cannot hide role: "admin"', () => {
    const filler = 'f'.repeat(340);
    const body = { bio: filler, profile: { about: filler, role: 'admin' }, auth_level: 'root' };
    const text = describeRequest(update, { store: 's', petId: 1, body }, noSecrets);
    const line = text.split('\n')[1]!;
    expect(line).toBe(
      `body (every field, long values cut): profile.role: "admin", auth_level: "root", bio: "${'f'.repeat(38)}…, profile.about: "${'f'.repeat(38)}…`,
    );
    // A secret inside a long value is taken out before the cut.
    const hidden = describeRequest(update, { store: 's', petId: 1, body: { bio: filler, key: `${'y'.repeat(30)}${SECRET}` } }, noSecrets);
    expect(hidden).not.toContain(SECRET.slice(0, 8));
  });

  it('is bounded: long values and bodies are cut, the secret taken out before the cut', () => {
    const long = 'x'.repeat(5_000);
    const text = describeRequest(update, { store: long, petId: 1, dryRun: long, body: { text: long } }, noSecrets);
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text.split('\n')[0]?.length).toBeLessThan(300);
    expect(text).toContain('…');
    // A secret that straddles the cut would no longer be recognised: it is taken out first.
    const straddling = describeRequest(update, { store: `${'y'.repeat(70)}${SECRET}`, petId: 1, body: {} }, noSecrets);
    expect(straddling).not.toContain(SECRET.slice(0, 8));
  });

  it('keeps line breaks and control characters out of values', () => {
    const text = describeRequest(update, { store: 'a\nb\rc\u0000d', petId: 1, body: 'x\ny' }, noSecrets);
    expect(text.split('\n')).toHaveLength(2);
  });

  it('leaves a path argument not given as its template', () => {
    expect(describeRequest(update, { petId: 7 }, noSecrets)).toBe('PATCH /stores/{store}/pets/7');
  });
});

describe('which requests of a 2025 session are answered as a stream (streamsMidCall)', () => {
  const table: ToolTable = {
    format: 1,
    name: 't',
    version: '1',
    servers: [],
    defs: {},
    auth: {},
    tools: [{ ...tool('DELETE'), name: 'deletePet' }, tool('GET'), { ...tool('POST'), name: 'startJob', longRunning: {} }],
  };
  const streams = streamsMidCall(table, 'destructive');
  const call = (name: string, more: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, ...more },
  });
  const progress = { _meta: { progressToken: 't1' } };

  it.each([
    ['tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, false],
    ['a plain call', call('getPet'), false],
    ['a call that asks for confirmation', call('deletePet'), true],
    ['a long-running call without a progress token', call('startJob'), false],
    ['a long-running call with one', call('startJob', progress), true],
    ['get_operation_status with a progress token', call('get_operation_status', progress), true],
    ['invoke_operation of a plain operation', call('invoke_operation', { arguments: { name: 'getPet' } }), false],
    ['invoke_operation of one that asks', call('invoke_operation', { arguments: { name: 'deletePet' } }), true],
    ["code mode's execute, when some operation asks", call('execute'), true],
    ['a batch with one call that asks', [call('getPet'), call('deletePet')], true],
  ] as const)('%s', (_label, message, expected) => {
    expect(streams(message)).toBe(expected);
  });
});
