// The quick start's first command: generate the Petstore sample's server, install, build and
// start it over Streamable HTTP, so that a client (or mcp-probe) can connect right away.
import { spawnSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const out = `${repo}.demo/petstore`;
const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run('node', [`${repo}bin/mcp-gen.js`, `${repo}samples/petstore/openapi.json`, '--out', out, '--force'], repo);
run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], out);
run('npm', ['run', 'build', '--silent'], out);
const port = process.env.PORT ?? '3000';
console.log(`\nStarting the Petstore MCP server: Streamable HTTP at http://127.0.0.1:${port}/mcp (Ctrl-C stops it)`);
// The public Petstore accepts any token and the documented key "special-key".
const env = { SWAGGER_PETSTORE_AUTH_TOKEN: 'demo', SWAGGER_PETSTORE_API_KEY: 'special-key', ...process.env };
const server = spawn('node', ['dist/main.js', '--transport', 'http', '--port', port], { cwd: out, stdio: 'inherit', env });
process.on('SIGINT', () => server.kill('SIGINT'));
server.on('exit', (code) => process.exit(code ?? 0));
