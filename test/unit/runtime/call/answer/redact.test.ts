// redact() (src/runtime/call/answer/redact.ts) remembers the forms of each secret set it is
// given: each set must still get its own forms, whatever sets came before.
import { describe, expect, it } from 'vitest';
import { redact } from '../../../../../src/runtime/call/answer/redact.js';

describe('redact', () => {
  it('takes out each secret as sent: as it is, percent-encoded and base64', () => {
    const secret = 'p@ss w/rd!';
    const text = `raw ${secret} encoded ${encodeURIComponent(secret)} basic ${Buffer.from(secret).toString('base64')}`;
    expect(redact(text, [secret])).toBe('raw *** encoded *** basic ***');
  });

  it('gives each secret set its own forms, also sets that join to the same text', () => {
    expect(redact('abcd efgh', ['abcd', 'efgh'])).toBe('*** ***');
    expect(redact('abcd efgh', ['abcd\u0000efgh'])).toBe('abcd efgh');
    expect(redact('abcd efgh', ['abcd'])).toBe('*** efgh');
    expect(redact('abcd efgh', ['abcd', 'efgh'])).toBe('*** ***');
  });

  it('still redacts every set after more sets than it remembers', () => {
    for (let i = 0; i < 600; i++) expect(redact(`token-${i} and more`, [`token-${i}`])).toBe('*** and more');
  });

  it('takes out URL userinfo whatever the secrets', () => {
    expect(redact('see https://user:pw@example.com/x', [])).toBe('see https://***@example.com/x');
  });
});
