// A built project's modules: what its files import statically (read from the JavaScript, as
// a lazy import() is not followed), and short names for the modules a process loaded.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const IMPORT = /^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** A package's name from a bare specifier: `@scope/name/sub` → `@scope/name`. */
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));

/** One file's static imports and re-exports: the files (absolute) and the bare specifiers (node: builtins left out). */
export function importsOf(file: string): { files: string[]; bare: string[] } {
  const files: string[] = [];
  const bare: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const spec = match[1] as string;
    if (spec.startsWith('.')) files.push(resolve(dirname(file), spec));
    else if (!spec.startsWith('node:')) bare.push(spec);
  }
  return { files, bare };
}

/** The modules `entries` reach through static imports: the project's own files, and the packages by name. */
export function staticImports(...entries: string[]): { files: string[]; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file) || !existsSync(file)) return;
    files.add(file);
    const imports = importsOf(file);
    for (const spec of imports.bare) packages.add(packageOf(spec));
    imports.files.forEach(visit);
  };
  entries.forEach(visit);
  return { files: [...files], packages };
}

/**
 * A loaded module's short name: a file of the project's dist/ as its path there
 * (`runtime/retry.js`), a package's file as the package's name; undefined for anything else.
 */
export function moduleName(url: string, dist: string): string | undefined {
  if (!url.startsWith('file:')) return undefined;
  const path = fileURLToPath(url);
  if (path.startsWith(`${dist}/`)) return path.slice(dist.length + 1);
  const at = path.lastIndexOf('/node_modules/');
  return at < 0 ? undefined : packageOf(path.slice(at + '/node_modules/'.length));
}
