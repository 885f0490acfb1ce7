// The built CLI run as a user runs it: `node bin/mcp-gen.js …` in a folder, colours off and
// MCP_GEN_DEBUG unset (so an error is the one line a user sees), with its exit code and output.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from '../../harness/project.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = join(REPO, 'bin/mcp-gen.js');

export function runCli(args: string[], cwd: string): CliRun {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.MCP_GEN_DEBUG;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
