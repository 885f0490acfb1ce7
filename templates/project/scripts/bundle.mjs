// npm run bundle: writes <name>.mcpb, the Claude Desktop extension bundle of this server, with the
// official packer (@anthropic-ai/mcpb). The bundle holds the built server, tools.json, the manifest
// and the production dependencies only, installed afresh in a staging folder: never .env, src/ or
// development packages.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, `${name}.mcpb`);
const stage = mkdtempSync(join(tmpdir(), 'mcpb-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (args, cwd) => execFileSync(npm, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });

try {
  if (!existsSync(join(root, 'dist/main.js'))) throw new Error('dist/main.js is missing: run npm run build first');
  for (const file of ['manifest.json', 'package.json', 'package-lock.json', 'tools.json', 'README.md', 'dist']) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(stage, file), { recursive: true });
  }
  const install = existsSync(join(stage, 'package-lock.json')) ? 'ci' : 'install';
  run([install, '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], stage);
  run(['exec', '--no', '--', 'mcpb', 'pack', stage, out], root);
  console.log(`wrote ${out}`);
} catch (error) {
  console.error(`bundle: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  process.exitCode = 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
