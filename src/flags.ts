// The command line's flags and what they mean as options. Most flags are named as their option
// (--read-only is readOnly); the few that are not are renamed in optionsFromFlags, and nowhere
// else.

import { InvalidArgumentError, type Command } from 'commander';
import { MODEL_DEFAULTS, RESOURCE_PRESETS, TOOL_MODES, type ResourcePreset, type ToolModeOption } from './model/model-options.js';
import { findConfigFile, readConfigFile, targetsError, type UserOptions } from './options.js';
import { TARGETS, type Target } from './contract/targets.js';

/** What commander gives for the flags: the flag's camelCased name for each. */
export interface CliFlags extends Omit<
  UserOptions,
  | 'spec'
  | 'apis'
  | 'maxDescriptionLength'
  | 'toolOverrides'
  | 'toolMode'
  | 'listBudgetKb'
  | 'toolsets'
  | 'targets'
  | 'overlays'
  | 'baseUrls'
> {
  /** --base-url <namespace>=<url>, once per API: baseUrls. */
  baseUrl?: Record<string, string>;
  /** --overlay, once per overlay: overlays. */
  overlay?: string[];
  /** --target: targets. */
  target?: Target[];
  /** --max-description: maxDescriptionLength. */
  maxDescription?: number;
  /** --list-budget: listBudgetKb. */
  listBudget?: number;
  /** --tools: toolMode, the name the generated server's --tools has too. */
  tools?: ToolModeOption;
  config?: string;
  quiet?: boolean;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('expected a whole number above 0');
  return n;
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function resourcePreset(value: string): ResourcePreset {
  if (!(RESOURCE_PRESETS as string[]).includes(value)) throw new InvalidArgumentError(RESOURCE_PRESETS.join(', '));
  return value as ResourcePreset;
}

function toolMode(value: string): ToolModeOption {
  if (!TOOL_MODES.includes(value as ToolModeOption)) throw new InvalidArgumentError(TOOL_MODES.join(', '));
  return value as ToolModeOption;
}

/** --target: where the generated server runs (generate only: serve runs it here, on Node). */
export function withTargetOption(command: Command): Command {
  return command.option(
    '--target <targets>',
    `where the server runs, comma-separated: ${TARGETS.join(', ')} (default: node); each platform adds its entry under src/targets/ and its config`,
    targetList,
  );
}

/** The platforms, each one of TARGETS. */
function targetList(value: string): Target[] {
  const targets = list(value);
  const wrong = targets.find((t) => !(TARGETS as readonly string[]).includes(t)) ?? (targets.length === 0 ? '' : undefined);
  if (wrong !== undefined) throw new InvalidArgumentError(targetsError('', wrong).replace(/^ must list/, 'expected'));
  return targets as Target[];
}

function packageName(value: string): string {
  if (!/^[a-z0-9][a-z0-9._-]{0,213}$/.test(value)) {
    throw new InvalidArgumentError('an npm package name: lower-case letters, digits, ".", "_" and "-"');
  }
  return value;
}

/** --overlay, repeatable: generate, serve and diff take it alike. */
export const OVERLAY_OPTION = [
  '--overlay <file|url>',
  'apply an OpenAPI Overlay (1.0, 1.1 or 1.2) to the spec before anything reads it; repeat it to apply several, in order (replaces the config file\'s "overlays")',
  (value: string, previous: string[] = []) => [...previous, value],
] as const;

/** `--base-url <namespace>=<url>`, repeatable: each API's upstream, kept by namespace. */
function namespacedBaseUrl(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([a-z][a-z0-9_]*)=(https?:\/\/[^/].*)$/i.exec(value);
  if (!match) throw new InvalidArgumentError('expected <namespace>=<http(s) URL>, e.g. jira=https://acme.atlassian.net');
  return { ...previous, [match[1] as string]: match[2] as string };
}

/** Whether a --base-url value names an API (`<namespace>=<url>`): the generator's, not the server's (serve). */
export const isNamespacedBaseUrl = (value: string): boolean => /^[a-z][a-z0-9_]*=/i.test(value);

/** The options that decide the tool table: shared by generate and serve. */
export function withModelOptions(command: Command, forServe = false): Command {
  // serve hands --tools and --read-only to the server, which applies them at start the same way
  if (!forServe) {
    command
      .option('--read-only', "only operations of safe methods (GET, HEAD, QUERY and the others IANA's registry marks safe)")
      .option(
        '--tools <mode>',
        'what tools/list shows by default (the server can be started in another): direct (a tool per operation), toolsets (the agent enables toolsets), dynamic (search/describe/invoke), code (search_api and execute: a program in a sandbox calls several operations), or auto: direct when it fits --max-tools and --list-budget, else toolsets when each fits, else code when most operations answer typed JSON, else dynamic (default: auto)',
        toolMode,
      );
  }
  return command
    .option(
      '-n, --name <name>',
      'package name of the generated server (default: up to three telling words of the spec title, else the server host, e.g. github-octokit-mcp)',
      packageName,
    )
    .option(
      '--env-prefix <PREFIX>',
      forServe
        ? 'prefix of the credential environment variables (default: from --name if given, else MCPGEN: the spec never chooses which variables are read; "" for none)'
        : 'prefix of the credential environment variables (default: from the package name, e.g. SWAGGER_PETSTORE, for a spec file; for a spec URL from --name if given, else MCPGEN; "" for none)',
    )
    .option(
      '--allow-remote-refs',
      'follow $refs to public http(s) URLs of other origins (off: a spec cannot make mcp-gen fetch URLs; internal addresses never)',
    )
    .option(
      '--allow-internal-servers',
      'use the servers and tokenUrl a spec from a URL names on internal addresses (loopback, private, …; off: they are left out, and --base-url chooses the upstream)',
    )
    .option('--allow-ref-dir <dirs>', "folders local $refs may read besides the spec's own (comma-separated)", list)
    .option(...OVERLAY_OPTION)
    .option(
      '--base-url <namespace=url>',
      "several APIs: that API's upstream in place of its spec's servers and its config file's baseUrl (repeatable; <NAMESPACE>_BASE_URL still wins at start)",
      namespacedBaseUrl,
    )
    .option(
      '--max-description <chars>',
      `cut tool descriptions to this many characters (default: ${MODEL_DEFAULTS.maxDescriptionLength})`,
      positiveInt,
    )
    .option('--keep-examples', 'keep schema and parameter examples in tool schemas (off: they cost tools/list bytes)')
    .option('--keep-extensions', 'keep vendor x-… keys in tool schemas')
    .option('-c, --config <file>', 'options file (default: mcp-gen.config.json or .yaml in this folder, if any)')
    .option('--include-tags <tags>', 'only operations with one of these tags (comma-separated)', list)
    .option('--exclude-tags <tags>', 'leave out operations with any of these tags', list)
    .option('--include-operations <globs>', 'only these operationIds (globs: * within a /-part, ** across)', list)
    .option('--exclude-operations <globs>', 'leave out these operationIds', list)
    .option('--include-paths <globs>', 'only operations on these paths, e.g. /repos/**', list)
    .option('--exclude-paths <globs>', 'leave out operations on these paths', list)
    .option('--methods <methods>', 'only these HTTP methods, e.g. GET,POST', list)
    .option(
      '--max-tools <n>',
      `auto: most tools in the default tools/list (default: ${MODEL_DEFAULTS.maxTools}, what VS Code and the OpenAI API accept)`,
      positiveInt,
    )
    .option('--dynamic-threshold <n>', 'the same as --max-tools', positiveInt)
    .option(
      '--list-budget <kb>',
      `auto: most kilobytes of the default tools/list (default: ${MODEL_DEFAULTS.listBudgetKb}, about 25,000 tokens)`,
      positiveInt,
    )
    .option(
      '--resources <preset>',
      'also serve side-effect-free GETs as MCP resources: get (templates for those with path parameters), or none (default); rules in the config file\'s "routes"',
      resourcePreset,
    )
    .option(
      '--direct-tools <globs>',
      'operations (operationId or tool name globs) listed as tools in the toolsets and dynamic modes too',
      list,
    );
}

/** The config file (found in `cwd`, or named), then the flags over it. */
export function optionsFromCommandLine(flags: CliFlags, specs: string | string[] | undefined, cwd: string): UserOptions {
  const configFile = findConfigFile(flags.config, cwd);
  const fromFile = configFile ? readConfigFile(configFile) : {};
  const given = typeof specs === 'string' ? [specs] : (specs ?? []);
  // Specs on the command line replace the config file's spec or apis; several are several APIs.
  const { spec: _spec, apis: _apis, ...withoutSpecs } = fromFile;
  return {
    ...(given.length ? withoutSpecs : fromFile),
    ...Object.fromEntries(Object.entries(optionsFromFlags(flags)).filter(([, v]) => v !== undefined)),
    ...(given.length === 1 ? { spec: given[0] } : given.length > 1 ? { apis: given.map((spec) => ({ spec })) } : {}),
  };
}

/** The flags under their options' names. */
function optionsFromFlags(flags: CliFlags): UserOptions {
  const { config: _config, quiet: _quiet, maxDescription, tools, listBudget, target, overlay, baseUrl, ...named } = flags;
  return {
    ...named,
    maxDescriptionLength: maxDescription,
    toolMode: tools,
    listBudgetKb: listBudget,
    targets: target,
    overlays: overlay,
    baseUrls: baseUrl,
  };
}
