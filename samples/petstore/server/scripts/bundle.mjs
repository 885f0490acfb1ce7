// npm run bundle: writes <name>.mcpb, the Claude Desktop extension bundle of this server, with the
// official packer (@anthropic-ai/mcpb). The bundle holds the built server (dist/, one bundle:
// no node_modules), tools.json and its summary, the manifest and the README, copied into a
// staging folder: never .env, src/ or lib/. The API's logo (the spec's x-logo, an https URL) becomes the bundle's icon when it
// is a PNG of at most 1 MB; otherwise the bundle has none. A logo on a public host may redirect (https only, 3 hops), but
// not into the internal network: the spec's author does not choose what this machine fetches there (docs/SECURITY.md).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  for (const file of ['manifest.json', 'package.json', 'tools.json', 'tools-summary.json', 'tools-listed.json', 'README.md', 'dist']) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(stage, file), { recursive: true });
  }
  await addIcon(join(stage, 'manifest.json'), join(stage, 'icon.png'));
  run(['exec', '--no', '--', 'mcpb', 'pack', stage, out], root);
  console.log(`wrote ${out}`);
} catch (error) {
  console.error(`bundle: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  process.exitCode = 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}

async function addIcon(manifestPath, iconPath) {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const url = manifest._meta?.['mcp-gen']?.icon_url;
  if (typeof url !== 'string' || !url.startsWith('https://')) return;
  const png = await fetchPng(new URL(url)).catch(() => 'could not be fetched');
  if (typeof png === 'string') {
    console.log(`bundle: no icon (the logo at ${url} ${png})`);
    return;
  }
  writeFileSync(iconPath, png);
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, icon: 'icon.png' }, null, 2));
}

const NOT_PNG = 'could not be fetched as a PNG of at most 1 MB';

/** The logo's bytes, or why there are none. Redirects are followed here, each hop checked before it is fetched. */
async function fetchPng(start) {
  const { internalAddressOf } = await import('../lib/contract/addresses.js');
  const signal = AbortSignal.timeout(5000);
  let fromPublic; // decided at the first redirect away from the logo's own origin
  let at = start;
  for (let hop = 0; hop <= 3; hop++) {
    if (at.protocol !== 'https:') return 'redirects to a URL that is not https';
    if (fromPublic && at.origin !== start.origin && (await internalAddressOf(at)) !== undefined)
      return `redirects from a public host into the internal network (${at.host}): not followed`;
    const response = await fetch(at, { signal, redirect: 'manual' });
    const location = [301, 302, 303, 307, 308].includes(response.status) ? response.headers.get('location') : null;
    if (location === null) return pngOf(response);
    await response.body?.cancel();
    at = new URL(location, at);
    if (at.origin !== start.origin) fromPublic ??= (await internalAddressOf(start)) === undefined;
  }
  return 'redirects more than 3 times';
}

async function pngOf(response) {
  const length = Number(response.headers.get('content-length') ?? 0);
  if (!response.ok || length > 1024 * 1024) return NOT_PNG;
  const bytes = Buffer.from(await response.arrayBuffer());
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes.length <= 1024 * 1024 && bytes.subarray(0, 8).equals(signature) ? bytes : NOT_PNG;
}
