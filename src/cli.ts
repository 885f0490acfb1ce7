// The command line: parse flags, call generate(), and turn typed errors into one line and
// an exit code — here and nowhere else. Exit codes: 0 ok, 1 spec/output problem or drift
// under --check, 2 bad usage, 70 internal error.

import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GENERATOR_VERSION } from './version.js';
import { nearest } from './contract/did-you-mean.js';
import { formatWarning } from './warnings.js';
import { terminalLine } from './contract/visible-text.js';
import { useNodeCompileCache } from './emit/compiler.js';
import { OptionsError, OutputError, SpecError } from './errors.js';
import type { GenerateResult } from './generate.js';
import type { UserOptions } from './options.js';
import { apiLines, driftedApis } from './model/apis.js';
import type { ToolTable } from './contract/table.js';
import { OVERLAY_OPTION, optionsFromCommandLine, withModelOptions, withTargetOption, type CliFlags } from './flags.js';

/** One line of the summary: spec text in it cannot drive the terminal (visible-text.ts). */
const print = (line = '') => process.stdout.write(terminalLine(line) + '\n');

function summarise(result: GenerateResult, flags: CliFlags): void {
  const { table, report, plan, outDir } = result;
  const where = relative(process.cwd(), outDir) || '.';
  if (flags.check) return printDrift(result, where);
  if (flags.quiet) return;
  const verb = flags.dryRun ? 'would generate' : 'generated';
  const serving = report.serving;
  const shape = `${table.tools.length} tool${table.tools.length === 1 ? '' : 's'}`;
  print(`mcp-gen: ${verb} ${table.name} in ${where}: ${shape}${serving ? `, ${servedAs(serving)}` : ''}`);
  print(
    `  files: ${plan.created.length} new, ${plan.updated.length} updated, ${plan.unchanged.length} unchanged, ${plan.removed.length} removed`,
  );
  printApis(result);
  printOperations(result);
  printNotes(result);
  printServing(result);
  const placeholder = result.summary.placeholderMcpName;
  if (placeholder !== undefined)
    print(
      `  warning: server.json names the server ${placeholder} in the MCP Registry: give --mcp-name io.github.<owner>/<name> (or "mcpName" in the config file) before publishing`,
    );
  if (flags.dryRun) return;
  printNext(result, where);
}

/** --check: up to date, or the files that would change. */
function printDrift({ table, plan, outDir }: GenerateResult, where: string): void {
  const drift = [...plan.created, ...plan.updated, ...plan.removed];
  if (drift.length === 0) {
    print(`mcp-gen: ${where} is up to date (${table.tools.length} tools)`);
    return;
  }
  print(`mcp-gen: ${where} is out of date; ${drift.length} file${drift.length > 1 ? 's' : ''} would change:`);
  for (const p of plan.created) print(`  + ${p}`);
  for (const p of plan.updated) print(`  ~ ${p}`);
  for (const p of plan.removed) print(`  - ${p}`);
  if (table.apis !== undefined && plan.updated.includes('tools.json')) printDriftedApis(table, join(outDir, 'tools.json'));
}

/** Over several APIs, which of them drifted: those whose part of tools.json differs from the one written. */
function printDriftedApis(table: ToolTable, written: string): void {
  let before: ToolTable;
  try {
    before = JSON.parse(readFileSync(written, 'utf8')) as ToolTable;
  } catch {
    return; // not a table this run can read: the file list says it changes
  }
  const drifted = driftedApis(before, table);
  if (drifted.length) print(`  APIs that changed: ${drifted.join(', ')}`);
}

/** Over several APIs: each namespace, its tools and where they go. */
function printApis({ table }: GenerateResult): void {
  const lines = apiLines(table);
  if (lines.length) print(`  ${lines[0]}`);
  for (const line of lines.slice(1)) print(`    ${line}`);
}

/** Files kept, operations skipped and tools renamed. */
function printOperations({ report, plan }: GenerateResult): void {
  for (const k of plan.kept) print(`  kept ${k.path}: ${k.reason}`);
  print(`  skipped operations: ${report.skipped.length === 0 ? 'none' : report.skipped.length}`);
  for (const s of report.skipped.slice(0, 10)) print(`    ${s.operation}: ${s.reason}`);
  if (report.skipped.length > 10) print(`    … and ${report.skipped.length - 10} more`);
  if (report.renamed.length) {
    print(`  renamed: ${report.renamed.length} operation${report.renamed.length > 1 ? 's' : ''} got a tool name of their own`);
    for (const r of report.renamed.slice(0, 5)) print(`    ${r.operation} → ${r.name} (${r.reason})`);
    if (report.renamed.length > 5) print(`    … and ${report.renamed.length - 5} more (see tools.json)`);
  }
}

