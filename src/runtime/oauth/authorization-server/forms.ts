// The HTTP pieces the sign-in endpoints share (oauth-server.ts, oauth-link.ts): bounded form
// bodies, cookies that bind a step to the browser that started it, redirects and JSON answers
// that no cache keeps, and a comparison of secrets in constant time.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a started sign-in waits for the user: also the lifetime of the cookies that bind it. */
export const PENDING_TTL_MS = 600_000;
const MAX_FORM_BYTES = 16_384;

export async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) return undefined;
  const text = await readText(req);
  return text === undefined ? undefined : new URLSearchParams(text);
}

/** The body as text, or undefined above MAX_FORM_BYTES. */
export async function readText(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
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

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export function sameSecret(a: string | null | undefined, b: string): boolean {
  if (a === null || a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).end();
}

export function sendJson(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' });
  res.end(JSON.stringify(body));
}
