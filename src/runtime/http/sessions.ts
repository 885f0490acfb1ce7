// The session quota of both HTTP transports (Streamable HTTP and SSE sessions together): at
// most --max-sessions open, and at most --max-sessions-per-client from one IP address, so that
// one greedy client (1,000 sessions opened and never closed) cannot lock every other client out
// until its sessions go idle.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../start/config.js';
import { clientAddress } from './connections.js';
import { jsonRpcError } from './answer.js';

/** Open sessions by client address, against a cap. */
export class CountByAddress {
  private readonly open = new Map<string, number>();

  /** Counts one more for `address` and returns true, or returns false when it holds `max`. */
  take(address: string, max: number): boolean {
    const open = this.open.get(address) ?? 0;
    if (open >= max) return false;
    this.open.set(address, open + 1);
    return true;
  }

  /** Gives one back; returns how many `address` still holds. */
  give(address: string): number {
    const open = (this.open.get(address) ?? 1) - 1;
    if (open > 0) this.open.set(address, open);
    else this.open.delete(address);
    return open;
  }
}

const sessionsByClient = new CountByAddress();

/** sessionRefusal for a node:http request: answers the refusal itself and returns undefined then, else the client's key. */
export function claimSession(
  req: IncomingMessage,
  res: ServerResponse,
  config: Pick<ServerConfig, 'maxSessions' | 'maxSessionsPerClient'>,
  open: number,
): string | undefined {
  const client = clientAddress(req.socket);
  const refused = sessionRefusal(client, config, open);
  if (refused === undefined) return client;
  jsonRpcError(res, refused.status, -32000, refused.message);
  return undefined;
}

/**
 * Counts a new session of `client` (its address), given the `open` sessions of its transport;
 * or why it cannot open: 503 (server full) or 429 (client full). Call `releaseSession` with
 * `client` when a counted session ends.
 */
export function sessionRefusal(
  client: string,
  config: Pick<ServerConfig, 'maxSessions' | 'maxSessionsPerClient'>,
  open: number,
): { status: 503 | 429; message: string } | undefined {
  if (open >= config.maxSessions) return { status: 503, message: `Too many open sessions (${config.maxSessions}); close one or try later` };
  if (sessionsByClient.take(client, config.maxSessionsPerClient)) return undefined;
  return {
    status: 429,
    message: `Too many open sessions from ${client} (${config.maxSessionsPerClient}); close one (DELETE /mcp, or end the SSE stream) or wait for it to go idle`,
  };
}

export function releaseSession(client: string): void {
  sessionsByClient.give(client);
}

/**
 * Who a request comes from, when an OAuth token says so (oauth.ts sets `req.auth`): its subject,
 * else its client. A session remembers who opened it and serves no one else, so that a leaked
 * session id is no way in (MCP: sessions are not authentication).
 */
export function identityOf(req: IncomingMessage): string | undefined {
  return callerIdentity((req as IncomingMessage & { auth?: AuthInfo }).auth);
}

/** The identity of a verified token (see identityOf), on every platform: a Durable Object's session is bound to it too. */
export function callerIdentity(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  const subject = auth.extra?.subject;
  return typeof subject === 'string' ? `sub:${subject}` : `client:${auth.clientId}`;
}
