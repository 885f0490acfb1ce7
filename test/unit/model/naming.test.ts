// Tool and argument names (src/model/naming.ts). MCP tool names must match
// ^[A-Za-z0-9_-]{1,64}$, argument names ^[A-Za-z0-9_.-]{1,64}$; the same spec must always give
// the same names, and two different operations must never share one.
import { describe, expect, it } from 'vitest';
import { MAX_NAME, NameScope, nameFromRoute, packageNameFor, sanitizeArgName, sanitizeToolName } from '../../../src/model/naming.js';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ARG_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const long100 = ('listAllTheRepositoryInvitationsForTheAuthenticatedUserAcrossEveryOrganisation' + 'AndEnterpriseAccountX'.repeat(2)).slice(
  0,
  100,
);
// Same first 70 characters, different tails: a plain cut at 64 would merge them.
const sharedPrefix = 'a'.repeat(70);

describe('sanitizeToolName', () => {
  const cases: [string, { given: string; want: string }][] = [
    ['a valid name is kept as it is', { given: 'getPetById', want: 'getPetById' }],
    ['hyphens and underscores are kept', { given: 'pets-list_all', want: 'pets-list_all' }],
    ['slashes (GitHub "repos/get") become underscores', { given: 'repos/get', want: 'repos_get' }],
    ['nested slashes', { given: 'actions/list-repo-workflows', want: 'actions_list-repo-workflows' }],
    ['spaces become one underscore', { given: 'list   all pets', want: 'list_all_pets' }],
    ['dots and colons are replaced', { given: 'pets.v2:list', want: 'pets_v2_list' }],
    ['accents are folded, not dropped', { given: 'créerUtilisateur', want: 'creerUtilisateur' }],
    ['mixed accents', { given: 'Ärger_über_Öl', want: 'Arger_uber_Ol' }],
    ['leading and trailing separators are trimmed', { given: '  /pets/  ', want: 'pets' }],
    ['runs of replaced characters collapse', { given: 'a!!@@##b', want: 'a_b' }],
    ['empty → a fallback name', { given: '', want: 'operation' }],
    ['only punctuation → the fallback name', { given: '/{}/', want: 'operation' }],
    ['non-Latin script → the fallback name', { given: '获取用户', want: 'operation' }],
    ['exactly 64 characters is not cut', { given: 'x'.repeat(64), want: 'x'.repeat(64) }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const got = sanitizeToolName(given);
    expect(got).toBe(want);
    expect(got).toMatch(TOOL_NAME);
  });

  it('cuts a 100-character id to at most 64 characters, the same way every time', () => {
    expect(long100).toHaveLength(100);
    const first = sanitizeToolName(long100);
    expect(first.length).toBeLessThanOrEqual(MAX_NAME);
    expect(first).toMatch(TOOL_NAME);
    expect(sanitizeToolName(long100)).toBe(first);
    // still readable: it starts with the id itself
    expect(long100.startsWith(first.slice(0, 40))).toBe(true);
  });

  it('keeps two long ids that share their first 64 characters apart', () => {
    const a = sanitizeToolName(sharedPrefix + 'Create');
    const b = sanitizeToolName(sharedPrefix + 'Delete');
    expect(a).not.toBe(b);
    for (const name of [a, b]) {
      expect(name.length).toBeLessThanOrEqual(MAX_NAME);
      expect(name).toMatch(TOOL_NAME);
    }
  });

  it('keeps long ids apart when only characters that are replaced differ', () => {
    const a = sanitizeToolName(sharedPrefix + '/x');
    const b = sanitizeToolName(sharedPrefix + '.x');
    expect(a).not.toBe(b);
  });

  it('cuts a long name with accents and slashes to a valid name', () => {
    const got = sanitizeToolName('é/'.repeat(80));
    expect(got.length).toBeLessThanOrEqual(MAX_NAME);
    expect(got).toMatch(TOOL_NAME);
  });
});

