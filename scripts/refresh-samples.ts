// Regenerates every golden sample: samples/<name>/openapi.{json,yaml} → samples/<name>/server/,
// keeping only the files that depend on the spec (harness/samples.ts says which). Run after a
// deliberate change to the generator (npm run samples, which builds first: lib/ comes from
// dist/); test/samples.test.ts fails until the committed samples match what the generator produces.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { committedInSample, generateSample, listFiles, listSamples, SAMPLES } from '../harness/samples.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-refresh-samples-'));
try {
  for (const sample of listSamples()) {
    const out = join(scratch, sample.name, 'server');
    const result = await generateSample(sample, out);
    const target = join(SAMPLES, sample.name, 'server');
    rmSync(target, { recursive: true, force: true });
    const kept = listFiles(out).filter(committedInSample);
    for (const file of kept) {
      mkdirSync(dirname(join(target, file)), { recursive: true });
      copyFileSync(join(out, file), join(target, file));
    }
    console.log(`${sample.name}: ${result.table.tools.length} tools; ${kept.length} files committed`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
