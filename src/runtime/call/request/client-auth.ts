// How this server authenticates as an OAuth client to an authorization server (RFC 6749 §2.3.1):
// always loaded, for the token client of client-credentials.ts and the OAuth rooms alike.

/**
 * The Authorization header of client_secret_basic (RFC 6749 §2.3.1): id and secret each
 * form-encoded, then joined and base64-encoded. Every request of this server to an
 * authorization server as its client uses it (client credentials, introspection, token exchange).
 */
export function clientSecretBasic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`, 'utf8').toString('base64')}`;
}

/** application/x-www-form-urlencoded, as RFC 6749 Appendix B specifies it (space as `+`). */
export function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
