// The pipeline in one call: parse → model → emit → write.

import { basename, resolve } from 'node:path';
import { buildModel, type ModelReport, type ServerModel } from './model/build.js';
import { emitProject, type GeneratedFile } from './emit/project.js';
import { GENERATOR_VERSION } from './version.js';
import { startToolTypesPrinter } from './emit/types-worker.js';
import { loadSpec } from './parse/load.js';
import { screenUpstreams } from './model/upstreams.js';
import { writeProject, type WritePlan } from './write/write.js';
import type { ToolTable } from './contract/table.js';
import { resolveOptions, type ResolvedOptions, type UserOptions } from './options.js';

/** Everything optional but the spec; see UserOptions for each field. */
export type GenerateOptions = UserOptions & { spec: string };

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
  try {
    modelled = await modelFromOptions(options, 'generate');
  } catch (error) {
    printer.cancel();
    throw error;
  }
  const { o, model } = modelled;
  const outDir = resolve(o.out ?? model.table.name);
  const specName = /^https?:\/\//i.test(o.spec) ? o.spec : basename(o.spec);
  const toolTypes = await printer.print(model.table);
  const files = emitProject(model, { specName, dirName: basename(outDir), toolTypes });
  const plan = writeProject(outDir, files, {
    force: o.force,
    check: o.check,
    dryRun: o.dryRun,
    generator: `mcp-gen@${GENERATOR_VERSION}`,
    specName,
  });
  return { outDir, table: model.table, report: model.report, files, plan };
}

/**
 * Parse and model: the tool table and the report, as `generate` writes them and `serve` serves
 * them. `use` says whether anyone reviews the result before it runs (see auth.ts).
 */
export async function modelFromOptions(
  options: UserOptions,
  use: 'generate' | 'serve',
): Promise<{ o: ResolvedOptions; model: ServerModel }> {
  const o = resolveOptions({}, options);
  const fromUrl = /^https?:\/\//i.test(o.spec);
  const spec = await loadSpec(o.spec, { allowRemoteRefs: o.allowRemoteRefs, allowRefDirs: o.allowRefDir });
  const publicServers = await screenUpstreams(spec, o.allowInternalServers);
  const model = buildModel(spec, {
    maxDescriptionLength: o.maxDescriptionLength,
    selection: o.selection,
    overrides: o.tools,
    toolMode: o.toolMode,
    maxTools: o.maxTools,
    listBudgetBytes: o.listBudgetKb * 1024,
    toolsets: o.toolsets,
    directTools: o.directTools,
    routes: o.routes,
    resources: o.resources,
    prompts: o.prompts,
    schemaExtras: { examples: o.keepExamples, extensions: o.keepExtensions },
    ...(o.name !== undefined ? { packageName: o.name } : {}),
    ...(o.envPrefix !== undefined ? { envPrefix: o.envPrefix } : {}),
    titleNamesCredentials: use === 'generate' && !fromUrl,
  });
  if (publicServers) model.table.publicServers = publicServers;
  return { o, model };
}
