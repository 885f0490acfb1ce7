// The pipeline in one call: parse → model → emit → write.

import { basename, resolve } from 'node:path';
import { buildModel, type ModelReport } from './model/build.js';
import { emitProject, GENERATOR_VERSION, type GeneratedFile } from './emit/project.js';
import { loadSpec } from './parse/load.js';
import { writeProject, type WritePlan } from './write/write.js';
import type { ToolTable } from '../templates/runtime/table.js';

export interface GenerateOptions {
  /** Path or http(s) URL of the spec. */
  spec: string;
  /** Output folder; default: `<api-name>-mcp` in the working directory. */
  out?: string;
  /** Package name of the generated server (default from the spec's title). */
  name?: string;
  force?: boolean;
  check?: boolean;
  dryRun?: boolean;
  allowRemoteRefs?: boolean;
  maxDescriptionLength?: number;
}

export interface GenerateResult {
  outDir: string;
  table: ToolTable;
  report: ModelReport;
  files: GeneratedFile[];
  plan: WritePlan;
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const spec = await loadSpec(options.spec, { allowRemoteRefs: options.allowRemoteRefs ?? false });
  const model = buildModel(spec, { maxDescriptionLength: options.maxDescriptionLength ?? 1_000 });
  if (options.name) model.table.name = options.name;
  const outDir = resolve(options.out ?? model.table.name);
  const specName = /^https?:\/\//i.test(options.spec) ? options.spec : basename(options.spec);
  const files = emitProject(model, { specName, dirName: basename(outDir) });
  const plan = writeProject(outDir, files, {
    force: options.force ?? false,
    check: options.check ?? false,
    dryRun: options.dryRun ?? false,
    generator: `mcp-gen@${GENERATOR_VERSION}`,
    specName,
  });
  return { outDir, table: model.table, report: model.report, files, plan };
}
