// The official MCP Inspector's CLI in strict mode (`--cli --strict --method tools/list`), which
// lints every listed tool schema for portability (type arrays, untyped and boolean schemas,
// remote refs) and reports each finding on stderr. Generated servers under the default
// `portable` profile must give it nothing to report, on Petstore and on all of GitHub's
// 1,223 operations; `--client-profile full` is the control that shows the lint bites.
// The Inspector needs Node >= 22 while this repository runs on Node 20: test/harness/inspector.ts
// installs both into test/.tmp/_inspector.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProject, generateProject, REPO } from '../../harness/project.js';
import { installInspector, runInspector, type InspectorLimits } from '../harness/inspector.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';
import type { ToolTable } from '../../src/contract/table.js';
import { operationTools } from '../../src/contract/meta-tools.js';

/** A strict listing of all of GitHub takes minutes and prints tens of MB of findings. */
const LINT_LIMITS: InspectorLimits = { timeoutMs: 180_000, maxBuffer: 64 * 1024 * 1024 };

interface Lint {
  exitCode: number;
  tools: number;
  /** "Warning: tool …" / "Error: tool …" blocks on stderr. */
  findings: string[];
  /** The count line, e.g. "0 errors, 22026 warnings across 920 tools." */
  summary: string | undefined;
  stderr: string;
}

/** `inspector --cli --strict --method tools/list node <dir>/dist/main.js <args>` over stdio. */
function lint(dir: string, args: string[]): Promise<Lint> {
  return lintCommand([join(dir, 'dist/main.js'), ...args]);
}

/** The same for `node <argv>`. */
async function lintCommand(argv: string[]): Promise<Lint> {
  const { exitCode, stdout, stderr } = await runInspector(['--strict', '--method', 'tools/list', 'node', ...argv], {}, LINT_LIMITS);
  let tools = -1;
  try {
    tools = (JSON.parse(stdout) as { tools: unknown[] }).tools.length;
  } catch {
    // reported through tools = -1
  }
  return {
    exitCode,
    tools,
    findings: stderr.split('\n').filter((l) => /^(Warning|Error): tool /.test(l)),
    summary: /\d+ errors?, \d+ warnings? across \d+ tools?\./.exec(stderr)?.[0],
    stderr,
  };
}

const projects: Record<string, { dir: string; table: ToolTable }> = {};
beforeAll(async () => {
  await installInspector();
  for (const [name, spec] of [
    ['petstore', join(REPO, 'samples/petstore/openapi.json')],
    ['github', GITHUB_SPEC],
  ] as const) {
    const dir = generateProject(spec, `e2e-inspector-${name}`);
    await buildProject(dir);
    projects[name] = { dir, table: JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as ToolTable };
  }
}, 900_000);

const BASE = ['--base-url', 'http://127.0.0.1:9', '--log-level', 'error'];

describe('inspector --cli --strict on the portable profile (the default)', () => {
  it('Petstore with default options: every tool listed, nothing to report', async () => {
    const { dir, table } = projects.petstore as { dir: string; table: ToolTable };
    const r = await lint(dir, BASE);
    expect(r.findings, r.stderr).toEqual([]);
    expect(r.summary).toBeUndefined(); // printed only when there is a finding
    expect(r.exitCode).toBe(0);
    expect(r.tools).toBe(table.tools.length + operationTools(table).length);
  }, 200_000);

  it("GitHub's 1,223 operations listed with --tools direct: nothing to report", async () => {
    const { dir, table } = projects.github as { dir: string; table: ToolTable };
    const r = await lint(dir, [...BASE, '--tools', 'direct']);
    expect(r.findings.slice(0, 5), r.stderr.slice(0, 2000)).toEqual([]);
    expect(r.summary).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(r.tools).toBe(table.tools.length + operationTools(table).length);
  }, 200_000);

  it('GitHub with default options (its default mode): nothing to report either', async () => {
    const { dir, table } = projects.github as { dir: string; table: ToolTable };
    const r = await lint(dir, BASE);
    expect(r.findings).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.tools).toBeGreaterThan(0);
    expect(r.tools).toBeLessThanOrEqual(128);
    expect(table.serve?.mode).toBeDefined();
  }, 200_000);
});

describe('mcp-gen serve, as the inspector starts it', () => {
  it('Petstore served straight from the spec: every tool listed, nothing to report', async () => {
    const r = await lintCommand([join(REPO, 'bin/mcp-gen.js'), 'serve', join(REPO, 'samples/petstore/openapi.json'), ...BASE]);
    expect(r.findings, r.stderr).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.tools).toBe((projects.petstore as { table: ToolTable }).table.tools.length);
  }, 200_000);
});

/** `inspector --cli <method options> node <dir>/dist/main.js …`: its JSON answer on stdout. */
async function inspect(dir: string, method: string[]): Promise<unknown> {
  const env = { SWAGGER_PETSTORE_API_KEY: 'k' };
  const run = await runInspector([...method, 'node', join(dir, 'dist/main.js'), ...BASE], env, { timeoutMs: 120_000 });
  if (run.exitCode !== 0) throw new Error(`inspector ${method.join(' ')} failed: ${run.stderr.slice(0, 2000)}`);
  try {
    return JSON.parse(run.stdout);
  } catch {
    throw new Error(`inspector ${method.join(' ')} printed no JSON: ${run.stdout.slice(0, 500)}`);
  }
}

describe('resources and prompts through the inspector CLI', () => {
  it('lists and reads the documentation resources, lists and gets the prompts', async () => {
    const { dir } = projects.petstore as { dir: string };
    const resources = (await inspect(dir, ['--method', 'resources/list'])) as { resources: { uri: string }[] };
    expect(resources.resources.map((r) => r.uri)).toContain('swagger-petstore://docs/pet');
    const read = (await inspect(dir, ['--method', 'resources/read', '--uri', 'swagger-petstore://docs/pet'])) as {
      contents: { text: string }[];
    };
    expect(read.contents[0]?.text).toContain('`getPetById`');
    const prompts = (await inspect(dir, ['--method', 'prompts/list'])) as { prompts: { name: string }[] };
    expect(prompts.prompts.map((p) => p.name)).toEqual(['use_pet', 'use_store', 'use_user']);
    const got = (await inspect(dir, ['--method', 'prompts/get', '--prompt-name', 'use_user'])) as {
      messages: { content: { text: string } }[];
    };
    expect(got.messages[0]?.content.text).toContain('You can use the user tools of the Swagger Petstore API');
  }, 300_000);
});

describe('the control: --client-profile full', () => {
  it('GitHub listed in full gives the inspector thousands of type-array warnings', async () => {
    const { dir } = projects.github as { dir: string; table: ToolTable };
    const r = await lint(dir, [...BASE, '--tools', 'direct', '--client-profile', 'full']);
    const warnings = Number(/(\d+) warnings?/.exec(r.summary ?? '')?.[1] ?? 0);
    expect(warnings).toBeGreaterThan(1000);
    expect(r.findings.length).toBe(warnings);
  }, 200_000);
});
