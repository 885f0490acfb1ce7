// Random secrets and digests of the OAuth modes, by Web Crypto (globalThis.crypto), which Node,
// workerd and Deno all have: nothing here needs node:crypto.

/** `bytes` random bytes as base64url text (RFC 4648 §5), e.g. 32 for a token. */
export function randomText(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** SHA-256 of the text's UTF-8 bytes, as base64url (PKCE's S256, RFC 7636 §4.2). */
export async function sha256Base64url(text: string): Promise<string> {
  return base64url(await sha256(text));
}

/** SHA-256 of the text's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  return [...(await sha256(text))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Base64 (RFC 4648 §4) to UTF-8 text (bytes that are no UTF-8 become U+FFFD); undefined when it is not base64. */
export function fromBase64(text: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
