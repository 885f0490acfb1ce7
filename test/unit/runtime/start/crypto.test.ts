import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64, sha256, toBase64, toBase64Url, toHex } from '../../../../src/runtime/start/crypto.js';

// The platform-neutral helpers must give what node:crypto and Buffer gave, byte for byte:
// records sealed, handles hashed and cache keys made before keep their names.
const samples = ['', 'a', 'abc', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(63), 'x'.repeat(64), 'é€😀\0\u{10ffff}', 'y'.repeat(1000)];

describe('platform-neutral crypto', () => {
  it.each(samples)('sha256 of %j matches node:crypto', (text) => {
    expect(toHex(sha256(text))).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('base64 and base64url match Buffer for every length modulo 3', () => {
    for (let length = 0; length < 40; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + length * 31) & 0xff);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
      expect(fromBase64(toBase64(bytes))).toEqual(new Uint8Array(bytes));
      expect(fromBase64(toBase64Url(bytes))).toEqual(new Uint8Array(bytes));
    }
  });

  it.each(['aGVs bG8=', 'aGVsbG8', 'aGVsbG8=trailing', 'a-_b', 'aGVsbG8x2', '!!aGk*', '', '='])('reads %j as Buffer does', (text) => {
    expect(fromBase64(text)).toEqual(new Uint8Array(Buffer.from(text, 'base64')));
  });

  it('encodes a megabyte whole (chunked under the call-argument limit)', () => {
    const bytes = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 7) & 0xff);
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
  });
});
