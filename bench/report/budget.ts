// Section 7, the context budget (bench/budget.ts): tools/list bytes and tokens per spec and mode.
import type { Results } from '../lib/results.js';
import { int, table } from './format.js';

export function budgetSection(r: Pick<Results, 'budget'>): string[] {
  const rows = r.budget;
  if (!rows) return [];
  const size = (bytes: number) => `${int(bytes)} B (~${int(Math.round(bytes / 4))} tokens)`;
  return [
    '## 7. The context budget',
    '',
    'What `tools/list` costs an agent, per spec and mode: the result as the server builds it (JSON, UTF-8), tokens estimated at 4 bytes each. **Before** is every tool listed whole, which was the default until the budget (schemas as the `full` profile lists them); **after** is the default now, chosen at generation to stay within 128 tools and 100 KB. The other columns are the modes a server can be started in (`--tools`), under the default `portable` profile.',
    '',
    table(
      [
        'spec',
        'tools',
        'before: every tool, full schemas',
        'after: the default',
        'every tool, portable',
        'toolsets, first list',
        'dynamic',
        'largest toolset alone',
      ],
      rows.map((b) => [
        b.spec,
        int(b.tools),
        size(b.directFull),
        `${b.mode}: ${int(b.defaultTools)} tools, ${size(b.defaultBytes)}`,
        size(b.directPortable),
        size(b.toolsets),
        size(b.dynamic),
        size(b.largestToolset),
      ]),
    ),
    '',
    'Petstore stays direct (20 tools fit) and its portable list is larger than the full one: output schemas are written out rather than shared through `$defs`, and nullable types as `anyOf` branches rather than type arrays, which is what strict clients need. On the large APIs the portable list is 45–60 % smaller than the full one, and the default is three tools of under 2 KB.',
    '',
  ];
}
