// Random secrets and digests of the OAuth modes, over the runtime's own Web Crypto helpers
// (start/crypto.ts), which Node, workerd and Deno all run: nothing here needs node:crypto.
import { randomBytes, sha256, toBase64Url } from '../start/crypto.js';

/** `bytes` random bytes as base64url text (RFC 4648 §5), e.g. 32 for a token. */
export function randomText(bytes: number): string {
  return toBase64Url(randomBytes(bytes));
}

/** SHA-256 of the text's UTF-8 bytes, as base64url (PKCE's S256, RFC 7636 §4.2). */
export async function sha256Base64url(text: string): Promise<string> {
  return toBase64Url(sha256(text));
}

/**
 * Base64 (RFC 4648 §4) to UTF-8 text (bytes that are no UTF-8 become U+FFFD); undefined when it
 * is not base64: strict here (atob), unlike start/crypto.ts's fromBase64, which reads as Buffer does.
 */
export function fromBase64(text: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
