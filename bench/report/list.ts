// Section 6, tools/list for GitHub: bytes and time against openapi-mcp-generator, where the
// bytes go and whether an argument is lost; its ≤ 0.6× target is informational since #16.
import type { Results } from '../lib/results.js';
import { int, mb, msf, notMeasured, pct, table, x, type Target } from './format.js';

/** Informational since #16: the GitHub tools/list against openapi-mcp-generator's. */
export function listTargets(r: Results): Target[] {
  const list = r.list;
  const ours = list?.cells['mcp-gen'];
  const theirs = list?.cells.omg;
  const check = list?.checks.find((c) => c.server === 'mcp-gen');
  if (!list || !ours || !theirs) return [notMeasured('GitHub tools/list ≤ 0.6× openapi-mcp-generator’s bytes, no argument lost')];
  const lost = check ? check.lost + check.bodiesLost + check.missingOperations : NaN;
  const out: Target[] = [
    {
      target: 'GitHub tools/list ≤ 0.6× openapi-mcp-generator’s bytes, no argument lost',
      measured: `${mb(ours.bytes)} vs ${mb(theirs.bytes)}; ${int(lost)} of ${int((check?.params ?? 0) + (check?.bodies ?? 0))} arguments lost`,
      ratio: x(ours.bytes / theirs.bytes),
      met: ours.bytes / theirs.bytes <= 0.6 && lost === 0,
    },
  ];
  const dyn = list.cells['mcp-gen dynamic'];
  const dynCheck = list.checks.find((c) => c.server === 'mcp-gen dynamic');
  if (dyn && dynCheck) {
    const dynLost = dynCheck.lost + dynCheck.bodiesLost + dynCheck.missingOperations;
    out.push({
      target: '… the same in dynamic mode (`--tools dynamic`)',
      measured: `${int(dyn.bytes)} bytes vs ${mb(theirs.bytes)}; ${int(dynLost)} arguments lost (checked through describe_operation)`,
      ratio: x(dyn.bytes / theirs.bytes, 4),
      met: dyn.bytes / theirs.bytes <= 0.6 && dynLost === 0,
    });
  }
  return out;
}

export function whyList(r: Results): string[] {
  const list = r.list;
  const ours = list?.cells['mcp-gen'];
  const theirs = list?.cells.omg;
  if (!list || !ours || !theirs || ours.bytes / theirs.bytes <= 0.6) return [];
  const c = ours.composition ?? {};
  const tc = theirs.composition ?? {};
  const output = (c.outputSchema ?? 0) + (c['outputSchema $defs'] ?? 0);
  const input = (c.inputSchema ?? 0) + (c['inputSchema $defs'] ?? 0);
  const theirInput = (tc.inputSchema ?? 0) + (tc['inputSchema $defs'] ?? 0);
  const text = c['names, titles, descriptions'] ?? 0;
  const withoutOutput = ours.bytes - output;
  return [
    `**tools/list.** mcp-gen's GitHub list is ${mb(ours.bytes)}, openapi-mcp-generator's ${mb(theirs.bytes)}. ${pct(output, ours.bytes)} of mcp-gen's (${mb(output)}) are the \`outputSchema\`s, which openapi-mcp-generator does not list at all, and nearly all of that is their \`$defs\` (${mb(c['outputSchema $defs'] ?? 0)}): each tool carries its own copy of the shared schemas nearest its response (up to 4 KB of them per outputSchema, the rest as stubs: \`src/model/listing.ts\`), so a schema such as \`simple-user\` is repeated in hundreds of tools (the shared schemas of the whole API are ${mb(list.defsOnceBytes)} when each is written once, in \`tools.json\`). ` +
      `The rest is comparable: inputSchemas ${mb(input)} with their \`$defs\` against ${mb(theirInput)}, names and descriptions ${mb(text)} against ${mb(tc['names, titles, descriptions'] ?? 0)}. Without outputSchemas mcp-gen's list would be ≈ ${mb(withoutOutput)}, ${x(withoutOutput / theirs.bytes)} openapi-mcp-generator's.`,
    `*What would close it:* leave \`outputSchema\` out of \`tools/list\` for large APIs, or list only a shallow one (top-level properties, no \`$defs\`) — the server can still return \`structuredContent\`; that alone brings the list to ≈ ${x(withoutOutput / theirs.bytes)}. Reaching 0.6× (${mb(theirs.bytes * 0.6)}) also needs ≈ ${mb(withoutOutput - theirs.bytes * 0.6)} less in inputSchemas and descriptions: shorter descriptions (\`--max-description\`; the default is 1,000 characters), and no descriptions, examples or deep nesting inside the \`$defs\` of listed schemas (the full schema can stay for validation). ` +
      `Dynamic mode already meets the size target by a wide margin (${int(list.cells['mcp-gen dynamic']?.bytes ?? NaN)} bytes) with no argument lost; \`--tools auto\` picks it above 150 operations.`,
  ];
}

