// The official MCP Inspector and the Node 22 it needs (this repository runs on Node 20): like the
// conformance test, installed with the npm package `node` (a Node 22 binary) into a folder of its
// own, test/.tmp/_inspector, pinned by test/fixtures/inspector/package.json, never into the root.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, TMP, withLock } from '../../harness/project.js';

const FIXTURE = join(REPO, 'test/fixtures/inspector/package.json');
export const INSPECTOR_DIR = join(TMP, '_inspector');
/** The Node 22 binary the Inspector runs on. */
export const NODE22 = join(INSPECTOR_DIR, 'node_modules/node/bin/node');
/** The Inspector's launcher: `NODE22 LAUNCHER --cli …`. */
export const LAUNCHER = join(INSPECTOR_DIR, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

export async function installInspector(): Promise<void> {
  const wanted = readFileSync(FIXTURE, 'utf8');
  const pinned = (JSON.parse(wanted) as { dependencies: Record<string, string> }).dependencies;
  await withLock(`${INSPECTOR_DIR}.lock`, () => {
    const manifest = join(INSPECTOR_DIR, 'package.json');
    if (existsSync(manifest) && readFileSync(manifest, 'utf8') === wanted && existsSync(NODE22) && existsSync(LAUNCHER)) return;
    rmSync(INSPECTOR_DIR, { recursive: true, force: true });
    mkdirSync(INSPECTOR_DIR, { recursive: true });
    writeFileSync(manifest, wanted);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: INSPECTOR_DIR, stdio: 'inherit' });
  });
  const version = existsSync(NODE22) ? execFileSync(NODE22, ['--version'], { encoding: 'utf8' }).trim() : 'missing';
  if (version !== `v${pinned.node}`)
    throw new Error(`${NODE22} is ${version}, not v${pinned.node}: did the \`node\` package's preinstall script run?`);
  const installed = (
    JSON.parse(readFileSync(join(INSPECTOR_DIR, 'node_modules/@modelcontextprotocol/inspector/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  if (installed !== pinned['@modelcontextprotocol/inspector'])
    throw new Error(`inspector ${installed} installed, ${pinned['@modelcontextprotocol/inspector']} pinned`);
}
