// The golden samples (samples/<name>/openapi.{json,yaml} → samples/<name>/server/): what a
// sample commits, and its generation. A sample commits only what depends on its spec: lib/ is
// this build's runtime (the same in every project) and .mcp-gen.json holds hashes of lib/, so
// both change with every runtime change and are checked against the build instead.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type GenerateResult } from '../src/generate.js';
import { readConfigFile } from '../src/options.js';

export const SAMPLES = fileURLToPath(new URL('../samples/', import.meta.url));

export interface Sample {
  name: string;
  /** The spec's file name in samples/<name>/. */
  spec: string;
}

/** Every sample folder with a spec, by name. */
export function listSamples(): Sample[] {
  return readdirSync(SAMPLES)
    .sort()
    .map((name) => ({ name, spec: readdirSync(join(SAMPLES, name)).find((f) => /^openapi\.(json|ya?ml)$/.test(f)) }))
    .filter((s): s is Sample => s.spec !== undefined);
}

/** Generates a sample into `out` (its folder should be named `server`: the README names it), with its own options if it has any. */
export function generateSample({ name, spec }: Sample, out: string): Promise<GenerateResult> {
  // A sample may carry its generator options (samples/<name>/mcp-gen.config.json), as a user's project would.
  const config = join(SAMPLES, name, 'mcp-gen.config.json');
  return generate({ ...(existsSync(config) ? readConfigFile(config) : {}), spec: join(SAMPLES, name, spec), out, force: true });
}

/** Whether a generated project's file is committed in a sample: everything but lib/ and .mcp-gen.json. */
export const committedInSample = (path: string): boolean => !path.startsWith('lib/') && path !== '.mcp-gen.json';

/** All files below dir, relative, skipping what a build or install adds. */
export function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir)
    .flatMap((entry) => {
      if (entry === 'node_modules' || entry === 'dist') return [];
      const full = join(dir, entry);
      return statSync(full).isDirectory() ? listFiles(full, base) : [relative(base, full)];
    })
    .sort();
}
