// stdio: one client, one connection; the SDK picks the protocol era from the first message.

import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from './log.js';
import type { ServerFactory } from './server.js';

export async function startStdio(factory: ServerFactory, log: Logger): Promise<void> {
  serveStdio(factory, { onerror: (error) => log.warn(`stdio: ${error.message}`) });
  // The client closing our stdin ends the session: exit even if upstream sockets linger.
  process.stdin.once('end', () => setTimeout(() => process.exit(0), 100).unref());
  log.info('serving MCP over stdio');
}
