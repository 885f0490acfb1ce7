// Hashing, randomness and byte encodings the same on every platform: Web Crypto's randomness
// (Node 20+, Deno, workerd) and a small SHA-256 of our own, since Web Crypto's digest is async
// and the call sites that name a record or compare a token are not (FIPS 180-4 §6.2). No
// node:crypto and no Buffer, which workerd has only with its Node compatibility flag.

const utf8 = new TextEncoder();

/** The UTF-8 bytes of a text. */
export const utf8Bytes = (text: string): Uint8Array<ArrayBuffer> => utf8.encode(text);

/** A header's bytes as Node's HTTP server reads them: latin1, one byte per character. */
export const latin1Bytes = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff);

/** `count` random bytes from the platform's CSPRNG. */
export const randomBytes = (count: number): Uint8Array<ArrayBuffer> => crypto.getRandomValues(new Uint8Array(count));

/** Equal-length digests compared without an early exit. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  let differ = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) differ |= (a[i] as number) ^ (b[i] as number);
  return differ === 0;
}

export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * Base64 (RFC 4648 §4) with padding, or base64url (§5) without: btoa, a web standard, over the
 * bytes as a binary string made 1 KiB at a time (measured on Node 20: 7 ms per MB, Buffer 1 ms;
 * larger chunks, or spreading them, cost up to 100 ms per MB).
 */
export function toBase64(bytes: Uint8Array, url = false): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 1024)
    binary += String.fromCharCode.apply(null, bytes.subarray(at, at + 1024) as unknown as number[]);
  const text = btoa(binary);
  return url ? text.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_') : text;
}

export const toBase64Url = (bytes: Uint8Array): string => toBase64(bytes, true);

/**
 * Base64 or base64url, padded or not, read as Node's Buffer reads it: up to the first `=`,
 * characters of neither alphabet skipped, a last lone character dropped.
 */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const standard = (text.split('=', 1)[0] as string)
    .replace(/[^A-Za-z0-9+/_-]/g, '')
    .replaceAll('-', '+')
    .replaceAll('_', '/');
  const whole = standard.length % 4 === 1 ? standard.slice(0, -1) : standard;
  const binary = atob(whole);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** SHA-256 of a text's UTF-8 bytes, or of bytes. */
export function sha256(input: string | Uint8Array): Uint8Array {
  const message = typeof input === 'string' ? utf8Bytes(input) : input;
  const padded = new Uint8Array((((message.length + 8) >> 6) + 1) << 6);
  padded.set(message);
  padded[message.length] = 0x80;
  const bits = message.length * 8;
  for (let i = 1; i <= 8; i++) padded[padded.length - i] = Math.floor(bits / 2 ** (8 * (i - 1))) & 0xff;
  const state = Int32Array.from(INITIAL_HASH);
  for (let block = 0; block < padded.length; block += 64) compress(state, padded, block);
  const digest = new Uint8Array(32);
  for (let i = 0; i < 32; i++) digest[i] = ((state[i >> 2] as number) >>> (24 - 8 * (i & 3))) & 0xff;
  return digest;
}

/** The message schedule, reused: sha256 never runs twice at once. */
const SCHEDULE = new Int32Array(64);

/** One 64-byte block into the state (FIPS 180-4 §6.2.2). */
function compress(state: Int32Array, bytes: Uint8Array, block: number): void {
  const w = SCHEDULE;
  for (let t = 0, at = block; t < 16; t++, at += 4) {
    w[t] = ((bytes[at] as number) << 24) | ((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number);
  }
  for (let t = 16; t < 64; t++) {
    const w15 = w[t - 15] as number;
    const w2 = w[t - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
  }
  let a = state[0] as number,
    b = state[1] as number,
    c = state[2] as number,
    d = state[3] as number;
  let e = state[4] as number,
    f = state[5] as number,
    g = state[6] as number,
    h = state[7] as number;
  for (let t = 0; t < 64; t++) {
    const sigma1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + sigma1 + ((e & f) ^ (~e & g)) + (ROUND[t] as number) + (w[t] as number)) | 0;
    const sigma0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (sigma0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] as number) + a;
  state[1] = (state[1] as number) + b;
  state[2] = (state[2] as number) + c;
  state[3] = (state[3] as number) + d;
  state[4] = (state[4] as number) + e;
  state[5] = (state[5] as number) + f;
  state[6] = (state[6] as number) + g;
  state[7] = (state[7] as number) + h;
}

const INITIAL_HASH = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

// prettier-ignore
const ROUND = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
