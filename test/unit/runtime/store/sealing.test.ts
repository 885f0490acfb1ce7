import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseKeyRing, seal, unseal } from '../../../../src/runtime/store/sealing.js';

// Records outlive a release in Redis or KV: what node:crypto sealed must open under Web Crypto,
// and the other way round, in the same `v1.<key id>.<iv>.<ciphertext and tag>` format.
const key = randomBytes(32);
const ring = parseKeyRing(key.toString('base64'));
const keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);

function sealWithNode(aad: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad, 'utf8'));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return ['v1', keyId, iv.toString('base64url'), sealed.toString('base64url')].join('.');
}

function unsealWithNode(aad: string, text: string): unknown {
  const [, id, ivText, sealedText] = text.split('.') as [string, string, string, string];
  expect(id).toBe(keyId);
  const sealed = Buffer.from(sealedText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url')).setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString('utf8'));
}

describe('sealing', () => {
  const value = { token: 'é€😀', n: 1 };

  it('opens a record sealed by node:crypto', async () => {
    expect(await unseal(ring, 'api\0grant', sealWithNode('api\0grant', value))).toEqual({ value });
  });

  it('seals a record node:crypto opens', async () => {
    expect(unsealWithNode('api\0grant', await seal(ring, 'api\0grant', value))).toEqual(value);
  });

  it('opens nothing under another name or with altered bytes', async () => {
    const sealed = await seal(ring, 'api\0grant', value);
    expect(await unseal(ring, 'api\0other', sealed)).toBeUndefined();
    // Not the last character: in base64 its low bits may be padding, which decoding ignores.
    const at = sealed.length - 8;
    const altered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    expect(await unseal(ring, 'api\0grant', altered)).toBeUndefined();
  });
});
