// mcp-remote (the stdio-to-HTTP bridge that Claude Desktop and other stdio-only clients run in
// front of a remote server, running the whole OAuth flow itself), for the e2e tests that drive
// it: its pinned install, the headless "browser" it opens URLs in, and the official SDK client's
// stdio transport to it.
//
// The browser is made headless through a documented hook: mcp-remote opens the URL with the
// `open` package, which on Linux runs its bundled xdg-open; without a desktop session (the child
// gets no DISPLAY or XDG_CURRENT_DESKTOP) that script runs $BROWSER with the URL. BROWSER here is
// test/fixtures/mcp-remote/browser.mjs, which posts the URL to the test (startUrlCatcher); the
// test then plays the user's part and, as the browser would, follows the redirect to
// mcp-remote's loopback callback. mcp-remote keeps its client registration and tokens in
// MCP_REMOTE_CONFIG_DIR, a folder of the test run, never in ~/.mcp-auth.
//
// mcp-remote is installed like the Inspector (pinned-tools.ts): pinned by
// test/fixtures/mcp-remote/package.json, into test/.tmp/_mcp-remote, never into the root.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { freePort } from '../../harness/process.js';
import { REPO, TMP } from '../../harness/project.js';
import { installPinned, pinnedVersions } from './pinned-tools.js';

const BROWSER = join(REPO, 'test/fixtures/mcp-remote/browser.mjs');
const DIR = join(TMP, '_mcp-remote');
const PACKAGE = join(DIR, 'node_modules/mcp-remote');
const BIN = join(PACKAGE, 'dist/proxy.js');

export async function installMcpRemote(): Promise<void> {
  const pinned = pinnedVersions('mcp-remote')['mcp-remote'];
  await installPinned('mcp-remote', () => existsSync(BIN));
  const installed = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
  if (installed !== pinned) throw new Error(`mcp-remote ${installed} installed, ${pinned} pinned`);
}

/** Where the browser script posts each URL mcp-remote opens; next() waits for the following one. */
export interface UrlCatcher {
  url: string;
  opened: string[];
  next(timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

export async function startUrlCatcher(): Promise<UrlCatcher> {
  const opened: string[] = [];
  const waiting: ((url: string) => void)[] = [];
  let taken = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      opened.push(body);
      res.end();
      const waiter = waiting.shift();
      if (waiter) {
        taken += 1;
        waiter(body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    opened,
    next: (timeoutMs) => {
      if (opened.length > taken) return Promise.resolve(opened[taken++] as string);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no browser opened within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((url) => {
          clearTimeout(timer);
          resolve(url);
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The environment that makes `open` (xdg-open without a desktop) hand the URLs it opens to `catcher`. */
export function browserEnv(catcher: UrlCatcher): Record<string, string> {
  // xdg-open runs $BROWSER unquoted, split at spaces and colons: node and the script must have neither
  for (const path of [process.execPath, BROWSER]) if (/[\s:]/.test(path)) throw new Error(`cannot pass ${path} in BROWSER`);
  return { BROWSER: `${process.execPath} ${BROWSER}`, MCP_REMOTE_TEST_HANDOFF: catcher.url };
}

/**
 * The SDK client's stdio transport to `node mcp-remote <mcpUrl> --transport http-only`, its
 * stderr kept; `configDir` is its MCP_REMOTE_CONFIG_DIR (and HOME), the URLs it opens go to `catcher`.
 */
export async function mcpRemoteTransport(
  mcpUrl: string,
  configDir: string,
  catcher: UrlCatcher,
  extraArgs: string[] = [],
): Promise<{ transport: StdioClientTransport; stderr: () => string }> {
  const callbackPort = String(await callbackPortFor(configDir));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, mcpUrl, callbackPort, '--transport', 'http-only', '--auth-timeout', '60', ...extraArgs],
    env: {
      HOME: configDir,
      MCP_REMOTE_CONFIG_DIR: configDir,
      ...browserEnv(catcher),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { transport, stderr: () => stderr };
}

const callbackPorts = new Map<string, number>();

/**
 * One loopback callback port per config folder, given to every run on it. Left to itself,
 * mcp-remote derives the port from the server URL and moves on to the next one when another
 * process holds it; a later run back on the derived port then deletes the registration made for
 * the other redirect URI, and the test would see a re-registration it did not cause.
 */
async function callbackPortFor(configDir: string): Promise<number> {
  const known = callbackPorts.get(configDir);
  if (known !== undefined) return known;
  const port = await freePort();
  callbackPorts.set(configDir, port);
  return port;
}

/** mcp-remote's store under MCP_REMOTE_CONFIG_DIR: the folder and its files with their server hash taken off. */
export function mcpRemoteStore(configDir: string): { folder: string; files: string[] } {
  const folder = join(configDir, 'mcp-remote-v1');
  const files = readdirSync(folder)
    .map((f) => f.replace(/^[0-9a-f]+_/, ''))
    .sort();
  return { folder, files };
}

/** The one stored `<hash>_<name>` file of mcp-remote's store, parsed. */
export function mcpRemoteFile<T>(configDir: string, name: string): T {
  const { folder } = mcpRemoteStore(configDir);
  const found = readdirSync(folder).filter((f) => f.endsWith(`_${name}`));
  if (found.length !== 1) throw new Error(`${found.length} files *_${name} in ${folder}`);
  return JSON.parse(readFileSync(join(folder, found[0] as string), 'utf8')) as T;
}
