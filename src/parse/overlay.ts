// OpenAPI Overlays (Overlay Specification 1.0.0, 1.1.0 and 1.2.0): ordered actions, each an
// RFC 9535 JSONPath `target` and an `update`, `copy` (1.1 on) or `remove`, applied to the spec
// as its author wrote it, before anything else reads it. An overlay is untrusted like a spec:
// read behind the same screening (sources.ts), checked whole before its first action applies
// (overlay-document.ts), and never more than data (its JSONPath filters are screened by
// overlay-path.ts).

import { readFileSync, statSync } from 'node:fs';
import { extname, resolve as resolvePath } from 'node:path';
import { SpecError } from '../errors.js';
import type { GenerationWarning } from '../warnings.js';
import type { JsonObject } from './pointer.js';
import { MAX_SPEC_BYTES, SourceGuard } from './sources.js';
import { applyAction } from './overlay-actions.js';
import { checkOverlay } from './overlay-document.js';

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Applies each overlay in turn to `doc` (changed in place); a target that matches nothing is a warning. */
export async function applyOverlays(doc: JsonObject, sources: readonly string[], warnings: GenerationWarning[]): Promise<void> {
  for (const source of sources) {
    const actions = checkOverlay(await readOverlay(source), source);
    actions.forEach((action, index) => applyAction(doc, action, `${source}#/actions/${index}`, warnings));
  }
}

/** The overlay's text, parsed: a file, or a URL downloaded as a spec URL is (its own origin only, bounded, no internal redirects). */
async function readOverlay(source: string): Promise<unknown> {
  const guard = new SourceGuard({ source, allowRemoteRefs: false, allowRefDirs: [] });
  const as = extname(isUrl(source) ? new URL(source).pathname : source).toLowerCase() === '.json' ? 'json' : 'yaml';
  try {
    const data = isUrl(source) ? await guard.download(source) : readLocal(source);
    return await guard.parse({ url: source, data }, as);
  } catch (error) {
    if (guard.refused) throw new SpecError(inOverlayWords(guard.refused.message), source);
    if (error instanceof SpecError) throw error;
    // a syntax error: js-yaml's first line names the line and column
    throw new SpecError(`the overlay is not valid ${as === 'json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`, source);
  }
}

/** SourceGuard's refusal, said of an overlay: it has no $refs, and a redirect off its origin is never followed. */
const inOverlayWords = (message: string) =>
  message
    .replace(/^the document/, 'the overlay')
    .replace(/^\$ref to another origin not followed: .*$/, 'the overlay URL redirects to another origin, which is not followed');

function readLocal(source: string): Buffer {
  const path = resolvePath(source);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new SpecError('overlay file not found', source);
  }
  if (size > MAX_SPEC_BYTES) throw new SpecError(`the overlay is larger than ${MAX_SPEC_BYTES / 1024 / 1024} MiB`, source);
  return readFileSync(path);
}
