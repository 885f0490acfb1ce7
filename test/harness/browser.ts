// A real browser for tests of pages a person sees (the OAuth consent page): Debian's Chromium
// (apt-get install chromium; .ci/run does it) driven by playwright-core. Never a browser
// playwright downloads: `npx playwright install` does not work on these machines.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO } from '../../harness/project.js';

/** The system Chromium, or the one CHROMIUM_PATH names. */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Chromium's switches for these machines (playwright adds its own defaults too; these are the
 * ones the tests rely on, stated so that they do not depend on playwright's list):
 * - --no-sandbox: tests run as root in containers, where Chromium's sandbox refuses to start.
 * - --disable-gpu: no GPU here; software rendering, and no GPU process failing at start.
 * - --disable-background-networking, --disable-component-update, --disable-sync, --disable-quic:
 *   the network is closed, and without them Chromium keeps reaching out (safe browsing,
 *   component and variations updates, sync, QUIC probes), flooding it with refused connections.
 * - --no-first-run: no first-run dialogs or imports.
 */
const SWITCHES = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here (to skip them with), or undefined when they can. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return process.env.CHROMIUM_PATH
    ? `CHROMIUM_PATH=${CHROMIUM} does not exist`
    : `no ${CHROMIUM} (apt-get install chromium; .ci/run does it; or set CHROMIUM_PATH)`;
}

/**
 * A headless Chromium. A plain launch starts it with a fresh, empty user-data directory of its
 * own (playwright makes one under the temp directory and removes it on close), so no test sees
 * another's cookies or storage. Close it when done.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: SWITCHES });
}

/** Where a test writes its screenshot `name` (test-output/screenshots/ at the repo root, ignored by git). */
export function screenshotPath(name: string): string {
  const dir = join(REPO, 'test-output/screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name.endsWith('.png') ? name : `${name}.png`);
}
