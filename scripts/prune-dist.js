// Build step: removes what dist/src holds for a source file src/ no longer has, so that a
// runtime module removed or renamed leaves no stale copy for src/emit/project.ts to ship into
// every generated project's lib/. Only stale files go: tests running meanwhile keep their dist.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = /(\.d\.ts|\.js)$/;

function prune(dir) {
  for (const name of readdirSync(join(REPO, 'dist', dir))) {
    const path = join(dir, name);
    if (statSync(join(REPO, 'dist', path)).isDirectory()) prune(path);
    else if (!existsSync(join(REPO, path.replace(OUTPUT, '.ts')))) rmSync(join(REPO, 'dist', path));
  }
}

if (existsSync(join(REPO, 'dist/src'))) prune('src');
