// Following $refs within the document (src/parse/pointer.ts).
import { describe, expect, it } from 'vitest';
import { followRefs, type Json, type JsonObject, type NonLocalRef } from '../../../src/parse/pointer.js';

describe('followRefs', () => {
  const doc: JsonObject = {
    components: {
      schemas: {
        A: { $ref: '#/components/schemas/B' },
        B: { type: 'string' },
        Loop1: { $ref: '#/components/schemas/Loop2' },
        Loop2: { $ref: '#/components/schemas/Loop1' },
        'a/b': { type: 'integer' },
      },
    },
  };
  const cases: [string, { given: { node: Json | undefined; nonLocal?: NonLocalRef }; want: Json | undefined }][] = [
    ['not a ref: the node itself', { given: { node: { type: 'object' } }, want: { type: 'object' } }],
    ['a chain of refs', { given: { node: { $ref: '#/components/schemas/A' } }, want: { type: 'string' } }],
    ['an escaped token', { given: { node: { $ref: '#/components/schemas/a~1b' } }, want: { type: 'integer' } }],
    ['a pointer to nothing', { given: { node: { $ref: '#/components/schemas/Nope' } }, want: undefined }],
    [
      'a loop ends where it closes',
      { given: { node: { $ref: '#/components/schemas/Loop1' } }, want: { $ref: '#/components/schemas/Loop1' } },
    ],
    ['another file, dropped by default', { given: { node: { $ref: 'other.yaml#/X' } }, want: undefined }],
    ['another file, kept when asked', { given: { node: { $ref: 'other.yaml#/X' }, nonLocal: 'keep' }, want: { $ref: 'other.yaml#/X' } }],
    ['a local pointer to nothing is nothing, even with keep', { given: { node: { $ref: '#/nope' }, nonLocal: 'keep' }, want: undefined }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(followRefs(doc, given.node, given.nonLocal)).toEqual(want);
  });

  it('follows a chain of 10,000 refs without growing the stack', () => {
    const schemas: JsonObject = { end: { type: 'boolean' } };
    for (let i = 0; i < 10_000; i++) schemas[`s${i}`] = { $ref: i === 9_999 ? '#/schemas/end' : `#/schemas/s${i + 1}` };
    expect(followRefs({ schemas }, { $ref: '#/schemas/s0' })).toEqual({ type: 'boolean' });
  });
});
