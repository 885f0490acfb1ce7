// Golden samples: the committed generated project of each sample must be exactly what the
// generator produces now — every file byte for byte, and no file left over.
// After a deliberate change: `npm run samples`, then review the diff.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../src/generate.js';
import { readConfigFile } from '../src/options.js';

const root = new URL('../samples/', import.meta.url).pathname;
const samples = readdirSync(root)
  .sort()
  .map((name) => ({ name, spec: readdirSync(join(root, name)).find((f) => /^openapi\.(json|ya?ml)$/.test(f)) }))
  .filter((s): s is { name: string; spec: string } => s.spec !== undefined);
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-samples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** All files below dir, relative, skipping what a build or install adds. */
function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir)
    .flatMap((entry) => {
      if (entry === 'node_modules' || entry === 'dist') return [];
      const full = join(dir, entry);
      return statSync(full).isDirectory() ? listFiles(full, base) : [relative(base, full)];
    })
    .sort();
}

describe('golden samples', () => {
  it('has the samples the docs promise, one of them with resources and prompts', () => {
    expect(samples.map((s) => s.name)).toEqual(expect.arrayContaining(['petstore', 'petstore-swagger2']));
    const table = JSON.parse(readFileSync(join(root, 'petstore/server/tools.json'), 'utf8')) as { tools: { resource?: unknown }[] };
    expect(table.tools.filter((t) => t.resource !== undefined).length).toBeGreaterThan(0);
  });

  it.each(samples)('$name: committed server matches a fresh generation', async ({ name, spec }) => {
    const out = join(scratch, name, 'server'); // same folder name as the committed one: the README names it
    // A sample may carry its generator options (samples/<name>/mcp-gen.config.json), as a user's project would.
    const config = join(root, name, 'mcp-gen.config.json');
    await generate({ ...(existsSync(config) ? readConfigFile(config) : {}), spec: join(root, name, spec), out });
    const committed = join(root, name, 'server');
    const fresh = listFiles(out);
    expect(listFiles(committed), 'files in samples/' + name + '/server (orphans or missing)').toEqual(fresh);
    for (const file of fresh) {
      expect(readFileSync(join(committed, file), 'utf8'), `${name}/server/${file} differs: run npm run samples`).toBe(
        readFileSync(join(out, file), 'utf8'),
      );
    }
  });
});
