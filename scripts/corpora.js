#!/usr/bin/env node
// `npm run corpora`: installs the real spec corpora (harness/corpora/package.json, pinned by its
// own lockfile) that the corpus check, the benchmarks and the tests of real specs read. They are
// ~800 MB, which a clone's `npm install` and the demo do not need. Run again, it does nothing
// while every package is installed at its pinned version.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '../harness/corpora');
const wanted = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const stale = Object.entries(wanted).filter(([name, version]) => installedVersion(name) !== version);
if (stale.length === 0) {
  console.log('spec corpora: installed');
} else {
  console.log(`spec corpora: installing ${stale.map(([name, version]) => `${name}@${version}`).join(', ')} (~800 MB)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund', '--ignore-scripts'], { stdio: 'inherit' });
}
