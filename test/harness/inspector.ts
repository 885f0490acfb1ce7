// The official MCP Inspector and the Node 22 it needs (this repository runs on Node 20): like the
// conformance test, installed with the npm package `node` (a Node 22 binary) into a folder of its
// own, test/.tmp/_inspector, pinned by test/fixtures/inspector/package.json, never into the root.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TMP } from '../../harness/project.js';
import { installPinned, pinnedVersions } from './pinned-tools.js';

const INSPECTOR_DIR = join(TMP, '_inspector');
/** The Node 22 binary the Inspector runs on. */
export const NODE22 = join(INSPECTOR_DIR, 'node_modules/node/bin/node');
/** The Inspector's launcher: `NODE22 LAUNCHER --cli …`. */
export const LAUNCHER = join(INSPECTOR_DIR, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

export async function installInspector(): Promise<void> {
  const pinned = pinnedVersions('inspector');
  await installPinned('inspector', () => existsSync(NODE22) && existsSync(LAUNCHER));
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

/** How long the CLI may run and how much it may print (a listing of all of GitHub is tens of MB). */
export interface InspectorLimits {
  timeoutMs?: number;
  maxBuffer?: number;
}

/** `NODE22 LAUNCHER --cli <argv>` with its catalog in the install's own HOME: exit code, stdout, stderr. */
export function runInspector(
  argv: string[],
  env: Record<string, string> = {},
  { timeoutMs = 60_000, maxBuffer = 16 * 1024 * 1024 }: InspectorLimits = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const home = join(INSPECTOR_DIR, 'home');
  mkdirSync(home, { recursive: true });
  return new Promise((resolve, reject) => {
    execFile(
      NODE22,
      [LAUNCHER, '--cli', ...argv],
      { env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...env }, timeout: timeoutMs, maxBuffer },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(new Error(`the inspector did not run (${error.message}):\n${stderr}`));
        resolve({ exitCode: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}
