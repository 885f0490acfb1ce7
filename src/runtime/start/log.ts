// Logs go to stderr only (under stdio, stdout belongs to the protocol), or to the console on a
// platform without one (web/web-server.ts).

import type { LogLevel } from './config.js';
import { terminalLine } from '../../contract/visible-text.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Start-up facts a person needs (where the server listens): shown at every level but silent. */
  notice(message: string): void;
}

/**
 * Each message one line, its control characters as escapes (visible-text.ts): messages quote what
 * clients, upstreams and specs sent (a client ID, an error), and the log is often a terminal.
 */
export function createLogger(name: string, level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const at = (wanted: LogLevel) => (message: string) => {
    if (RANK[wanted] >= RANK[level]) write(`[${name}] ${wanted}: ${terminalLine(message)}\n`);
  };
  const notice = (message: string) => {
    if (level !== 'silent') write(`[${name}] ${terminalLine(message)}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), notice };
}