/** Warnings, credentials, resources, and what the spec could say better. */
function printNotes(result: GenerateResult): void {
  const { report } = result;
  for (const w of report.warnings) print(`  warning: ${formatWarning(w)}`);
  const { credentials } = result.summary;
  if (credentials) print(`  credentials: ${credentials} (README.md and .env.example say what each holds)`);
  if (report.resources.static + report.resources.templates > 0) {
    const { static: fixed, templates } = report.resources;
    print(
      `  resources: ${fixed} resource${fixed === 1 ? '' : 's'} and ${templates} resource template${templates === 1 ? '' : 's'}, read with the same requests as the tools`,
    );
  }
  if (report.droppedBodies.length) {
    const shown = report.droppedBodies.slice(0, 5).join(', ');
    const more = report.droppedBodies.length > 5 ? ` and ${report.droppedBodies.length - 5} more` : '';
    print(
      `  request bodies dropped: ${report.droppedBodies.length} GET/HEAD operation${report.droppedBodies.length > 1 ? 's take' : ' takes'} no body argument (${shown}${more}): OpenAPI 3.0.3 says to ignore a requestBody there, and HTTP gives a GET or HEAD body no meaning`,
    );
  }
  if (report.poorDescriptions.length) {
    const shown = report.poorDescriptions.slice(0, 5).join(', ');
    const more = report.poorDescriptions.length > 5 ? ` and ${report.poorDescriptions.length - 5} more` : '';
    print(
      `  poor descriptions: ${report.poorDescriptions.length} tool${report.poorDescriptions.length > 1 ? 's' : ''} say little to an agent (${shown}${more}); add a summary in the spec or a description override in the config file`,
    );
  }
  if (report.listing?.trimmedTools && report.serving?.mode === 'direct') {
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    print(
      `  schemas: with --client-profile full, ${report.listing.trimmedTools} tools list their deeper shared schemas as stubs (tools/list ${mb(report.listing.listedBytes)} instead of ${mb(report.listing.wholeBytes)}); arguments are still checked in full`,
    );
  }
}

/** The default tools/list and the toolsets. */
function printServing({ report }: GenerateResult): void {
  const serving = report.serving;
  if (!serving) return;
  const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;
  const listed = `${serving.listed.tools} tool${serving.listed.tools === 1 ? '' : 's'} in ${kb(serving.listed.bytes)}`;
  print(
    `  tools/list: ${serving.mode} by default, ${listed} (${serving.reason}); start with --tools direct|toolsets|dynamic|code to change it`,
  );
  if (serving.toolsets.length > 1) {
    const shown = [...serving.toolsets].sort((a, b) => b.tools - a.tools || a.name.localeCompare(b.name));
    const line = shown
      .slice(0, 12)
      .map((t) => `${t.name} (${t.tools})`)
      .join(', ');
    print(`  toolsets: ${serving.toolsets.length}: ${line}${shown.length > 12 ? `, … (all in the README)` : ''}`);
  }
}

/** What to run next. */
function printNext(result: GenerateResult, where: string): void {
  print('');
  print('Next:');
  print(`  cd ${where} && npm install && npm run build`);
  const { missingBaseUrls, claudeCodeInstall } = result.summary;
  const baseUrls = missingBaseUrls.includes('API_BASE_URL')
    ? ['', ' --base-url https://your.api']
    : [missingBaseUrls.map((v) => `${v}=https://your.api `).join(''), ''];
  print(
    `  ${baseUrls[0]}node dist/main.js --transport http${baseUrls[1]}   # Streamable HTTP on http://127.0.0.1:3000/mcp (stdio is the default)`,
  );
  if (claudeCodeInstall)
    print(
      `  ${claudeCodeInstall}   # Claude Code; node dist/main.js --clients prints every client's line, npm run bundle makes a Claude Desktop extension`,
    );
}

/** The serving decision in a few words, for the summary's first line (the reason follows below it). */
function servedAs(serving: NonNullable<GenerateResult['report']['serving']>): string {
  const listed = `${serving.listed.tools} tool${serving.listed.tools === 1 ? '' : 's'}`;
  switch (serving.mode) {
    case 'direct':
      return 'each listed as itself';
    case 'toolsets':
      return `listed by toolset as the agent enables them (${serving.toolsets.length} toolsets)`;
    case 'code':
      return `served in code mode (${listed}: search_api and execute)`;
    case 'dynamic':
      return `served through search, describe and invoke (${listed})`;
  }
}

const CONFIG_FILE_NAME = /\.config\.(json|ya?ml)$/i;