export function listSection(r: Results): string[] {
  const list = r.list;
  if (!list) return [];
  const theirs = list.cells.omg?.bytes ?? NaN;
  const names: Record<string, string> = {
    'mcp-gen': 'mcp-gen (one tool per operation)',
    'mcp-gen dynamic': 'mcp-gen `--tools dynamic`',
    omg: 'openapi-mcp-generator',
  };
  const rows = Object.entries(list.cells).map(([name, c]) => [
    names[name] ?? name,
    int(c.tools),
    c.error ? `failed: ${c.error}` : `${int(c.bytes)} (${mb(c.bytes)})`,
    x(c.bytes / theirs, 3),
    msf(c.first, 1),
    msf(c.warm, 1),
    c.note ?? '',
  ]);
  const parts = Object.keys(list.cells['mcp-gen']?.composition ?? {});
  const out = [
    '## 6. tools/list',
    '',
    `GitHub (1,223 operations). Bytes are the JSON-RPC answer line on the wire (a raw stdio session, so no client limit applies); time is from sending \`tools/list\` to its last byte: the first call of a fresh process, and later calls (median of ${list.reps} processes).`,
    '',
    table(['server', 'tools listed', 'bytes', '× openapi-mcp-generator', 'first list', 'later lists', 'note'], rows),
    '',
    'Where the bytes go (serialised size of each part, summed over the tools):',
    '',
    table(
      ['part', ...Object.keys(list.cells).map((n) => names[n] ?? n)],
      parts.map((part) => [part, ...Object.values(list.cells).map((c) => (c.composition ? mb(c.composition[part] ?? 0) : 'n/a'))]),
    ),
    '',
    `**No argument lost?** For every operation of the spec, each parameter (path-level ones merged, \`$ref\`s followed) must be a property of the tool's advertised inputSchema, and a request body must have its argument. For mcp-gen the parameter is traced through \`tools.json\` (where it goes in the request) to the listed schema; in dynamic mode the schema is the one \`describe_operation\` returns, asked for every operation; for openapi-mcp-generator the parameter's name must be a property (its body argument is \`requestBody\`).`,
    '',
    table(
      ['server', 'operations', 'without a tool', 'parameters', 'same name', 'renamed', 'lost', 'bodies', 'bodies lost'],
      list.checks.map((c) => [
        names[c.server] ?? c.server,
        int(c.operations),
        int(c.missingOperations),
        int(c.params),
        int(c.sameName),
        int(c.renamed),
        int(c.lost),
        int(c.bodies),
        int(c.bodiesLost),
      ]),
    ),
    '',
  ];
  const examples = list.checks.filter((c) => c.examples.length);
  for (const c of examples) out.push(`- ${names[c.server] ?? c.server}, first losses: ${c.examples.map((e) => `\`${e}\``).join(', ')}`);
  if (examples.length) out.push('');
  return out;
}
