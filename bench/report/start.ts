// Section 3, cold start: spawn → initialize answered, the probes of the GitHub server's
// start-up, and #30's target: ≤ 1.1× the minimal SDK server.
import type { Results } from '../lib/results.js';
import { int, mb, msf, notMeasured, table, x, type Target } from './format.js';

const START_LIMIT = 1.1;
const START_TARGET = `Cold start of the GitHub server ≤ ${START_LIMIT}× a minimal SDK v2 server`;

export function startTarget(r: Results): Target {
  const gh = r.start?.cells['mcp-gen github'];
  const minimal = r.start?.cells.minimal;
  if (!gh || !minimal) return notMeasured(START_TARGET);
  return {
    target: START_TARGET,
    measured: `${msf(gh.ms)} vs ${msf(minimal.ms)}`,
    ratio: x(gh.ms / minimal.ms),
    met: gh.ms / minimal.ms <= START_LIMIT,
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
  if (!start || !gh || !pet || !minimal || gh.ms / minimal.ms <= START_LIMIT) return [];
  const step = startSteps(start.probes);
  return [
    `**Cold start.** The GitHub server answers \`initialize\` ${msf(gh.ms)} after spawn, the minimal one-tool server ${msf(minimal.ms)} (${x(gh.ms / minimal.ms)}); the Petstore server (20 tools, same runtime) ${msf(pet.ms)} (${x(pet.ms / minimal.ms)}). ` +
      `Both answer \`initialize\` from \`tools-summary.json\` (about 1 KB) and read \`tools.json\` on the first request that needs it, so what they add to the minimal server is the same for both: the generated runtime's start-up modules (${msf(step.ours)} in the probe, on top of the SDK's ${msf(step.sdk)}). ` +
      `*Next step:* the gap between the two mcp-gen servers is noise when it is not ${msf(step.table)} (the table's parse, which no longer precedes the answer); what remains is module loading, which a single bundled file for the start path would cut.`,
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
