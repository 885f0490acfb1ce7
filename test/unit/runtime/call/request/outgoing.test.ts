// The second and third steps of a call (src/runtime/call/request/outgoing.ts): where the request
// goes, what it carries, and the credentials the tool's security schemes add; on the Petstore
// sample's table, with a real Authenticator.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../../../../src/runtime/call/request/credentials.js';
import { createLogger } from '../../../../../src/runtime/start/log.js';
import { apiBase, authenticate, buildOutgoing, upstreamBase } from '../../../../../src/runtime/call/request/outgoing.js';
import type { ToolSpec, ToolTable } from '../../../../../src/contract/table.js';

const petstore = JSON.parse(
  readFileSync(new URL('../../../../../samples/petstore/server/tools.json', import.meta.url), 'utf8'),
) as ToolTable;
const tool = (name: string) => petstore.tools.find((t) => t.name === name) as ToolSpec;
const log = createLogger('test', 'silent');

describe('apiBase and upstreamBase', () => {
  const own = { ...tool('getPetById'), http: { ...tool('getPetById').http, servers: [{ url: 'https://pets.example/v3' }] } };
  const relative = { ...tool('getPetById'), http: { ...tool('getPetById').http, servers: [{ url: '/v3' }] } };
  it.each([
    ['--base-url wins over every server', own, 'https://mine.example', 'https://mine.example'],
    ['else the operation’s own server', own, undefined, 'https://pets.example/v3'],
    ['else the API’s first server', tool('getPetById'), undefined, 'http://petstore.swagger.io/v2'],
  ])('%s', (_name, given, configured, want) => {
    expect(upstreamBase(given, configured, apiBase(petstore, configured))).toEqual({ base: want });
  });
  it.each([
    ['a relative server, quoted', relative, '(the spec\'s server "/v3" is relative)'],
    ['no server at all', tool('getPetById'), 'getPetById: no upstream base URL; start the server with --base-url'],
  ])('%s: a problem that says how to fix it', (_name, given, want) => {
    const api = apiBase({ ...petstore, servers: [] }, undefined);
    const got = upstreamBase(given, undefined, api);
    expect('problem' in got && got.problem).toContain(want);
  });
});

describe('buildOutgoing', () => {
  it('places the arguments and adds the static headers', () => {
    const got = buildOutgoing(tool('getPetById'), { petId: 7 }, 'https://api.example/v2', [['X-Team', 'blue']]);
    expect(got).toEqual({
      request: {
        tool: 'getPetById',
        method: 'GET',
        url: 'https://api.example/v2/pet/7',
        headers: expect.objectContaining({ 'X-Team': 'blue' }),
      },
    });
  });
  it('an argument that cannot be sent is a problem, not a throw', () => {
    const got = buildOutgoing(tool('addPet'), { body: { name: 'Rex' }, contentType: 'text/csv' }, 'https://api.example', []);
    expect(got).toEqual({ problem: expect.stringContaining('text/csv') });
  });
});

describe('authenticate', () => {
  const request = () =>
    buildOutgoing(tool('getPetById'), { petId: 7 }, 'https://api.example', []) as {
      request: { url: string; headers: Record<string, string> };
    };
  const signal = new AbortController().signal;

  it('adds the API key from the environment, over a header of the same name', async () => {
    const auth = new Authenticator(petstore, { SWAGGER_PETSTORE_API_KEY: 'k-123' }, log, 1000);
    const { request: outgoing } = request();
    outgoing.headers.api_key = 'from-a-header';
    expect(await authenticate(auth, tool('getPetById'), { tool: 'getPetById', method: 'GET', ...outgoing }, new Map(), signal)).toEqual({
      usedTokenFetch: false,
    });
    expect(outgoing.headers).toEqual(expect.objectContaining({ api_key: 'k-123' }));
  });
  it.each([
    ['no credential set: names the variable', {}, new Map<string, string>(), /SWAGGER_PETSTORE_API_KEY/],
    ['a client’s value no header can carry', {}, new Map([['api_key', 'a\u0100b']]), /^getPetById: /],
  ])('%s', async (_name, env, credentials, want) => {
    const auth = new Authenticator(petstore, env, log, 1000);
    const got = await authenticate(
      auth,
      tool('getPetById'),
      { tool: 'getPetById', method: 'GET', ...request().request },
      credentials,
      signal,
    );
    expect('problem' in got && got.problem).toMatch(want);
  });
});
