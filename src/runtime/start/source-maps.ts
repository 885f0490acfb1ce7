// Stack traces on the lines of src/ and lib/ for a server bundled and minified into dist/
// (scripts/build.mjs writes a .map beside each file). Node's own mapping (--enable-source-maps,
// process.setSourceMapsEnabled) reads and parses the map of every module as it loads it, ~5 ms
// of each start, and maps only modules loaded after it is on: the bundle's first file, with the
// user's hooks in it, was left unmapped. Here a map is read when a stack first passes through its
// file, and every file of the bundle is mapped.

import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Maps the frames of stack traces in the files under `bundle` (a folder's file: URL, ending in
 * `/`) to their sources. Node's own mapping, when it is on (--enable-source-maps), is left to do it.
 */
export function mapStackTraces(bundle: URL): void {
  if (process.sourceMapsEnabled) return;
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) maps.set(file, readMap(file));
    return maps.get(file);
  };
  Error.prepareStackTrace = (error, sites) => {
    const frames = sites.map((site) => (site.getFileName()?.startsWith(bundle.href) ? mappedFrame(site, mapOf) : String(site)));
    return [header(error), ...frames].join('\n    at ');
  };
}

/** The map esbuild wrote beside a bundle's file; none when it is missing or unreadable. */
function readMap(file: string): SourceMap | undefined {
  try {
    return new SourceMap(JSON.parse(readFileSync(new URL(`${file}.map`), 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
  } catch {
    return undefined;
  }
}

/** A frame as V8 writes it, its place in the bundle replaced by the source's (paths as Node's own mapping writes them). */
function mappedFrame(site: NodeJS.CallSite, mapOf: (file: string) => SourceMap | undefined): string {
  const text = String(site);
  const [file, line, column] = [site.getFileName() as string, site.getLineNumber(), site.getColumnNumber()];
  if (line === null || column === null) return text;
  const entry = mapOf(file)?.findEntry(line - 1, column - 1);
  if (entry === undefined || !('originalSource' in entry)) return text;
  const source = new URL(entry.originalSource, file);
  const place = `${source.protocol === 'file:' ? fileURLToPath(source) : source.href}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  return text.replace(`${file}:${line}:${column}`, place);
}

/** The first line of a stack, as V8 writes it: `Error: message`. */
function header(error: Error): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return '<error>';
  }
}
