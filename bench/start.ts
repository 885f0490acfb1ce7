// 3. Cold start: spawn → `initialize` answered over stdio, through the official SDK client,
// for the generated Petstore and GitHub servers of both generators and a minimal one-tool SDK
// v2 server (the floor). Then where the GitHub server's extra time goes, probe by probe, and
// the cold start through the first tools/call (first-call.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stdioClient, type ServerCommand } from './lib/clients.js';
import { mcpGenProject, omgProject, placeIn } from './lib/fixtures.js';
import { START_SERVERS, type StartResult, type StartServer } from './lib/results.js';
import { interleave, log, median } from './lib/util.js';
import { runFirstCall } from './first-call.js';

export async function runStart(options: { quick: boolean }): Promise<StartResult> {
  const reps = options.quick ? 3 : 7;
  const petstore = await mcpGenProject('petstore');
  const github = await mcpGenProject('github');
  const dynamic = await mcpGenProject('github-dynamic');
  const omgPet = await omgProject('petstore');
  const omgGithub = await omgProject('github');
  const servers: Partial<Record<StartServer, ServerCommand & { note?: string }>> = {
    minimal: { args: [placeIn(petstore, 'minimal-server.mjs')] },
    'mcp-gen petstore': { args: [join(petstore, 'dist/main.js')] },
    'mcp-gen github': { args: [join(github, 'dist/main.js')] },
    'mcp-gen github dynamic': { args: [join(dynamic, 'dist/main.js')] },
  };
  if (existsSync(omgPet.entry)) servers['omg petstore'] = { args: [omgPet.entry], cwd: omgPet.dir };
  if (existsSync(omgGithub.entry)) {
    servers['omg github'] = {
      args: [omgGithub.entry],
      cwd: omgGithub.dir,
      ...(omgGithub.built ? {} : { note: 'its build failed; this runs the JavaScript tsc emitted anyway' }),
    };
  }
  const names = START_SERVERS.filter((s) => servers[s]);
  log(`cold start: ${reps} × ${names.join(', ')}`);
  const tools: Partial<Record<StartServer, number>> = {};
  const errors: Partial<Record<StartServer, string>> = {};
  const runs = await interleave(reps, names, async (name) => {
    try {
      const { client, ms } = await stdioClient(servers[name] as ServerCommand);
      if (tools[name] === undefined) tools[name] = (await client.listTools()).tools.length;
      await client.close();
      return ms;
    } catch (error) {
      errors[name] ??= (error as Error).message.split('\n')[0];
      return NaN;
    }
  });
  const cells: StartResult['cells'] = {};
  for (const name of names) {
    const note = servers[name]?.note;
    const error = errors[name];
    cells[name] = {
      runs: runs[name],
      ms: median(runs[name]),
      ...(tools[name] !== undefined ? { tools: tools[name] } : {}),
      ...(note ? { note } : {}),
      ...(error ? { error } : {}),
    };
  }

  const probeFile = placeIn(github, 'start-probe.mjs');
  const probeNames = ['none', 'sdk', 'sdk+ajv', 'runtime', 'runtime+table'];
  log(`cold start: ${reps} × start-up probes of the GitHub server`);
  const probeRuns = await interleave(reps, probeNames, async (probe) =>
    Number(execFileSync(process.execPath, [probeFile, probe], { cwd: github, encoding: 'utf8' }).trim()),
  );
  const probes = Object.fromEntries(probeNames.map((p) => [p, median(probeRuns[p] ?? [])]));
  const tableText = readFileSync(join(github, 'tools.json'), 'utf8');
  const executor = readFileSync(join(github, 'lib/runtime/call/executor.js'), 'utf8');
  const ajvStaticImport = /^import [^\n]* from ['"]ajv(\/|-formats|['"])/m.test(executor);
  return {
    reps,
    cells,
    probes,
    ajvStaticImport,
    tableBytes: Buffer.byteLength(tableText),
    tableCompactBytes: Buffer.byteLength(JSON.stringify(JSON.parse(tableText))),
    firstCall: await runFirstCall(reps),
  };
}
