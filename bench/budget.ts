// 6. The context budget: what tools/list costs an agent, per spec and mode, before and after
// client profiles. Sizes are the tools/list result as the server builds it (JSON, UTF-8),
// measured in-process from generate()'s report; tokens are estimated at 4 bytes each.
import { join } from 'node:path';
import { generate } from '../src/generate.js';
import { kubernetesSpec } from '../harness/corpus-check.js';
import { GITHUB_SPEC, STRIPE_SPEC } from '../harness/corpora.js';
import type { BudgetRow } from './lib/results.js';
import { REPO, TMP, ensureDir, log } from './lib/util.js';

export async function runBudget(): Promise<BudgetRow[]> {
  const scratch = ensureDir(join(TMP, 'budget'));
  const specs: [string, string][] = [
    ['Petstore', join(REPO, 'samples/petstore/openapi.json')],
    ['GitHub', GITHUB_SPEC],
    ['Stripe', STRIPE_SPEC],
    ['Kubernetes 1.13', kubernetesSpec(scratch).path],
  ];
  const rows: BudgetRow[] = [];
  for (const [name, spec] of specs) {
    log(`budget: ${name}`);
    const run = (toolMode: 'auto' | 'toolsets' | 'dynamic') =>
      generate({ spec, out: join(scratch, 'out'), force: true, dryRun: true, toolMode });
    const auto = await run('auto');
    const serving = auto.report.serving;
    if (!serving || !auto.report.listing) throw new Error(`${name}: no serving report`);
    rows.push({
      spec: name,
      tools: auto.table.tools.length,
      mode: serving.mode,
      defaultTools: serving.listed.tools,
      defaultBytes: serving.listed.bytes,
      directFull: auto.report.listing.listedBytes,
      directPortable: serving.direct.bytes,
      toolsets: (await run('toolsets')).report.serving?.listed.bytes ?? NaN,
      dynamic: (await run('dynamic')).report.serving?.listed.bytes ?? NaN,
      largestToolset: Math.max(...serving.toolsets.map((t) => t.bytes)),
    });
  }
  return rows;
}
