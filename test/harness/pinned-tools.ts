// Third-party tools the tests drive (real clients, the Node versions they need), each installed
// from a pinned manifest in test/fixtures/<name>/package.json into test/.tmp/_<name>, once per
// manifest: never into the root, whose own dependencies stay what the project needs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, TMP, withLock } from '../../harness/project.js';

/** Installs test/fixtures/<name>/package.json into test/.tmp/_<name> unless it is there already; the folder. */
export async function installPinned(name: string, ready: (dir: string) => boolean = () => true): Promise<string> {
  const wanted = readFileSync(join(REPO, 'test/fixtures', name, 'package.json'), 'utf8');
  const dir = join(TMP, `_${name}`);
  await withLock(`${dir}.lock`, () => {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readFileSync(manifest, 'utf8') === wanted && ready(dir)) return;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(manifest, wanted);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  });
  return dir;
}

/** The versions a fixture pins. */
export function pinnedVersions(name: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(REPO, 'test/fixtures', name, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies;
}
