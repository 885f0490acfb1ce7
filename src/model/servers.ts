// Server Objects (OAS 3.1.1 §4.8.5) as the runtime needs them: the URL, its variables with
// their defaults and allowed values, and a description on one line.

import { asArray, isObject, type Json } from '../parse/pointer.js';
import type { ServerSpec } from '../contract/table.js';
import { oneLine } from './text.js';

/** The usable Server Objects of a `servers` list (root, path item or operation). */
export function serverList(servers: Json | undefined, source: string): ServerSpec[] {
  return asArray(servers)
    .map((s) => serverOf(s, source))
    .filter((s): s is ServerSpec => s !== undefined);
}

/** A Server Object as the runtime needs it; a relative URL is resolved against a spec URL. */
export function serverOf(s: Json, source: string): ServerSpec | undefined {
  if (!isObject(s) || typeof s.url !== 'string') return undefined;
  const server: ServerSpec = { url: absoluteUrl(s.url.trim(), source) };
  if (typeof s.description === 'string') server.description = oneLine(s.description);
  if (isObject(s.variables)) server.variables = serverVariables(s.variables);
  return server;
}

/** OAS §4.8.5: a relative server URL is relative to where the document is, when that is a URL. */
function absoluteUrl(url: string, source: string): string {
  if (!/^https?:\/\//i.test(source) || /^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  try {
    return new URL(url, source).href;
  } catch {
    return url; // kept relative; the server will ask for --base-url
  }
}

/** Server Variable Objects: the default (else the first allowed value), the allowed values, the description. */
function serverVariables(raw: Record<string, Json>): NonNullable<ServerSpec['variables']> {
  const variables: NonNullable<ServerSpec['variables']> = {};
  for (const [name, v] of Object.entries(raw)) {
    if (!isObject(v)) continue;
    const enumValues = asArray(v.enum).map(String);
    variables[name] = {
      default: v.default !== undefined ? String(v.default) : (enumValues[0] ?? ''),
      ...(enumValues.length ? { enum: enumValues } : {}),
      ...(typeof v.description === 'string' ? { description: oneLine(v.description) } : {}),
    };
  }
  return variables;
}
