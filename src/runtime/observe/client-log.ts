// Log messages to the MCP client (notifications/message), for a 2025-era client that asked for
// them with logging/setLevel: what a user watching the client's log wants of a call — its
// retries and waits, the API's error answers, a long-running operation's progress — at the level
// set, a few lines per call at most, never an argument value or a secret (the lines name route
// templates and statuses only). 2026-07-28 deprecates logging (SEP-2577): its clients get none.
// Sent through the SDK's own sendLoggingMessage, on the session's stream for what the server
// starts (a call answered in JSON has no stream of its own to carry them).

import { PROTOCOL_VERSION_META_KEY, type LoggingLevel, type Server, type ServerContext } from '@modelcontextprotocol/server';

/** One message of a call to the client's log; dropped below the level the client set. */
export type ClientLog = (level: 'info' | 'warning' | 'error', text: string) => void;

/** Messages one call sends at most: the last of them says that more were left out. */
const MAX_PER_CALL = 5;
/** RFC 5424 severities, least severe first, as MCP's LoggingLevel orders them. */
const SEVERITY: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const LOGGER = 'mcp-gen';

/** The level each instance's client set; absent until it sets one, and then nothing is sent. */
const levels = new WeakMap<Server, LoggingLevel>();

/**
 * Answers logging/setLevel on `server` by keeping the level for its calls. Replaces the SDK's
 * handler, which would make sendLoggingMessage send everything to a client that never asked.
 */
export function keepClientLogLevel(server: Server): void {
  server.setRequestHandler('logging/setLevel', async (request) => {
    levels.set(server, request.params.level);
    return {};
  });
}

/** The log of one call for its client; undefined when it set no level, or speaks 2026-07-28. */
export function clientLogOf(server: Server, ctx: ServerContext): ClientLog | undefined {
  const threshold = levels.get(server);
  if (threshold === undefined || modern(server, ctx)) return undefined;
  let sent = 0;
  return (level, text) => {
    if (SEVERITY.indexOf(level) < SEVERITY.indexOf(threshold) || sent >= MAX_PER_CALL) return;
    sent++;
    const data = sent === MAX_PER_CALL ? `${text} (no more messages from this call)` : text;
    void server.sendLoggingMessage({ level, logger: LOGGER, data }, ctx.sessionId).catch(() => undefined);
  };
}

/** A 2026-07-28 request (its envelope), or a session that negotiated that version. */
function modern(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  // Protocol versions are dates: 2026-07-28 and after.
  return envelope?.[PROTOCOL_VERSION_META_KEY] !== undefined || (server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28';
}
