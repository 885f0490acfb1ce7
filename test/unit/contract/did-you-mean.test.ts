// nearest / didYouMean (src/contract/did-you-mean.ts): a typo finds the name meant; a word that
// is no typo of any known name finds nothing, rather than a misleading guess.
import { describe, expect, it } from 'vitest';
import { didYouMean, nearest } from '../../../src/contract/did-you-mean.js';

describe('nearest', () => {
  const flags = ['--transport', '--port', '--toolsets', '--tools', '--timeout'];
  it.each([
    ['a swapped pair', '--trasnport', flags, '--transport'],
    ['a missing letter', '--toolset', flags, '--toolsets'],
    ['an extra letter', '--portt', flags, '--port'],
    ['case is ignored', 'ISUES', ['issues', 'pulls'], 'issues'],
    ['the closest of several', 'tols', ['tools', 'toolsets'], 'tools'],
    ['nothing close', '--zzzzzz', flags, undefined],
    ['a short word is not a typo of a long one', 'a', ['actions', 'apps'], undefined],
    ['no names known', 'x', [], undefined],
  ])('%s: %s', (_what, given, known, want) => {
    expect(nearest(given, known)).toBe(want);
  });
});

describe('didYouMean', () => {
  it('wraps the suggestion, quoted as asked, or says nothing', () => {
    expect(didYouMean('stor', ['pet', 'store'], (n) => JSON.stringify(n))).toBe(' (did you mean "store"?)');
    expect(didYouMean('billing', ['pet', 'store'])).toBe('');
  });
});
