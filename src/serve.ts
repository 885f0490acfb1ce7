// `mcp-gen serve <spec>`: parse and model the spec as `generate` does, then hand the tool table
// to the runtime of a generated server, in memory. No project, no build: the quickest way to
// try an API, and what a container runs. The only generator module that loads the server runtime
// (src/runtime): the boundary check allows it here and nowhere else.

import { resolve } from 'node:path';
import { modelFromOptions } from './generate.js';
import type { UserOptions } from './options.js';
import { isNamespacedBaseUrl } from './flags.js';
import { formatWarning } from './warnings.js';
import { terminalLine } from './contract/visible-text.js';
import { credentialSummary } from './model/auth.js';
import { apiLines } from './model/apis.js';
import { SERVER_OPTIONS, USAGE as SERVER_USAGE } from './runtime/start/command-line.js';

export { SERVER_OPTIONS, SERVER_USAGE };

/**
 * Splits serve's arguments: the server's options (SERVER_OPTIONS, with their values) go to the
 * runtime, all else (the spec and the generator's options) to the model. After `--`, everything
 * is the server's.
 */
export function splitServeArgs(argv: string[]): { model: string[]; server: string[] } {
  const model: string[] = [];
  const server: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      server.push(...argv.slice(i + 1));
      break;
    }
    const option = /^--([^=]+)(=.*)?$/.exec(token);
    const spec = option ? (SERVER_OPTIONS as Record<string, { type: string }>)[option[1] as string] : undefined;
    // --base-url <namespace>=<url> chooses an API's upstream in the table; a plain URL is the server's
    const namespaced = option?.[1] === 'base-url' && isNamespacedBaseUrl(option[2]?.slice(1) ?? argv[i + 1] ?? '');
    if (!option || !spec || option[1] === 'help' || namespaced) {
      model.push(token);
      continue;
    }
    server.push(token);
    if (spec.type === 'string' && option[2] === undefined && i + 1 < argv.length) server.push(argv[++i] as string);
  }
  return { model, server };
}

/** Builds the tool table from the spec and serves it until the process is stopped. */
export async function serveSpec(options: UserOptions, serverArgv: string[]): Promise<void> {
  const { model } = await modelFromOptions(options, 'serve');
  const { table, report } = model;
  // stdout may be the MCP channel (stdio): everything for people goes to stderr.
  const say = (line: string) => process.stderr.write(`mcp-gen serve: ${terminalLine(line)}\n`);
  say(
    `${table.title ?? table.name}: ${table.tools.length} tool${table.tools.length === 1 ? '' : 's'}, tools/list ${table.serve?.mode ?? 'direct'} by default${report.skipped.length ? `, ${report.skipped.length} operation${report.skipped.length === 1 ? '' : 's'} skipped` : ''}`,
  );
  for (const line of apiLines(table)) say(line);
  for (const warning of report.warnings) say(`warning: ${formatWarning(warning)}`);
  const credentials = credentialSummary(table);
  if (credentials) say(`credentials read from the environment or .env: ${credentials}`);
  const runtime = await import('./runtime/main.js');
  runtime.loadEnvFile(resolve('.env'));
  await runtime.serveTable(table, {}, serverArgv);
}
