// 14. The package a generated project ships: `npm pack`'s tarball installed into an empty folder
// (its size, the time of `npm install <tarball>`, what it puts on disk) and the Claude Desktop
// extension bundle (`npm run bundle`'s .mcpb). The bundled server's cold start against a minimal
// SDK v2 server is section 3's (bench/start.ts runs the same dist/main.js).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mcpGenProject, type McpGenProject } from './lib/fixtures.js';
import type { PackageResult, PackageRow } from './lib/results.js';
import { TMP, ensureDir, log, median, timedRun } from './lib/util.js';

const PROJECTS: { key: McpGenProject; label: string }[] = [
  { key: 'petstore', label: 'Petstore' },
  { key: 'github', label: 'GitHub' },
];

export async function runPackage(options: { quick: boolean }): Promise<PackageResult> {
  const reps = options.quick ? 1 : 5;
  const rows: PackageRow[] = [];
  for (const project of options.quick ? PROJECTS.slice(0, 1) : PROJECTS) {
    const dir = await mcpGenProject(project.key);
    log(`package: ${project.label}, npm pack, ${reps} × npm install of the tarball, npm run bundle`);
    const { tarball, ...pack } = packed(dir);
    rows.push({ project: project.label, ...pack, install: await installs(tarball, reps), mcpbBytes: mcpbBytes(dir) });
  }
  return { reps, rows };
}

/** The tarball `npm pack` writes (the project's prepack builds it first). */
function packed(dir: string): { tarball: string; tarballBytes: number; unpackedBytes: number; files: number } {
  const into = ensureDir(join(TMP, 'package', 'tarballs'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', into, '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
  if (!info) throw new Error(`npm pack in ${dir} printed no package`);
  const tarball = join(into, info.filename);
  return { tarball, tarballBytes: statSync(tarball).size, unpackedBytes: info.unpackedSize, files: info.entryCount };
}

/** `npm install <tarball>` into an empty folder, `reps` times from scratch: the wall time and what it leaves on disk. */
async function installs(tarball: string, reps: number): Promise<PackageRow['install']> {
  const runs: number[] = [];
  let bytes = NaN;
  let packages = NaN;
  for (let i = 0; i < reps; i++) {
    const user = join(TMP, 'package', 'user');
    rmSync(user, { recursive: true, force: true });
    mkdirSync(user, { recursive: true });
    writeFileSync(join(user, 'package.json'), '{ "name": "user", "private": true }\n');
    const run = await timedRun('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: user,
    });
    if (run.code !== 0) throw new Error(`npm install of ${tarball} failed: ${run.output.trim().split('\n').slice(-1)[0] ?? ''}`);
    runs.push(run.ms);
    bytes = folderBytes(join(user, 'node_modules'));
    packages = readdirSync(join(user, 'node_modules')).filter((name) => !name.startsWith('.')).length;
  }
  return { runs, ms: median(runs), bytes, packages };
}

/** Bytes of the files below `dir` (links not followed). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

/** `npm run bundle`: the .mcpb Claude Desktop installs. */
function mcpbBytes(dir: string): number {
  execFileSync('npm', ['run', 'bundle', '--silent'], { cwd: dir, stdio: 'pipe' });
  const file = readdirSync(dir).find((name) => name.endsWith('.mcpb'));
  if (!file) throw new Error(`npm run bundle in ${dir} wrote no .mcpb`);
  return statSync(join(dir, file)).size;
}
