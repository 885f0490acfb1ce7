// Regenerates every golden sample: samples/<name>/openapi.{json,yaml} → samples/<name>/server/.
// Run after a deliberate change to the generator (npm run samples); test/samples.test.ts
// fails until the committed samples match what the generator produces.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '../dist/src/generate.js';
import { readConfigFile } from '../dist/src/options.js';

const root = new URL('../samples/', import.meta.url).pathname;
for (const name of readdirSync(root).sort()) {
  const spec = readdirSync(join(root, name)).find((f) => /^openapi\.(json|ya?ml)$/.test(f));
  if (!spec) continue;
  // A sample may carry its generator options, as a user's project would.
  const config = join(root, name, 'mcp-gen.config.json');
  const options = existsSync(config) ? readConfigFile(config) : {};
  const result = await generate({ ...options, spec: join(root, name, spec), out: join(root, name, 'server'), force: true });
  const { created, updated, removed } = result.plan;
  console.log(`${name}: ${result.table.tools.length} tools; ${created.length} new, ${updated.length} updated, ${removed.length} removed`);
}
