// The default tools/list prepared at generation (tools-listed.json, issue #43): a stdio server
// started without options that change its listing serves it as it is, and what it sends is byte
// for byte what the general path (the same server without the file) lists. A copy whose prepared
// file carries a marker shows that the file is what is served; with any option that changes the
// listing, or beside a tools.json changed since generation, the marker never shows and the
// answer is the general path's. GitHub (1,224 tools, some of them tasks) in direct mode, and in
// dynamic and code mode (meta-tools, pinned tools).
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, generateProject, TMP } from '../../harness/project.js';
import { GITHUB_SPEC } from '../../harness/corpora.js';
import { Children } from '../harness/children.js';

const children = new Children();
const MARK = 'PREPARED-LISTING-MARK';

/** The tools/list answer line of a fresh stdio server in `dir`, as it came over the wire. */
async function listingLine(dir: string, args: string[] = []): Promise<string> {
  const listed = listOnce(dir, args);
  const line = await listed.line;
  listed.child.stdin.end();
  return line;
}

/**
 * A fresh stdio server in `dir`, initialized and asked for tools/list once: the answer's line,
 * and how the server exits (its stdin stays open until the caller ends it).
 */
function listOnce(dir: string, args: string[]) {
  const child = children.track(
    spawn(process.execPath, [join(dir, 'dist/main.js'), '--log-level', 'error', ...args], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  const line = new Promise<string>((resolve, reject) => {
    void exit.then(({ code }) => reject(new Error(`the server exited with ${code} before listing: ${stderr}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const answer = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        const id = (JSON.parse(answer) as { id?: number }).id;
        if (id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list', params: {} });
        } else if (id === 2) resolve(answer);
      }
    });
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  });
  return { child, line, exit };
}

/** A copy of a built project beside it, changed by `change` (node_modules stays the shared link). */
function variant(dir: string, name: string, change: (copy: string) => void): string {
  const copy = `${dir}-${name}`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
  change(copy);
  return copy;
}

/** The prepared listing with the description of its last tool replaced by the marker (its fingerprint kept). */
function markPrepared(dir: string): void {
  const file = join(dir, 'tools-listed.json');
  const prepared = JSON.parse(readFileSync(file, 'utf8')) as { tools: { description: string }[] };
  (prepared.tools.at(-1) as { description: string }).description = MARK;
  writeFileSync(file, JSON.stringify(prepared));
}

interface Variants {
  prepared: string;
  general: string;
  marked: string;
}

async function variantsOf(name: string, args: string[]): Promise<Variants> {
  const prepared = generateProject(GITHUB_SPEC, join(TMP, name), args);
  await buildProject(prepared);
  return {
    prepared,
    general: variant(prepared, 'general', (copy) => rmSync(join(copy, 'tools-listed.json'))),
    marked: variant(prepared, 'marked', markPrepared),
  };
}

/** A default start lists byte for byte what the general path lists, and from the prepared file (the marked copy shows it); the general listing. */
async function expectPreparedServed(dirs: Variants): Promise<string> {
  const general = await listingLine(dirs.general);
  expect(await listingLine(dirs.prepared)).toBe(general);
  expect(await listingLine(dirs.marked)).toContain(MARK);
  return general;
}

/** With `args`, the marked copy lists the general way: never its marker, and byte for byte the general path. */
async function expectGeneralWith(dirs: Variants, args: string[]): Promise<void> {
  const served = await listingLine(dirs.marked, args);
  expect(served).not.toContain(MARK);
  expect(served).toBe(await listingLine(dirs.general, args));
}

afterAll(() => children.stopAll());

describe('GitHub, direct mode', () => {
  let dirs: Variants;
  beforeAll(async () => {
    dirs = await variantsOf('e2e-prepared-listing-direct', ['--tools', 'direct']);
  }, 240_000);

  it('serves the prepared listing to a default start, byte for byte the general listing', async () => {
    const general = await expectPreparedServed(dirs);
    expect(JSON.parse(general).result.tools).toHaveLength(1224);
    expect(general).toContain('"taskSupport":"optional"');
  }, 60_000);

  it.each([
    [['--read-only']],
    [['--toolsets', 'repos,issues']],
    [['--toolsets', 'all']],
    [['--client-profile', 'full']],
    [['--client-profile', 'openai-strict']],
    [['--tools', 'dynamic']],
    [['--tools', 'code']],
    [['--tools', 'toolsets']],
  ])('lists the general way with %j', (args) => expectGeneralWith(dirs, args), 60_000);

  // A tools.json that does not parse, with the listing's fingerprint made of its bytes: the
  // listing is answered, so it did not wait for the parse; the server then fails on the table
  // unasked, so the parse starts as soon as the listing is out.
  it('answers the first tools/list before the table is parsed, and parses it right after', async () => {
    const unparsable = variant(dirs.prepared, 'unparsable', (copy) => {
      const table = readFileSync(join(copy, 'tools.json'));
      const cut = table.subarray(0, table.lastIndexOf('}'));
      writeFileSync(join(copy, 'tools.json'), cut);
      const file = join(copy, 'tools-listed.json');
      const listing = JSON.parse(readFileSync(file, 'utf8')) as { table: string };
      writeFileSync(file, JSON.stringify({ ...listing, table: `${cut.length}:${crc32(cut).toString(16)}` }));
    });
    const listed = listOnce(unparsable, []);
    expect(JSON.parse(await listed.line).result.tools).toHaveLength(1224);
    const { code, stderr } = await listed.exit;
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot read the tool table .*tools\.json/);
  }, 60_000);

  it('lists a tools.json changed since generation from that table, not from the prepared listing', async () => {
    const edited = variant(dirs.marked, 'edited', (copy) => {
      const file = join(copy, 'tools.json');
      const table = JSON.parse(readFileSync(file, 'utf8')) as { tools: { description: string }[] };
      (table.tools.at(-1) as { description: string }).description = 'Edited by hand.';
      writeFileSync(file, JSON.stringify(table));
    });
    const served = await listingLine(edited);
    expect(served).not.toContain(MARK);
    expect(served).toContain('"description":"Edited by hand."');
  }, 60_000);
});

// Code mode's and dynamic mode's meta-tools, with two operations pinned beside them (--direct-tools).
describe.each([
  ['dynamic', 'invoke_operation', 'code'],
  ['code', 'execute', 'dynamic'],
])('GitHub, %s mode with pinned tools', (mode, metaTool, otherMode) => {
  let dirs: Variants;
  beforeAll(async () => {
    dirs = await variantsOf(`e2e-prepared-listing-${mode}`, ['--tools', mode, '--direct-tools', 'meta_root,repos_get']);
  }, 240_000);

  it('serves the prepared meta-tools and pinned tools, byte for byte the general listing', async () => {
    const general = await expectPreparedServed(dirs);
    const names = (JSON.parse(general).result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([metaTool, 'meta_root', 'repos_get']));
  }, 60_000);

  it.each([[['--tools', 'direct']], [['--tools', otherMode]], [['--client-profile', 'gemini']], [['--toolsets', 'repos']]])(
    'lists the general way with %j',
    (args) => expectGeneralWith(dirs, args),
    60_000,
  );
});
