// The Node server's command line: its flags parsed by node:util's parseArgs, then read with the
// environment by config.ts. A platform's web handler has no command line and never loads this.

import { parseArgs } from 'node:util';
import { envText, flagText, SETTINGS } from '../../contract/settings.js';
import { didYouMean } from '../../contract/did-you-mean.js';
import { ConfigError, configFrom, type FlagValues, type ServerConfig } from './config.js';

/** The settings from the command line and the environment; --help, --version and --clients instead when given. */
export function readConfig(argv: string[], env: NodeJS.ProcessEnv): ServerConfig | 'help' | 'version' | 'clients' {
  return configFrom(parseFlags(argv), env);
}

/** --help: every setting, its variable and default (settings.ts). */
export const USAGE = [
  'Options (each also settable by the environment variable in brackets):',
  ...SETTINGS.flatMap((s) => {
    const flag = flagText(s);
    // A flag wider than its column takes a line of its own, with its help below it.
    const [own, column] = flag.length < 29 ? [[], flag.padEnd(29)] : [[`  ${flag}`], ' '.repeat(29)];
    const head = `  ${column}${s.help}`;
    const tail = `[${envText(s)}]${s.default !== undefined ? ` (default: ${s.default})` : ''}`;
    // The variable and default go on a line of their own when they would run past ~100 columns.
    const lines = head.length + tail.length < 100 ? [`${head} ${tail}`] : [head, tail];
    return [...own, ...[...lines, ...(s.more ?? [])].map((line, i) => (i === 0 ? line : `${' '.repeat(31)}${line}`))];
  }),
  `  ${'--clients'.padEnd(29)}print the line that adds this server to each MCP client, with its real path`,
  `  ${'--version'.padEnd(29)}show the server's package name and version (also -v)`,
  `  ${'--help'.padEnd(29)}show this help`,
].join('\n');

/** Every server option and its kind, for parseArgs (and for `mcp-gen serve`, which splits its arguments by it). */
export const SERVER_OPTIONS: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
  ...Object.fromEntries(
    SETTINGS.map((s) => [
      s.flag,
      s.value === undefined ? { type: 'boolean' as const } : { type: 'string' as const, ...(s.multiple ? { multiple: true } : {}) },
    ]),
  ),
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  clients: { type: 'boolean' },
};

/** parseArgs' complaint in one line; an unknown flag with the nearest known one. */
function argumentError(error: Error & { code?: string }): string {
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(error.message);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const flag = unknown[1] as string;
    const known = Object.keys(SERVER_OPTIONS).map((name) => `--${name}`);
    return `unknown option ${flag}${didYouMean(flag.replace(/=.*$/, ''), known)}; --help lists the options`;
  }
  return error.message.split('\n')[0] ?? String(error);
}

function parseFlags(argv: string[]): FlagValues {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: SERVER_OPTIONS }).values as FlagValues;
  } catch (error) {
    throw new ConfigError(argumentError(error as Error & { code?: string }));
  }
}
