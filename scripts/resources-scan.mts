// npm run corpus:resources: every spec of the corpus modelled with --resources get (no project written,
// about a minute), each table checked by resourcesProblem (harness/corpus-check.ts): valid
// URIs, none offered twice, template variables that fill arguments. Prints each problem and a summary.
import { directorySpecs, githubSpec, resourcesProblem } from '../harness/corpus-check.js';
import { loadSpec } from '../src/parse/load.js';
import { buildModel } from '../src/model/build.js';
let ok = 0,
  failed = 0,
  rejected = 0,
  resources = 0,
  templates = 0;
const started = Date.now();
for (const spec of [...directorySpecs(), githubSpec()]) {
  try {
    const loaded = await loadSpec(spec.path, {});
    const { table, report } = buildModel(loaded, { maxDescriptionLength: 1000, resources: 'get' });
    const problem = resourcesProblem(table);
    if (problem) {
      failed++;
      console.log('PROBLEM', spec.id, problem);
    } else ok++;
    resources += report.resources.static;
    templates += report.resources.templates;
  } catch {
    rejected++;
  }
}
console.log(JSON.stringify({ ok, failed, rejected, resources, templates, seconds: Math.round((Date.now() - started) / 1000) }));
