// Sealing records that leave the process (the token store's, the shared operation store's):
// AES-256-GCM under the keys of MCP_TOKEN_STORE_KEY, the first of which seals and all of which
// open (rotation). Each record names its key and is bound to its own name by the AAD, so a record
// moved under another name, or altered, opens as nothing.
import { fromBase64, randomBytes, sha256, toBase64Url, toHex, utf8Bytes } from '../start/crypto.js';

/** A key value that is missing or not 32 bytes: one line naming which key of the list, never the key. */
export class SealingKeyError extends Error {}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEAL_VERSION = 'v1';
const HOW_TO_MAKE_A_KEY = 'make one with: openssl rand -base64 32';

/** Web Crypto's key and AES-GCM parameters, named from the global (the compiler's lib has no DOM). */
type CryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
type AesGcmParams = Extract<Parameters<typeof crypto.subtle.encrypt>[0], { iv: unknown }>;

interface SealingKey {
  /** First 8 hex digits of SHA-256 of the key: names the key in each sealed record. */
  id: string;
  /** The key for Web Crypto's AES-GCM, imported on first use (importKey is async). */
  secret: () => Promise<CryptoKey>;
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
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? fromBase64(text) : undefined;
  if (bytes?.length !== KEY_BYTES) {
    // never the key itself: only which one of the list is wrong
    const which = count > 1 ? ` (key ${index + 1} of ${count})` : '';
    throw new SealingKeyError(`MCP_TOKEN_STORE_KEY${which} is not ${KEY_BYTES} bytes in base64 or base64url (${HOW_TO_MAKE_A_KEY})`);
  }
  let imported: Promise<CryptoKey> | undefined;
  const secret = () => (imported ??= crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt']));
  return { id: toHex(sha256(bytes)).slice(0, 8), secret };
}

/** `v1.<key id>.<iv>.<ciphertext and tag>`, base64url; the AAD binds the record to its key. */
export async function seal(ring: KeyRing, aad: string, value: unknown): Promise<string> {
  const iv = randomBytes(IV_BYTES);
  const plain = utf8Bytes(JSON.stringify(value) ?? 'null');
  // Web Crypto's AES-GCM output is the ciphertext followed by its 16-byte tag: v1's layout.
  const sealed = await crypto.subtle.encrypt(gcm(iv, aad), await ring.current.secret(), plain);
  return [SEAL_VERSION, ring.current.id, toBase64Url(iv), toBase64Url(new Uint8Array(sealed))].join('.');
}

/** The value, or undefined when no key of the ring opens it (an unknown key id, another AAD, altered bytes). */
export async function unseal(ring: KeyRing, aad: string, text: string): Promise<{ value: unknown } | undefined> {
  const [version, id, ivText, sealedText, extra] = text.split('.');
  const key = id === undefined ? undefined : ring.byId.get(id);
  if (version !== SEAL_VERSION || !key || ivText === undefined || sealedText === undefined || extra !== undefined) return undefined;
  const iv = fromBase64(ivText);
  const sealed = fromBase64(sealedText);
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(gcm(iv, aad), await key.secret(), sealed);
    return { value: JSON.parse(new TextDecoder().decode(plain)) };
  } catch {
    return undefined;
  }
}

const gcm = (iv: Uint8Array<ArrayBuffer>, aad: string): AesGcmParams => ({
  name: 'AES-GCM',
  iv,
  additionalData: utf8Bytes(aad),
  tagLength: TAG_BYTES * 8,
});
