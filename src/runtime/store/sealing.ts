// Sealing records that leave the process (the token store's, the shared operation store's):
// AES-256-GCM under the keys of MCP_TOKEN_STORE_KEY, the first of which seals and all of which
// open (rotation). Each record names its key and is bound to its own name by the AAD, so a record
// moved under another name, or altered, opens as nothing.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A key value that is missing or not 32 bytes: one line naming which key of the list, never the key. */
export class SealingKeyError extends Error {}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEAL_VERSION = 'v1';
const HOW_TO_MAKE_A_KEY = 'make one with: openssl rand -base64 32';

interface SealingKey {
  /** First 8 hex digits of SHA-256 of the key: names the key in each sealed record. */
  id: string;
  secret: Buffer;
}

export interface KeyRing {
  /** Seals every write. */
  current: SealingKey;
  /** Opens records sealed by any key of the ring, the current one included. */
  byId: Map<string, SealingKey>;
}

export function parseKeyRing(value: string): KeyRing {
  const texts = value.split(',').map((text) => text.trim());
  if (value.trim() === '') throw new SealingKeyError(`MCP_TOKEN_STORE_KEY is not set (${HOW_TO_MAKE_A_KEY})`);
  const keys = texts.map((text, index) => parseKey(text, index, texts.length));
  return { current: keys[0]!, byId: new Map(keys.map((key) => [key.id, key])) };
}

function parseKey(text: string, index: number, count: number): SealingKey {
  const secret = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (secret?.length !== KEY_BYTES) {
    // never the key itself: only which one of the list is wrong
    const which = count > 1 ? ` (key ${index + 1} of ${count})` : '';
    throw new SealingKeyError(`MCP_TOKEN_STORE_KEY${which} is not ${KEY_BYTES} bytes in base64 or base64url (${HOW_TO_MAKE_A_KEY})`);
  }
  return { id: createHash('sha256').update(secret).digest('hex').slice(0, 8), secret };
}

/** `v1.<key id>.<iv>.<ciphertext and tag>`, base64url; the AAD binds the record to its key. */
export function seal(ring: KeyRing, aad: Buffer, value: unknown): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', ring.current.secret, iv).setAAD(aad);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value) ?? 'null', 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [SEAL_VERSION, ring.current.id, iv.toString('base64url'), sealed.toString('base64url')].join('.');
}

/** The value, or undefined when no key of the ring opens it (an unknown key id, another AAD, altered bytes). */
export function unseal(ring: KeyRing, aad: Buffer, text: string): { value: unknown } | undefined {
  const [version, id, ivText, sealedText, extra] = text.split('.');
  const key = id === undefined ? undefined : ring.byId.get(id);
  if (version !== SEAL_VERSION || !key || ivText === undefined || sealedText === undefined || extra !== undefined) return undefined;
  const iv = Buffer.from(ivText, 'base64url');
  const sealed = Buffer.from(sealedText, 'base64url');
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.secret, iv).setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
    return { value: JSON.parse(plain.toString('utf8')) };
  } catch {
    return undefined;
  }
}
