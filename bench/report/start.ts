// Section 3, cold start: spawn → initialize answered, the probes of the GitHub server's
// start-up, and #30's target: ≤ 1.1× the minimal SDK server; spawn → the first tools/call
// answered, and #43's target: ≤ 0.8× the minimal SDK server doing the same.
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

const FIRST_CALL_LIMIT = 0.8;
const FIRST_CALL_TARGET = `Cold start to the first answered \`tools/call\` (spawn → initialize → tools/list → one call reaching the upstream) ≤ ${FIRST_CALL_LIMIT}× the minimal unbundled SDK server doing the same, Petstore and GitHub (issue #43)`;

/** #43's target: Petstore and GitHub (one tool per operation, the larger listing); GitHub's dynamic mode for information. */
export function firstCallTarget(r: Results): Target {
  const cells = r.start?.firstCall?.cells;
  const minimal = cells?.minimal?.ms;
  const pet = cells?.['mcp-gen petstore']?.ms;
  const gh = cells?.['mcp-gen github']?.ms;
  if (minimal === undefined || pet === undefined || gh === undefined || !Number.isFinite(minimal)) return notMeasured(FIRST_CALL_TARGET);
  const dynamic = cells?.['mcp-gen github dynamic']?.ms;
  const shown = Number.isFinite(dynamic)
    ? `; GitHub \`--tools dynamic\` ${msf(dynamic as number)} (${x((dynamic as number) / minimal)})`
    : '';
  return {
    target: FIRST_CALL_TARGET,
    measured: `Petstore ${msf(pet)}, GitHub ${msf(gh)} vs ${msf(minimal)}${shown}`,
    ratio: `Petstore ${x(pet / minimal)}, GitHub ${x(gh / minimal)}`,
    met: Number.isFinite(pet) && Number.isFinite(gh) && pet / minimal <= FIRST_CALL_LIMIT && gh / minimal <= FIRST_CALL_LIMIT,
  };
}

/** Why #43's target is missed: each mcp-gen server's time after initialize, against the minimal server's. */
export function whyFirstCall(r: Results): string[] {
  const cells = r.start?.firstCall?.cells;
  const minimal = cells?.minimal;
  const pet = cells?.['mcp-gen petstore'];
  const gh = cells?.['mcp-gen github'];
  if (!minimal || !pet || !gh || firstCallTarget(r).met !== false) return [];
  const after = (c: typeof pet) => `${msf(c.listMs - c.initializeMs)} to list, ${msf(c.ms - c.listMs)} to call`;
  return [
    `**Cold start to the first call.** mcp-gen's servers answer \`initialize\` well ahead of the minimal server (Petstore ${msf(pet.initializeMs)}, GitHub ${msf(gh.initializeMs)}, minimal ${msf(minimal.initializeMs)}: one bundle, and the table left for later), then spend what they saved: Petstore ${after(pet)}, GitHub ${after(gh)}, the minimal server ${after(minimal)}. ` +
      "The first `tools/list` loads the modules that serve the table (the service chunk and zod's schemas) and reads and parses `tools.json` (3.28 MB for GitHub); a server started with the settings its project was generated for then serves the listing prepared at generation (`tools-listed.json`, checked against the table it was made from) instead of writing each tool's listed schemas (any other start writes them, `src/contract/profiles.ts`), and the SDK serialises the answer (1.67 MB for GitHub; it checks no tools/list answer against a schema); the first call loads the executor's modules and the validator. " +
      '*What is left:* GitHub still lists 1,224 tools: reading and parsing `tools.json` (~25 ms), reading the prepared listing (~10 ms), the SDK serialising and writing 1.67 MB (~10 ms), and the garbage of all that. 0.8× needs a table whose tools are parsed one by one on first use (every start-up step that scans the table would then need a per-tool summary written at generation) and a listing written to the transport as prepared bytes; neither is built.' +
      (pet.ms > FIRST_CALL_LIMIT * minimal.ms
        ? ` Petstore is ${msf(pet.ms - FIRST_CALL_LIMIT * minimal.ms)} over; in its CPU profile the largest parts are V8 compiling the bundle's code (which the code cache of Node 22.1+, on in the generated \`main.ts\`, cuts; Node 20, on which this runs, has none) and the SDK building its zod schemas as it loads.`
        : ''),
  ];
}

/** The table of the cold starts through the first call, and how to read it. */
function firstCallPart(r: Results): string[] {
  const fc = r.start?.firstCall;
  if (!fc) return [];
  const minimal = fc.cells.minimal?.ms ?? NaN;
  const rows = Object.entries(fc.cells).map(([name, c]) => [
    name === 'minimal'
      ? 'minimal unbundled SDK v2 server, one tool that GETs the upstream (`bench/floor-server.mjs`)'
      : name.replace(/^omg /, 'openapi-mcp-generator '),
    c.tools !== undefined ? int(c.tools) : '',
    msf(c.initializeMs),
    msf(c.listMs),
    c.error ? `failed: ${c.error}` : msf(c.ms),
    x(c.ms / minimal),
    c.runs.length ? `${msf(Math.min(...c.runs))} – ${msf(Math.max(...c.runs))}` : '',
    c.note ?? '',
  ]);
  return [
    `Cold start to the first answered \`tools/call\` (issue #43): spawn → \`initialize\` → \`tools/list\` → one \`tools/call\` (\`getPetById\` on Petstore, \`meta_root\` on GitHub, through \`invoke_operation\` in dynamic mode) whose request reaches the bench's upstream (\`bench/upstream.mjs\`; each server's base URL pointed at it), \`bench/first-call.ts\`. A run counts only if the call's answer is not \`isError\` and the upstream saw exactly its one request. ` +
      'Times from spawn to each answer, median of ' +
      `${fc.reps} runs, the servers interleaved. The messages are the SDK client's, written as JSON-RPC lines on the server's stdin: the times are the servers'. Through the SDK client itself, its own work comes on top, the same for any server listing the same tools: on the first \`callTool\` it compiles an output-schema validator for every tool listed (hundreds of ms for GitHub's 1,224 tools, in the client's process).`,
    '',
    table(['server', 'tools', 'initialize', 'tools/list', 'first call answered', '× minimal', 'range', 'note'], rows),
    '',
  ];
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
      `Both answer \`initialize\` from \`tools-summary.json\` (about 1 KB) and read \`tools.json\` on the first request that needs it, so until then they do the same: start the bundle, which loads the SDK and the rest of the runtime only when the first request needs them (unbundled, in the probe below: the SDK ${msf(step.sdk)}, the rest of the runtime ${msf(step.ours)}). ` +
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
    ...firstCallPart(r),
    `Where the GitHub server's start-up goes (\`bench/start-probe.mjs\`: growing parts of the start-up, each in a fresh process, in-process time, median of ${st.reps}; each step is the difference to the previous part): importing the SDK (\`@modelcontextprotocol/server\` + \`/stdio\`) ${msf(steps.sdk)}; + ajv and ajv-formats ${msf(steps.ajv)}; + the rest of the generated runtime as tsc built it in \`lib/\` ${msf(steps.ours)} (unbundled, every module the server loads for stdio: the bundle that \`dist/main.js\` is answers \`initialize\` before it loads the SDK, and loads the rest when the first request needs it, so these steps say what the runtime costs to load, not when); + reading and parsing \`tools.json\` (${mb(st.tableBytes)}) ${msf(steps.table)}. (Node itself, before any of it: ${msf(p.none ?? NaN, 1)} in-process; a process spawn adds ~50–100 ms of Node start-up to every server alike.)`,
    '',
  ];
}
