// A Microsoft Graph-sized spec (20,000 operations, ~30 MB of pretty-printed JSON, generated
// by harness/synthetic.ts) through the built CLI with the V8 heap capped at 1 GiB: it must
// finish with bounded memory, not die of it, in direct and in dynamic mode, and its direct
// tools/list must be fitted to what clients read in one message.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticSpec } from '../../harness/synthetic.js';
import { buildCli, REPO } from '../../harness/project.js';

const OPERATIONS = 20_000;
const HEAP_MB = 1024;
const scratch = mkdtempSync(join(tmpdir(), 'mcp-gen-huge-'));
const spec = join(scratch, 'graph-sized.json');

beforeAll(() => {
  buildCli();
  writeFileSync(spec, JSON.stringify(syntheticSpec(OPERATIONS), null, 2));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function generate(out: string, extra: string[] = []) {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, join(REPO, 'bin/mcp-gen.js'), spec, '--out', out, ...extra], {
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const toolsIn = (out: string) =>
  JSON.parse(readFileSync(join(out, 'tools.json'), 'utf8')) as { tools: unknown[]; serve?: { mode: string } };

describe(`a spec of ${OPERATIONS.toLocaleString('en')} operations`, () => {
  it('is tens of MB', () => {
    expect(statSync(spec).size).toBeGreaterThan(20 * 1024 * 1024);
  });

  it(`generates within a ${HEAP_MB} MiB heap, with a --tools direct list fitted under 8 MiB even in full`, () => {
    const out = join(scratch, 'direct');
    const r = generate(out, ['--tools', 'direct']);
    expect(r.stderr).not.toMatch(/heap out of memory|FATAL/);
    expect([r.code, r.signal]).toEqual([0, null]);
    expect(toolsIn(out).tools).toHaveLength(OPERATIONS);
    const listed = /tools\/list (\d+\.\d) MB instead of (\d+\.\d) MB/.exec(r.stdout);
    expect(listed, r.stdout).not.toBeNull();
    expect(Number(listed?.[1])).toBeLessThanOrEqual(8);
    expect(Number(listed?.[2])).toBeGreaterThan(8);
  }, 240_000);

  it('by default too, where it is served in code mode: far over the budget, with toolsets of 400 tools, answering typed JSON', () => {
    const out = join(scratch, 'code');
    const r = generate(out);
    expect([r.code, r.signal]).toEqual([0, null]);
    const table = toolsIn(out);
    expect(table.serve?.mode).toBe('code');
    expect(r.stdout).toMatch(
      /tools\/list: code by default, 2 tools in \d KB \(20000 tools in \d+ KB are over the budget of 128 tools and 100 KB, and 50 toolsets .*; \d+ of 20000 operations answer typed JSON/,
    );
    expect(table.tools).toHaveLength(OPERATIONS);
    expect(r.stdout).not.toMatch(/warning: tools\/list/);
  }, 240_000);
});
