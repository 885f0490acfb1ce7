// The config file's `scopes` rules (src/model/scopes.ts): which rule sets a tool's OAuth scopes,
// what it writes, and the warning for a rule that sets none.
import { describe, expect, it } from 'vitest';
import type { ScopeRule } from '../../../src/model/model-options.js';
import {
  isScopeToken,
  scopeRuleMatches,
  scopesFor,
  unusedScopeRules,
  type ScopeFacts,
  type ScopeRuleUse,
} from '../../../src/model/scopes.js';
import { buildModel } from '../../../src/model/build.js';

const pet: ScopeFacts = { method: 'delete', path: '/pets/{id}', operationId: 'deletePet', tags: ['pets'], toolset: 'pets' };

describe('scopeRuleMatches: every criterion given must match', () => {
  const cases: [string, { given: Omit<ScopeRule, 'scopes'>; want: boolean }][] = [
    ['no criteria: a catch-all', { given: {}, want: true }],
    ['a method, any case', { given: { methods: ['Delete'] }, want: true }],
    ['another method', { given: { methods: ['GET'] }, want: false }],
    ['a path glob', { given: { paths: ['/pets/*'] }, want: true }],
    ['an operation glob', { given: { operations: ['delete*'] }, want: true }],
    ['a tag', { given: { tags: ['store', 'pets'] }, want: true }],
    ['the toolset, by exact name', { given: { toolsets: ['admin', 'pets'] }, want: true }],
    ['another toolset', { given: { toolsets: ['admin'] }, want: false }],
    ['a toolset is not a glob', { given: { toolsets: ['pet*'] }, want: false }],
    ['an empty toolset list matches nothing', { given: { toolsets: [] }, want: false }],
    ['all criteria match', { given: { methods: ['DELETE'], tags: ['pets'], operations: ['*Pet'], toolsets: ['pets'] }, want: true }],
    ['one criterion of several fails (tags)', { given: { methods: ['DELETE'], tags: ['store'] }, want: false }],
    ['one criterion of several fails (toolsets)', { given: { methods: ['DELETE'], toolsets: ['store'] }, want: false }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(scopeRuleMatches({ ...given, scopes: ['s'] }, pet)).toBe(want);
  });

  it('an operation glob never matches a tool without an operationId', () => {
    const { operationId: _id, ...anonymous } = pet;
    expect(scopeRuleMatches({ operations: ['**'], scopes: [] }, anonymous)).toBe(false);
  });
});

describe('scopesFor: the first matching rule, its scopes once each in its order', () => {
  const cases: [string, { given: ScopeRule[]; want: string[] | undefined }][] = [
    ['no rules: no scopes', { given: [], want: undefined }],
    ['no rule matches: no scopes', { given: [{ methods: ['GET'], scopes: ['r'] }], want: undefined }],
    [
      'first match wins',
      {
        given: [
          { tags: ['pets'], scopes: ['a'] },
          { methods: ['DELETE'], scopes: ['b'] },
        ],
        want: ['a'],
      },
    ],
    ['a later rule when the first does not match', { given: [{ tags: ['x'], scopes: ['a'] }, { scopes: ['b'] }], want: ['b'] }],
    ['[]: no scope needed', { given: [{ operations: ['deletePet'], scopes: [] }, { scopes: ['b'] }], want: [] }],
    ['deduplicated, in order', { given: [{ scopes: ['w', 'd', 'w', 'a', 'd'] }], want: ['w', 'd', 'a'] }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(scopesFor(given, pet)).toEqual(want);
  });

  it('does not hand out the rule’s own list', () => {
    const rule: ScopeRule = { scopes: ['a'] };
    const scopes = scopesFor([rule], pet);
    scopes?.push('b');
    expect(rule.scopes).toEqual(['a']);
  });
});

