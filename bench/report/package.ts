// Section 14, the package a generated project ships (bench/package.ts): the npm tarball installed
// into an empty folder, and the Claude Desktop extension bundle.
import type { Results } from '../lib/results.js';
import { int, mb, s, table } from './format.js';

export function packageSection(r: Pick<Results, 'package'>): string[] {
  const result = r.package;
  if (!result) return [];
  return [
    '## 14. The package a project ships',
    '',
    `What a generated project's users download. **tarball**: \`npm pack\` in the project (its \`prepack\` builds it), the bytes of the .tgz and what it unpacks to; **install**: \`npm install <tarball> --prefer-offline\` into an empty folder, median wall time of ${result.reps} runs from scratch, and what \`node_modules\` then holds (the package has no runtime dependencies: its server is one bundle, \`dist/main.js\`, and lazy chunks); **.mcpb**: \`npm run bundle\`, the Claude Desktop extension bundle (official packer). The cold start of that bundled server against a minimal SDK v2 server is section 3's.`,
    '',
    table(
      ['project', 'tarball', 'unpacked (files)', 'install', 'installed (packages)', '.mcpb'],
      result.rows.map((row) => [
        row.project,
        mb(row.tarballBytes, 2),
        `${mb(row.unpackedBytes, 2)} (${int(row.files)})`,
        s(row.install.ms),
        `${mb(row.install.bytes, 2)} (${int(row.install.packages)})`,
        mb(row.mcpbBytes, 2),
      ]),
    ),
    '',
  ];
}
