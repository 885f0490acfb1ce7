// One matcher for every rule that names operations (src/model/rules.ts).
import { describe, expect, it } from 'vitest';
import { globsMatch, globToRegExp, ruleMatches, type OperationCriteria } from '../../../src/model/rules.js';

describe('globToRegExp: * within a part, ** across parts, ? one character', () => {
  const cases: [string, { given: string; want: { yes: string[]; no: string[] } }][] = [
    ['a part', { given: '/pets/*', want: { yes: ['/pets/1', '/pets/'], no: ['/pets/1/toys', '/pets'] } }],
    ['across parts', { given: '/pets/**', want: { yes: ['/pets/1/toys', '/pets/'], no: ['/pet'] } }],
    ['one character', { given: 'get?', want: { yes: ['getA'], no: ['get', 'getAB', 'get/'] } }],
    ['regex characters are literal', { given: 'a.b+(c)', want: { yes: ['a.b+(c)'], no: ['aXb+(c)', 'abbc'] } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    for (const s of want.yes) expect(globToRegExp(given).test(s), s).toBe(true);
    for (const s of want.no) expect(globToRegExp(given).test(s), s).toBe(false);
  });

  it('globsMatch: any glob; a missing value matches none', () => {
    expect(globsMatch(['x*', 'get*'], 'getPet')).toBe(true);
    expect(globsMatch(['x*'], 'getPet')).toBe(false);
    expect(globsMatch(['**'], undefined)).toBe(false);
  });
});

describe('ruleMatches', () => {
  const ref = { method: 'get', path: '/pets/{id}', operationId: 'getPet', tags: ['pets'] };
  const cases: [string, { given: { rule: OperationCriteria; combine: 'all' | 'any'; operationId?: string | null }; want: boolean }][] = [
    [
      'all: every criterion given matches',
      { given: { rule: { methods: ['GET'], paths: ['/pets/*'], tags: ['pets'], operations: ['get*'] }, combine: 'all' }, want: true },
    ],
    ['all: one criterion fails', { given: { rule: { methods: ['post'], paths: ['/pets/*'] }, combine: 'all' }, want: false }],
    ['all: no criterion matches every operation', { given: { rule: {}, combine: 'all' }, want: true }],
    ['all: an empty list matches nothing', { given: { rule: { tags: [] }, combine: 'all' }, want: false }],
    ['any: one criterion is enough', { given: { rule: { tags: ['store'], paths: ['/pets/**'] }, combine: 'any' }, want: true }],
    ['any: no criterion matches nothing', { given: { rule: {}, combine: 'any' }, want: false }],
    [
      'operations never match an operation without an operationId',
      { given: { rule: { operations: ['**'] }, combine: 'any', operationId: null }, want: false },
    ],
    ['methods in any case', { given: { rule: { methods: ['Get'] }, combine: 'all' }, want: true }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    const { operationId: _id, ...rest } = ref;
    const facts = given.operationId === null ? rest : ref;
    expect(ruleMatches(given.rule, facts, given.combine)).toBe(want);
  });
});
