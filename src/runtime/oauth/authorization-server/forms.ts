// The HTTP pieces the sign-in endpoints share (authorization-server.ts, link.ts), on web-standard
// Request and Response: bounded form bodies, cookies that bind a step to the browser that started
// it, redirects and JSON answers that no cache keeps, and a comparison of secrets in constant time.

import { validateHostHeader } from '@modelcontextprotocol/server';
import { equalBytes } from '../../start/crypto.js';
import { readText as readBounded } from '../../web/web-steps.js';

/** How long a started sign-in waits for the user: also the lifetime of the cookies that bind it. */
export const PENDING_TTL_MS = 600_000;
const MAX_FORM_BYTES = 16_384;

export async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) return undefined;
  const text = await readText(request);
  return text === undefined ? undefined : new URLSearchParams(text);
}

/** The body as text, or undefined above MAX_FORM_BYTES. */
export function readText(request: Request): Promise<string | undefined> {
  return readBounded(request, MAX_FORM_BYTES);
}

export function cookie(
  name: string,
  value: string,
  path: string,
  sameSite: 'Strict' | 'Lax',
  secure: boolean,
  maxAge = PENDING_TTL_MS / 1000,
): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=${sameSite}${secure ? '; Secure' : ''}`;
}

export function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export function sameSecret(a: string | null | undefined, b: string): boolean {
  if (a === null || a === undefined) return false;
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && equalBytes(x, y);
}

/** A 302 to `location`; `headers` adds to it (cookies). */
export function redirect(location: string, headers: [string, string][] = []): Response {
  const answer = new Headers(headers);
  answer.set('location', location);
  answer.set('cache-control', 'no-store');
  answer.set('referrer-policy', 'no-referrer');
  return new Response(null, { status: 302, headers: answer });
}

export function jsonAnswer(status: number, body: object, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...headers },
  });
}

/** The 403 of a Host that is not this server's (DNS rebinding), as the SDK's Node guard answers it. */
export function hostRefusal(request: Request, hosts: string[]): Response | undefined {
  const checked = validateHostHeader(request.headers.get('host'), hosts);
  if (checked.ok) return undefined;
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: checked.message }, id: null }, { status: 403 });
}
