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

/**
 * Counts a new session against the requesting client, given the `open` sessions of its
 * transport, or answers 503 (server full) or 429 (client full) and returns undefined. Call
 * `releaseSession` with the returned key when the session ends.
 */
export function claimSession(
  req: IncomingMessage,
  res: ServerResponse,
  config: Pick<ServerConfig, 'maxSessions' | 'maxSessionsPerClient'>,
  open: number,
): string | undefined {
  if (open >= config.maxSessions) {
    jsonRpcError(res, 503, -32000, `Too many open sessions (${config.maxSessions}); close one or try later`);
    return undefined;
  }
  const client = clientAddress(req.socket);
  if (!sessionsByClient.take(client, config.maxSessionsPerClient)) {
    jsonRpcError(
      res,
      429,
      -32000,
      `Too many open sessions from ${client} (${config.maxSessionsPerClient}); close one (DELETE /mcp, or end the SSE stream) or wait for it to go idle`,
    );
    return undefined;
  }
  return client;
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
