// 2. Build: `npm run build` of the generated GitHub project, mcp-gen's against
// openapi-mcp-generator's, each from a clean output folder, dependencies already installed.
import { mcpGenProject, omgProject, runBuild } from './lib/fixtures.js';
import type { BuildCell, BuildResult } from './lib/results.js';
import { interleave, log, median } from './lib/util.js';

export async function runBuildBench(options: { quick: boolean }): Promise<BuildResult> {
  const reps = options.quick ? 1 : 3;
  const omg = await omgProject('github', { build: false });
  const projects = { mcpGen: await mcpGenProject('github'), omg: omg.dir };
  log(`build: GitHub, ${reps} × mcp-gen and openapi-mcp-generator`);
  const runs = await interleave(reps, ['mcpGen', 'omg'] as const, (which) => runBuild(projects[which]));
  const cell = (list: Awaited<ReturnType<typeof runBuild>>[]): BuildCell => {
    const failed = list.find((r) => !r.ok);
    return {
      runs: list.map((r) => ({ ms: r.ms, maxRssMb: r.maxRssMb, ok: r.ok })),
      ms: median(list.map((r) => r.ms)),
      maxRssMb: median(list.map((r) => r.maxRssMb)),
      ok: !failed,
      ...(failed?.firstError ? { firstError: failed.firstError } : {}),
    };
  };
  // Later sections run what the last build left (tsc emits JavaScript even when it reports errors).
  const last = runs.omg[runs.omg.length - 1];
  if (last) Object.assign(omg, { built: last.ok, ms: last.ms }, last.firstError ? { firstError: last.firstError } : {});
  return { reps, spec: 'GitHub', mcpGen: cell(runs.mcpGen), omg: cell(runs.omg) };
}
