// Section 2, build: `npm run build` of the generated GitHub project, and its ≤ 15 s target.
import type { Results } from '../lib/results.js';
import { int, notMeasured, s, table, x, type Target } from './format.js';

export function buildTarget(r: Results): Target {
  const build = r.build;
  if (!build) return notMeasured('Build of the generated GitHub project ≤ 15 s');
  return {
    target: 'Build of the generated GitHub project ≤ 15 s',
    measured: `mcp-gen ${s(build.mcpGen.ms, 1)}${build.mcpGen.ok ? '' : ' (failed)'}; openapi-mcp-generator ${s(build.omg.ms, 1)}${build.omg.ok ? '' : ' (failed)'}`,
    ratio: `${x(build.mcpGen.ms / 15000)} of the limit; ${x(build.mcpGen.ms / build.omg.ms)} openapi-mcp-generator's`,
    met: build.mcpGen.ok && build.mcpGen.ms <= 15000,
  };
}

/** Why the build target is missed: tsc's first error, or the time over the limit. */
export function whyBuild(r: Results): string[] {
  const b = r.build;
  if (!b || (b.mcpGen.ok && b.mcpGen.ms <= 15000)) return [];
  return [
    b.mcpGen.ok
      ? `**Build.** \`npm run build\` of the generated GitHub project takes ${s(b.mcpGen.ms, 1)} (peak RSS ${int(b.mcpGen.maxRssMb)} MB), ${s(b.mcpGen.ms - 15000, 1)} over the limit. *Next step:* find what tsc spends it on (\`tsc --extendedDiagnostics\` in the project): the per-spec \`src/tool-types.ts\` grows with the API.`
      : `**Build.** The generated GitHub project does not build: \`${b.mcpGen.firstError ?? 'unknown error'}\`. *Next step:* fix that error; the samples test builds the golden samples, so a small spec with the same construct reproduces it.`,
  ];
}

export function buildSection(r: Results): string[] {
  const b = r.build;
  if (!b) return [];
  const row = (name: string, c: typeof b.mcpGen) => [
    name,
    s(c.ms, 1),
    `${int(c.maxRssMb)} MB`,
    c.ok ? 'builds' : `**fails**: \`${c.firstError ?? 'unknown error'}\``,
  ];
  return [
    '## 2. Build',
    '',
    `\`npm run build\` of the generated ${b.spec} project, from an empty output folder, dependencies already installed (mcp-gen's projects share one install, as the end-to-end tests do; openapi-mcp-generator's projects share one \`npm install\` of their own package.json). Median of ${b.reps} interleaved runs; peak RSS is tsc's.`,
    '',
    table(['generator', 'build time', 'peak RSS', 'result'], [row('mcp-gen', b.mcpGen), row('openapi-mcp-generator', b.omg)]),
    '',
    ...(b.omg.ok
      ? []
      : [
          `openapi-mcp-generator writes all ${'1,223'} tools into one \`src/index.ts\` with inline zod-typed schemas; tsc gives up on it. tsc still emits \`build/index.js\` (\`noEmitOnError\` is off), so the sections below run that JavaScript, marked as such.`,
          '',
        ]),
  ];
}