describe('unusedScopeRules: a rule that sets no tool’s scopes, by index and why', () => {
  const rules: ScopeRule[] = [{ scopes: ['a'] }, { tags: ['pets'], scopes: ['b'] }, { tags: ['nothing'], scopes: ['c'] }];
  it('notes matches and first matches, and warns for the shadowed and the unmatched rule', () => {
    const use: ScopeRuleUse = { matched: new Set(), won: new Set() };
    scopesFor(rules, pet, use);
    expect(use).toEqual({ matched: new Set([0, 1]), won: new Set([0]) });
    expect(unusedScopeRules(rules, use)).toEqual([
      {
        code: 'unused-scope-rule',
        message: `config "scopes"[1] sets no tool's scopes: every tool it matches is matched by an earlier rule first (first match wins)`,
      },
      { code: 'unused-scope-rule', message: `config "scopes"[2] sets no tool's scopes: it matches no tool` },
    ]);
  });
});

describe('isScopeToken: RFC 6749 §3.3 scope-token', () => {
  const cases: [string, { given: string; want: boolean }][] = [
    ['a plain scope', { given: 'mcp:read', want: true }],
    ['a URL scope', { given: 'https://api.example.com/auth/pets.readonly', want: true }],
    ['the printable ends, ! and ~', { given: '!~', want: true }],
    ['# and [ and ] (around the excluded ")', { given: '#[]', want: true }],
    ['empty', { given: '', want: false }],
    ['a space', { given: 'a b', want: false }],
    ['a double quote', { given: 'a"b', want: false }],
    ['a backslash', { given: 'a\\b', want: false }],
    ['a control character', { given: 'a\tb', want: false }],
    ['non-ASCII', { given: 'é', want: false }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(isScopeToken(given)).toBe(want);
  });
});

describe('buildModel writes the scopes into the tools', () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 'T', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: {
      '/pets': { get: { operationId: 'listPets', tags: ['pets'] }, post: { operationId: 'addPet', tags: ['pets'] } },
      '/admin/users': { delete: { operationId: 'purgeUsers', tags: ['users'] } },
    },
  };
  const model = (options: Parameters<typeof buildModel>[1]) =>
    buildModel({ doc: structuredClone(doc), specVersion: '3.0.3', source: 's.yaml', warnings: [] }, options);

  it('by toolset after toolset assignment, method and operation; untouched tools carry no scopes field', () => {
    const { table, report } = model({
      toolsets: { admin: { paths: ['/admin/**'] } },
      scopes: [
        { toolsets: ['admin'], scopes: ['api:admin'] },
        { methods: ['DELETE'], scopes: ['api:delete'] },
        { operations: ['listPets'], scopes: [] },
      ],
    });
    const scopes = Object.fromEntries(table.tools.map((t) => [t.name, 'scopes' in t ? t.scopes : 'absent']));
    expect(scopes).toEqual({ listPets: [], addPet: 'absent', purgeUsers: ['api:admin'] });
    expect(report.warnings.filter((w) => w.code === 'unused-scope-rule').map((w) => w.message)).toEqual([
      `config "scopes"[1] sets no tool's scopes: every tool it matches is matched by an earlier rule first (first match wins)`,
    ]);
  });

  it('no rules: the same table as before rules existed', () => {
    const { table, report } = model({});
    expect(table.tools.some((t) => 'scopes' in t)).toBe(false);
    expect(report.warnings.some((w) => w.code === 'unused-scope-rule')).toBe(false);
  });

  it('a rule for an operation that is left out matches no tool', () => {
    const { table, report } = model({ excludeTags: ['users'], scopes: [{ operations: ['purgeUsers'], scopes: ['x'] }] });
    expect(table.tools.map((t) => t.name)).toEqual(['listPets', 'addPet']);
    expect(report.warnings.filter((w) => w.code === 'unused-scope-rule').map((w) => w.message)).toEqual([
      `config "scopes"[0] sets no tool's scopes: it matches no tool`,
    ]);
  });
});
