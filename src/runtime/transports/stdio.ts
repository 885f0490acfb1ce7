// stdio: one client, one connection; the SDK picks the protocol era from the first message.

import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../start/log.js';
import type { ServerFactory } from '../mcp/server.js';

export async function startStdio(factory: ServerFactory, log: Logger): Promise<void> {
  // One instance per connection, whatever the era: the connection is the session.
  serveStdio(() => factory('session'), {
    onerror: (error) => {
      // The SDK's line reader (10 MB by default) closes the transport on a longer message and
      // stdin stops: exit 1 with the reason, not 0 with no word.
      const limit = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(error.message)?.[1];
      if (limit === undefined) return log.warn(`stdio: ${error.message}`);
      process.stderr.write(`stdio: a message of more than ${limit} bytes arrived; closing\n`);
      process.exit(1);
    },
  });
  // The client closing our stdin ends the session: exit even if upstream sockets linger.
  // The spans still buffered go to the collector first (a tracing server only, at most 2 s);
  // observe.ts is loaded with the tool table, not before initialize.
  const flush = async () => (await import('../observe/observe.js')).flushTelemetry();
  process.stdin.once('end', () => void flush().finally(() => setTimeout(() => process.exit(0), 100).unref()));
  log.info('serving MCP over stdio');
}
