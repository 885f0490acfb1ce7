// mcp-gen's own package.json: its version (for --version and the manifest of generated
// projects) and the exact versions it pins in them. Loaded without the emitter, so that
// `mcp-gen --version` stays instant.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Works from src/ (tests, tsx) and from dist/src/ (the built CLI). */
function readOwnPackage(): PackageJson {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(up, import.meta.url)), 'utf8')) as PackageJson & { bin?: unknown };
      if (pkg.bin !== undefined) return pkg; // ours, not some other package.json on the way up
    } catch {
      // try the next layout
    }
  }
  throw new Error(`mcp-gen's package.json not found from ${fileURLToPath(import.meta.url)}`);
}

export const OWN_PACKAGE = readOwnPackage();
export const GENERATOR_VERSION = OWN_PACKAGE.version;