/**
 * The options of diff's two sides: two config files, each its own (several APIs, with their
 * namespaces); else the specs before and as many after, each half one spec or several APIs,
 * both with the `--config` file's other options.
 */
function diffOptions(sides: string[], flags: { config?: string; overlay?: string[] }): [UserOptions, UserOptions] {
  const cwd = process.cwd();
  const configs = sides.filter((side) => CONFIG_FILE_NAME.test(side));
  if (configs.length > 0) {
    const spec = sides.find((side) => !CONFIG_FILE_NAME.test(side));
    if (spec !== undefined)
      throw new OptionsError(
        `diff compares a config file with a config file: ${spec} is not one (its name ends in .config.json, .config.yaml or .config.yml)`,
      );
    if (sides.length !== 2) throw new OptionsError(`diff compares two config files (${sides.length} given)`);
    return [configs[0] as string, configs[1] as string].map((config) =>
      optionsFromCommandLine({ config, overlay: flags.overlay }, undefined, cwd),
    ) as [UserOptions, UserOptions];
  }
  if (sides.length % 2 !== 0)
    throw new OptionsError(`diff takes the specs before and as many after (${sides.length} given), or two config files`);
  const half = sides.length / 2;
  return [sides.slice(0, half), sides.slice(half)].map((specs) =>
    optionsFromCommandLine({ config: flags.config, overlay: flags.overlay }, specs, cwd),
  ) as [UserOptions, UserOptions];
}

