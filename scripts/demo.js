// The quick start's first command: start a local Petstore API (scripts/petstore-upstream.js),
// generate the Petstore sample's server, install, build and start it over Streamable HTTP
// against that API, so that its tools answer on a machine without internet. PORT chooses the
// MCP server's port (default 3000); DEMO_DIR the project folder (default .demo/petstore).
import { spawnSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startPetstore } from './petstore-upstream.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const out = process.env.DEMO_DIR ?? `${repo}.demo/petstore`;
const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run('node', [`${repo}bin/mcp-gen.js`, `${repo}samples/petstore/openapi.json`, '--out', out, '--force', '--quiet'], repo);
console.log(`Generated the Petstore MCP server in ${out}; installing and building it…`);
run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], out);
run('npm', ['run', 'build', '--silent'], out);

const petstore = await startPetstore(Number(process.env.DEMO_API_PORT ?? 0));
const port = process.env.PORT ?? '3000';
console.log(`\nPetstore API (local, in memory): ${petstore.url}`);
console.log(`Petstore MCP server: Streamable HTTP at http://127.0.0.1:${port}/mcp (Ctrl-C stops both)`);
console.log(`Try a tool call:   ${port === '3000' ? '' : `PORT=${port} `}node scripts/demo-call.js getPetById '{"petId":1}'`);
// The local Petstore accepts any credentials, as the public one does.
const env = { SWAGGER_PETSTORE_AUTH_TOKEN: 'demo', SWAGGER_PETSTORE_API_KEY: 'special-key', ...process.env };
const server = spawn('node', ['dist/main.js', '--transport', 'http', '--port', port, '--base-url', petstore.url], {
  cwd: out,
  stdio: 'inherit',
  env,
});
const stop = (signal) => server.kill(signal);
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
server.on('exit', async (code) => {
  await petstore.close();
  process.exit(code ?? 0);
});