describe('nameFromRoute (as tool names use it: through sanitizeToolName)', () => {
  const cases: [string, { given: [string, string]; want: string }][] = [
    ['path parameter braces are dropped', { given: ['get', '/pets/{petId}'], want: 'get_pets_petId' }],
    ['the method is lower-cased', { given: ['DELETE', '/pets/{petId}'], want: 'delete_pets_petId' }],
    ['the root path', { given: ['get', '/'], want: 'get' }],
    ['nested resources', { given: ['post', '/users/{id}/repos/{repo}/stars'], want: 'post_users_id_repos_repo_stars' }],
    ['extensions and dashes', { given: ['get', '/v1/pet-food.json'], want: 'get_v1_pet-food_json' }],
    ['a trailing slash adds nothing', { given: ['put', '/pets/'], want: 'put_pets' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const raw = nameFromRoute(...given);
    expect(raw.startsWith(given[0].toLowerCase() + '_')).toBe(true);
    expect(raw).not.toMatch(/[{}]/);
    expect(sanitizeToolName(raw)).toBe(want);
  });

  it('an upper-case method is lower-cased, so GET and get name a route alike', () => {
    expect(sanitizeToolName(nameFromRoute('GET', '/a/{b}'))).toBe('get_a_b');
  });
});

describe('sanitizeArgName', () => {
  const cases: [string, { given: string; want: string }][] = [
    ['a valid name is kept', { given: 'petId', want: 'petId' }],
    ['dots are allowed in argument names', { given: 'user.name', want: 'user.name' }],
    ['hyphens are kept (X-Request-ID)', { given: 'X-Request-ID', want: 'X-Request-ID' }],
    ['brackets (filter[status])', { given: 'filter[status]', want: 'filter_status' }],
    ['nested brackets', { given: 'page[size][max]', want: 'page_size_max' }],
    ['OData $select', { given: '$select', want: 'select' }],
    ['spaces', { given: 'sort by', want: 'sort_by' }],
    ['accents are folded', { given: 'prénom', want: 'prenom' }],
    ['empty → a fallback name', { given: '', want: 'arg' }],
    ['array marker', { given: 'ids[]', want: 'ids' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const got = sanitizeArgName(given);
    expect(got).toBe(want);
    expect(got).toMatch(ARG_NAME);
  });

  it('cuts long names to 64 characters and keeps them apart', () => {
    const a = sanitizeArgName('filter[' + 'x'.repeat(80) + '][a]');
    const b = sanitizeArgName('filter[' + 'x'.repeat(80) + '][b]');
    expect(a.length).toBeLessThanOrEqual(MAX_NAME);
    expect(b.length).toBeLessThanOrEqual(MAX_NAME);
    expect(a).toMatch(ARG_NAME);
    expect(a).not.toBe(b);
    expect(sanitizeArgName('filter[' + 'x'.repeat(80) + '][a]')).toBe(a);
  });

  it('never returns an empty or invalid name', () => {
    for (const raw of ['[]', '$', '...', '__', '🙂', ' ', '/']) {
      expect(sanitizeArgName(raw), JSON.stringify(raw)).toMatch(ARG_NAME);
    }
  });
});

describe('NameScope', () => {
  const cases: [string, { given: { reserved?: string[]; claims: string[] }; want: string[] }][] = [
    ['distinct names are kept', { given: { claims: ['a', 'b', 'c'] }, want: ['a', 'b', 'c'] }],
    ['a repeated name gets _2, then _3', { given: { claims: ['getPet', 'getPet', 'getPet'] }, want: ['getPet', 'getPet_2', 'getPet_3'] }],
    [
      'names are compared case-insensitively',
      { given: { claims: ['getPet', 'GetPet', 'GETPET'] }, want: ['getPet', 'GetPet_2', 'GETPET_3'] },
    ],
    ['a suffixed name that is already taken is skipped', { given: { claims: ['x_2', 'x', 'x'] }, want: ['x_2', 'x', 'x_3'] }],
    ['reserved names are taken from the start', { given: { reserved: ['body'], claims: ['body', 'Body'] }, want: ['body_2', 'Body_3'] }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const scope = new NameScope(given.reserved);
    expect(given.claims.map((n) => scope.claim(n))).toEqual(want);
  });

  it('has() is case-insensitive and sees claimed names only', () => {
    const scope = new NameScope();
    expect(scope.has('pets')).toBe(false);
    scope.claim('Pets');
    expect(scope.has('pets')).toBe(true);
    expect(scope.has('PETS')).toBe(true);
  });

  it('keeps the suffixed name within 64 characters', () => {
    const scope = new NameScope();
    const full = 'n'.repeat(64);
    const names = Array.from({ length: 12 }, () => scope.claim(full));
    expect(names[0]).toBe(full);
    expect(names[1]).toBe('n'.repeat(62) + '_2');
    expect(names[11]).toBe('n'.repeat(61) + '_12');
    for (const n of names) {
      expect(n.length).toBeLessThanOrEqual(MAX_NAME);
      expect(n).toMatch(TOOL_NAME);
    }
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
  });
});

describe('packageNameFor', () => {
  it.each([
    // the title's telling words, at most three
    ["GitHub's official OpenAPI spec + Octokit extension", undefined, 'github-octokit-mcp'],
    ['Swagger Petstore', 'https://petstore.swagger.io/v2', 'swagger-petstore-mcp'],
    ['Stripe API', undefined, 'stripe-mcp'],
    ['AWS Route53 Recovery Control Config', undefined, 'aws-route53-recovery-mcp'],
    ['Microsoft Graph v1.0', undefined, 'microsoft-graph-mcp'],
    ['Crème Brûlée REST service', undefined, 'creme-brulee-mcp'],
    // no telling word: the server's host, without api./www. and the TLD
    ['The API', 'https://api.example.com/v1', 'example-mcp'],
    ['REST API v2', 'https://www.acme.co/api', 'acme-mcp'],
    // nothing at all
    [undefined, undefined, 'api-mcp'],
    ['OpenAPI', 'not a url', 'api-mcp'],
  ])('%s (server %s) → %s', (title, server, want) => {
    expect(packageNameFor(title, server)).toBe(want);
  });

  it('a very long word is cut to 30 characters, and the name stays a valid npm name', () => {
    const name = packageNameFor('ApplicationInsightsManagementClientForEverything', undefined);
    expect(name).toBe('applicationinsightsmanagementc-mcp');
    expect(name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
  });
});