/** `mcp-gen diff <old>… <new>… [--fail-on breaking|any] [--json]`. */
async function diffMain(argv: string[]): Promise<number> {
  const program = new Command()
    .name('mcp-gen diff')
    .description('List what a spec change does to the MCP tools, each change classed breaking or not')
    .argument(
      '<sides...>',
      'the spec before and the spec after; for several APIs, the specs before then as many after, or two config files (*.config.json|yaml|yml)',
    )
    .option('--fail-on <level>', 'exit 1 when a change of this level is found: breaking or any', (v: string) => {
      if (v !== 'breaking' && v !== 'any') throw new InvalidArgumentError('breaking or any');
      return v;
    })
    .option('--json', 'print the changes as JSON')
    .option(
      '-c, --config <file>',
      'options file, as for generating (default: mcp-gen.config.json or .yaml in this folder, if any): its selection, names, overrides and overlays apply to both specs',
    )
    .option(...OVERLAY_OPTION)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const flags = program.opts<{ failOn?: 'breaking' | 'any'; json?: boolean; config?: string; overlay?: string[] }>();
  const [before, after] = diffOptions(program.args, flags);
  const { diffLines, diffSides } = await import('./diff.js');
  const diff = await diffSides(before, after);
  const { changes, unchanged } = diff;
  const breaking = changes.filter((c) => c.breaking).length;
  if (flags.json) process.stdout.write(JSON.stringify({ breaking, changes, unchanged }, null, 2) + '\n');
  else for (const line of diffLines(diff)) print(line);
  if (flags.failOn === 'breaking') return breaking > 0 ? 1 : 0;
  if (flags.failOn === 'any') return changes.length > 0 ? 1 : 0;
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  // Node 22+ compiles what loads from here on from its cache (mcp-gen serve's runtime modules)
  useNodeCompileCache();
  if (argv[0] === 'diff') return reportErrors(() => diffMain(argv.slice(1)));
  if (argv[0] === 'serve') return reportErrors(() => serveMain(argv.slice(1)));
  const program = withTargetOption(
    withModelOptions(
      new Command()
        .name('mcp-gen')
        .description('Generate a ready-to-run MCP server (stdio, SSE, Streamable HTTP) from an OpenAPI spec')
        .version(GENERATOR_VERSION, '-v, --version')
        .argument(
          '[specs...]',
          'OpenAPI 3.x or Swagger 2.0 spec: a file path or an http(s) URL, YAML or JSON (or "spec" in the config file); several serve several APIs as one server, each tool prefixed with its namespace',
        )
        .option('-o, --out <dir>', 'output folder (default: <api-name>-mcp)')
        .option(
          '-f, --force',
          'write into a folder mcp-gen did not create, and overwrite files it did not write or that were edited by hand',
        )
        .option('--check', 'write nothing; exit 1 and list the files that would change (for CI)')
        .option(
          '--mcp-name <name>',
          "the server's name in the MCP Registry, io.github.<owner>/<name> (server.json, package.json's mcpName)",
        )
        .option('--dry-run', 'write nothing; show what would be written'),
    ),
  )
    .option('-q, --quiet', 'print nothing on success')
    .addHelpText(
      'after',
      '\nAlso:\n  mcp-gen serve <spec> [options]   serve the spec as an MCP server, with no project (mcp-gen serve --help)\n  mcp-gen diff <old-spec>… <new-spec>… [--fail-on breaking|any] [--json] [--overlay <file|url>]   tool-level changes between two specs (several APIs: as many after as before, or two *.config.json|yaml files)',
    )
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showSuggestionAfterError(true);

  let flags: CliFlags;
  try {
    program.parse(argv, { from: 'user' });
    flags = program.opts<CliFlags>();
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  return reportErrors(async () => {
    // A generation prints src/tool-types.ts with the TypeScript compiler: its worker starts
    // loading it now, beside the pipeline's own modules (src/emit/types-worker.ts).
    (await import('./emit/types-worker.js')).prestartToolTypesPrinter();
    const { generate } = await import('./generate.js');
    const result = await generate(optionsFromCommandLine(flags, program.args, process.cwd()));
    summarise(result, flags);
    if (flags.check) {
      const { created, updated, removed } = result.plan;
      return created.length + updated.length + removed.length > 0 ? 1 : 0;
    }
    return 0;
  });
}

/**
 * The server's options never reach serve's option parser (split off first), so its "Did you
 * mean" cannot know them: a mistyped one (--trasnport) gets the server option it resembles.
 */
function withServerSuggestion(text: string, serverOptions: string[]): string {
  const unknown = /unknown option '(--[^'=]+)(=[^']*)?'/.exec(text);
  if (!unknown || /Did you mean/i.test(text)) return text;
  const suggestion = nearest(
    unknown[1] as string,
    serverOptions.map((name) => `--${name}`),
  );
  return suggestion ? text.replace(/\n?$/, `\n(Did you mean ${suggestion}?)\n`) : text;
}

/** `mcp-gen serve <spec> [generator options] [server options]`. */
async function serveMain(argv: string[]): Promise<number> {
  // Loaded here, not at start: --version and generate do not need the runtime.
  const { serveSpec, splitServeArgs, SERVER_USAGE, SERVER_OPTIONS } = await import('./serve.js');
  const { model, server } = splitServeArgs(argv);
  const program = withModelOptions(
    new Command()
      .name('mcp-gen serve')
      .description('Serve an OpenAPI spec as an MCP server straight away, with no project: the tool table is built in memory')
      .argument(
        '[specs...]',
        'OpenAPI 3.x or Swagger 2.0 spec: a file path or an http(s) URL (or "spec" in the config file); several serve several APIs as one',
      ),
    true,
  )
    .addHelpText(
      'after',
      `\nServer options: those of a generated server (--tools, --toolsets and --read-only choose the tools here).\n${SERVER_USAGE.replace(/^Options/, 'Server options')}\n\nA .env file in this folder is read; variables already set win. The API's credentials are read from\nMCPGEN_<SCHEME>_<PART> variables (e.g. MCPGEN_API_KEY), or with the prefix --env-prefix or --name gives;\nthe start-up lines name them.`,
    )
    .exitOverride()
    .configureOutput({
      writeErr: (text) => process.stderr.write(text),
      writeOut: (text) => process.stderr.write(text),
      outputError: (text, write) => write(withServerSuggestion(text, Object.keys(SERVER_OPTIONS))),
    })
    .showSuggestionAfterError(true);
  let flags: CliFlags;
  try {
    program.parse(model, { from: 'user' });
    flags = program.opts<CliFlags>();
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  await serveSpec(optionsFromCommandLine(flags, program.args, process.cwd()), server);
  return 0;
}

/** Typed errors → one line and an exit code; anything else is a bug and says so. */
async function reportErrors(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SpecError) {
      process.stderr.write(`${terminalLine(`mcp-gen: error: ${error.where ? error.where + ': ' : ''}${error.message}`)}\n`);
      return 1;
    }
    if (error instanceof OutputError) {
      process.stderr.write(`${terminalLine(`mcp-gen: error: ${error.message}`)}\n`);
      return 1;
    }
    if (error instanceof OptionsError) {
      process.stderr.write(`${terminalLine(`mcp-gen: error: ${error.message}`)}\n`);
      return 2;
    }
    const e = error as Error;
    process.stderr.write(`${terminalLine(`mcp-gen: internal error: ${e?.message ?? String(error)}`)}\n`);
    if (process.env.MCP_GEN_DEBUG) process.stderr.write(`${e?.stack ?? ''}\n`);
    else process.stderr.write('This is a bug in mcp-gen; rerun with MCP_GEN_DEBUG=1 for details and report it.\n');
    return 70;
  }
}

process.exitCode = await main(process.argv.slice(2));
