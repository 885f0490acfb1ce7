// The pipeline in one call: parse → model → emit → write.

import { basename, resolve } from 'node:path';
import { buildTools, decideListing, type BuiltTools, type ModelReport, type ServerModel } from './model/build.js';
import { emitProject, withToolTypes, type GeneratedFile } from './emit/project.js';
import { GENERATOR_VERSION } from './version.js';
import { startToolTypesPrinter } from './emit/types-worker.js';
import { loadSpec } from './parse/load.js';
import { screenUpstreams } from './model/upstreams.js';
import { previousOutput, writeProject, type WritePlan } from './write/write.js';
import type { ToolTable } from './contract/table.js';
import { resolveOptions, type ResolvedOptions, type UserOptions } from './options.js';

export interface GenerateResult {
  outDir: string;
  table: ToolTable;
  report: ModelReport;
  files: GeneratedFile[];
  plan: WritePlan;
}

export async function generate(options: UserOptions): Promise<GenerateResult> {
  const printer = startToolTypesPrinter();
  let modelled: Awaited<ReturnType<typeof modelFromOptions>>;
  // the worker prints src/tool-types.ts from the tools while this thread decides the listing and emits the rest
  let printing: Promise<string> | undefined;
  try {
    modelled = await modelFromOptions(options, 'generate', (table) => (printing = printer.print(table)));
  } catch (error) {
    (printing as Promise<string> | undefined)?.catch(() => undefined); // stopped: the spec's error is the answer
    printer.cancel();
    throw error;
  }
  const { resolved, model } = modelled;
  const outDir = resolve(resolved.out ?? model.table.name);
  const specName = /^https?:\/\//i.test(resolved.spec) ? resolved.spec : basename(resolved.spec);
  const generator = `mcp-gen@${GENERATOR_VERSION}`;
  printing ??= printer.print(model.table);
  const emitted = emitProject(model, { specName, dirName: basename(outDir) });
  const unchanged = unchangedToolTypes(outDir, emitted, generator);
  if (unchanged !== undefined) {
    printing.catch(() => undefined); // stopped: its answer is not needed
    printer.cancel();
  }
  const files = withToolTypes(emitted, unchanged ?? (await printing));
  const plan = writeProject(outDir, files, {
    force: resolved.force,
    check: resolved.check,
    dryRun: resolved.dryRun,
    generator,
    specName,
  });
  return { outDir, table: model.table, report: model.report, files, plan };
}

/** The previous run's src/tool-types.ts when it printed it from the same tools.json: printing it again would give the same text. */
function unchangedToolTypes(outDir: string, files: GeneratedFile[], generator: string): string | undefined {
  const table = files.find((f) => f.path === 'tools.json');
  return table && previousOutput(outDir, 'src/tool-types.ts', table, generator);
}

/**
 * Parse and model: the tool table and the report, as `generate` writes them and `serve` serves
 * them. `use` says whether anyone reviews the result before it runs (see auth.ts).
 */
export async function modelFromOptions(
  options: UserOptions,
  use: 'generate' | 'serve',
  onToolsBuilt?: (table: ToolTable) => void,
): Promise<{ resolved: ResolvedOptions; model: ServerModel }> {
  const resolved = resolveOptions({}, options);
  const { built, publicServers } = await toolsFromSpec(resolved, use);
  const model = decideListing(built, onToolsBuilt);
  if (publicServers) model.table.publicServers = publicServers;
  return { resolved, model };
}

/** The spec read and made into tools; the parsed document is not kept past it (see buildTools). */
async function toolsFromSpec(
  resolved: ResolvedOptions,
  use: 'generate' | 'serve',
): Promise<{ built: BuiltTools; publicServers: Awaited<ReturnType<typeof screenUpstreams>> }> {
  const fromUrl = /^https?:\/\//i.test(resolved.spec);
  const spec = await loadSpec(resolved.spec, { allowRemoteRefs: resolved.allowRemoteRefs, allowRefDirs: resolved.allowRefDir });
  const publicServers = await screenUpstreams(spec, resolved.allowInternalServers);
  return { built: buildTools(spec, { ...resolved, titleNamesCredentials: use === 'generate' && !fromUrl }), publicServers };
}
