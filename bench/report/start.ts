// Section 3, cold start: spawn → initialize answered, the probes of the GitHub server's
// start-up, and the ≤ 1.3× the minimal SDK server target.
import type { Results } from '../lib/results.js';
import { int, mb, msf, notMeasured, table, x, type Target } from './format.js';

export function startTarget(r: Results): Target {
  const gh = r.start?.cells['mcp-gen github'];
  const minimal = r.start?.cells.minimal;
  if (!gh || !minimal) return notMeasured('Cold start of the GitHub server ≤ 1.3× a minimal SDK v2 server');
  return {
    target: 'Cold start of the GitHub server ≤ 1.3× a minimal SDK v2 server',
    measured: `${msf(gh.ms)} vs ${msf(minimal.ms)}`,
    ratio: x(gh.ms / minimal.ms),
    met: gh.ms / minimal.ms <= 1.3,
  };
}

/** Marginal costs of the start-up steps, from the growing probes of start-probe.mjs. */
function startSteps(p: Record<string, number>) {
  const get = (k: string) => p[k] ?? NaN;
  return {
    sdk: get('sdk'),
    ajv: get('sdk+ajv') - get('sdk'),
    ours: get('runtime') - get('sdk+ajv'),
    table: get('runtime+table') - get('runtime'),
  };
}

export function whyStart(r: Results): string[] {
  const start = r.start;
  const gh = start?.cells['mcp-gen github'];
  const pet = start?.cells['mcp-gen petstore'];
  const minimal = start?.cells.minimal;
  if (!start || !gh || !pet || !minimal || gh.ms / minimal.ms <= 1.3) return [];
  const step = startSteps(start.probes);
  const estimate = pet.ms - (start.ajvStaticImport ? Math.max(0, step.ajv) : 0);
  const pretty = start.tableBytes > 1.05 * start.tableCompactBytes;
  return [
    `**Cold start.** The GitHub server answers \`initialize\` ${msf(gh.ms)} after spawn, the minimal one-tool server ${msf(minimal.ms)} (${x(gh.ms / minimal.ms)}); the Petstore server (20 tools, same runtime) ${msf(pet.ms)} (${x(pet.ms / minimal.ms)}). ` +
      `So of the ${msf(gh.ms - minimal.ms)} the GitHub server adds, ${msf(gh.ms - pet.ms)} grow with the API and ${msf(pet.ms - minimal.ms)} are fixed. ` +
      `The part that grows is the tool table: the server reads and parses all of \`tools.json\` (${mb(start.tableBytes)} for GitHub${pretty ? `, pretty-printed; ${mb(start.tableCompactBytes)} as compact JSON` : ''}) before it serves anything, although \`initialize\` needs only the name and version — reading and parsing it costs ${msf(step.table)} in the probe, more at start-up, where it competes with module loading and garbage collection. ` +
      (start.ajvStaticImport
        ? `The fixed part is ajv and ajv-formats, imported at start-up (${msf(step.ajv)} on top of the SDK's ${msf(step.sdk)}) because \`src/runtime/executor.ts\` imports them statically although it compiles validators only on first use, and the generated runtime's own modules (${msf(step.ours)}).`
        : `The fixed part is the generated runtime's own modules (${msf(step.ours)}) on top of the SDK's ${msf(step.sdk)}; ajv is no longer imported at start-up.`),
    `*What would close it:* read the tool table after answering \`initialize\` (keep the server identity in a small file of its own, parse the tools on the first \`tools/list\` or \`tools/call\`)${pretty ? ' and write it without indentation' : ''}${start.ajvStaticImport ? '; load ajv with a dynamic `import()` on the first `tools/call`' : ''}. ` +
      `Estimate: the GitHub server would then start like the Petstore one${start.ajvStaticImport ? ` less ajv, ${msf(pet.ms)} − ${msf(step.ajv)} ≈ ${msf(estimate)}` : `, ${msf(estimate)}`}, i.e. ${x(estimate / minimal.ms)} the minimal server` +
      (estimate / minimal.ms <= 1.3 ? ' — within the target.' : '.'),
  ];
}

export function startSection(r: Results): string[] {
  const st = r.start;
  if (!st) return [];
  const minimal = st.cells.minimal?.ms ?? NaN;
  const rows = Object.entries(st.cells).map(([name, c]) => [
    name === 'minimal' ? 'minimal one-tool SDK v2 server (`bench/minimal-server.mjs`)' : name.replace(/^omg /, 'openapi-mcp-generator '),
    c.tools !== undefined ? int(c.tools) : '',
    c.error ? `failed: ${c.error}` : msf(c.ms),
    x(c.ms / minimal),
    `${msf(Math.min(...c.runs.filter(Number.isFinite)))} – ${msf(Math.max(...c.runs.filter(Number.isFinite)))}`,
    c.note ?? '',
  ]);
  const p = st.probes;
  const steps = startSteps(p);
  return [
    '## 3. Cold start',
    '',
    `Spawn → \`initialize\` answered, over stdio, timed around \`Client.connect()\` of the official SDK client (\`@modelcontextprotocol/client\`, \`StdioClientTransport\`). Median of ${st.reps} runs, the servers interleaved.`,
    '',
    table(['server', 'tools', 'median', '× minimal', 'range', 'note'], rows),
    '',
    `Where the GitHub server's start-up goes (\`bench/start-probe.mjs\`: growing parts of the start-up, each in a fresh process, in-process time, median of ${st.reps}; each step is the difference to the previous part): importing the SDK (\`@modelcontextprotocol/server\` + \`/stdio\`) ${msf(steps.sdk)}; + ajv and ajv-formats ${msf(steps.ajv)}; + the rest of the generated runtime ${msf(steps.ours)}; + reading and parsing \`tools.json\` (${mb(st.tableBytes)}) ${msf(steps.table)}. (Node itself, before any of it: ${msf(p.none ?? NaN, 1)} in-process; a process spawn adds ~50–100 ms of Node start-up to every server alike.)`,
    '',
  ];
}
