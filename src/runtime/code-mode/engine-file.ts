// QuickJS's WebAssembly read from the installed package and compiled: where the platform's entry
// hands over no compiled module (Node, and Deno, Vercel and Lambda, which have node:module and a
// file system). Loaded by sandbox.ts with import(); workerd gets the module from its entry.

import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';

/** The variant's own file, found from quickjs-emscripten's location as Node resolves it, compiled. */
export async function compileEngineFile<Compiled>(): Promise<Compiled> {
  const fromPackage = createRequire(createRequire(import.meta.url).resolve('quickjs-emscripten'));
  const bytes = await readFile(fromPackage.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
  const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<Compiled> } };
  return wasm.compile(bytes);
}
