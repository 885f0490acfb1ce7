// The files each --target adds to a project, and what a target cannot serve, refused at
// generation with the reason and the alternative (a feature is never silently dropped).

import type { Target } from '../contract/targets.js';
import type { ToolTable } from '../contract/table.js';

/** A file of a target: read as it is from templates/project/, or rendered from a Handlebars template. */
export interface TargetFile {
  path: string;
  template: string;
  render: boolean;
}

/**
 * The Workers runtime date the project is written against: within what the pinned wrangler's
 * workerd knows (a later date would be refused by `wrangler dev`).
 */
export const COMPATIBILITY_DATE = '2026-04-20';

const FILES: Record<Exclude<Target, 'node'>, TargetFile[]> = {
  cloudflare: [
    { path: 'src/targets/cloudflare.ts', template: 'src/targets/cloudflare.ts', render: false },
    { path: 'wrangler.jsonc', template: 'wrangler.jsonc.hbs', render: true },
  ],
  deno: [
    { path: 'src/targets/deno.ts', template: 'src/targets/deno.ts', render: false },
    { path: 'deno.json', template: 'deno.json', render: false },
  ],
  lambda: [
    { path: 'src/targets/lambda.ts', template: 'src/targets/lambda.ts', render: false },
    { path: 'template.yaml', template: 'template.yaml.hbs', render: true },
  ],
  vercel: [
    { path: 'api/mcp.ts', template: 'api/mcp.ts', render: false },
    { path: 'vercel.json', template: 'vercel.json', render: false },
  ],
};

/** The files the targets other than Node add. */
export function targetFiles(targets: readonly Target[]): TargetFile[] {
  return targets.flatMap((target) => (target === 'node' ? [] : FILES[target]));
}

/**
 * Why code mode cannot run on a target; a target not named runs it (on workerd in the isolate,
 * its QuickJS imported by the entry: see sandbox-inline.ts).
 */
const NO_CODE_MODE: Partial<Record<Target, string>> = {};

/** Why the table cannot be served on one of the targets, in one line; undefined when it can. */
export function targetProblem(table: Pick<ToolTable, 'serve'>, targets: readonly Target[]): string | undefined {
  if (table.serve?.mode !== 'code') return undefined;
  const target = targets.find((t) => NO_CODE_MODE[t] !== undefined);
  if (target === undefined) return undefined;
  return `--target ${target}: code mode (--tools code) is not served there (${NO_CODE_MODE[target]}); generate with --tools direct, toolsets or dynamic, or for other targets`;
}
