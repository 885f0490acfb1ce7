// Server Objects (OAS 3.1.1 §4.8.5) as the runtime needs them: the URL, its variables with
// their defaults and allowed values, and a description on one line.

import { asArray, isObject, type Json } from '../parse/pointer.js';
import type { ServerSpec } from '../contract/table.js';
import { undefinedVariables } from '../contract/server-url.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { oneLine } from './text.js';

/** Where a `servers` list is (its JSON pointer) and where to say what was wrong with it. */
export interface ServerListPlace {
  at: string;
  warnings: GenerationWarning[];
}

/**
 * The usable Server Objects of a `servers` list (root, path item or operation). A URL using a
 * `{variable}` its Server Variable Objects do not define cannot be called: it is left out with a
 * warning, so that the next server, else --base-url (API_BASE_URL), is used instead.
 */
export function serverList(servers: Json | undefined, source: string, place?: ServerListPlace): ServerSpec[] {
  return asArray(servers).flatMap((s, i) => {
    const server = serverOf(s, source);
    if (!server) return [];
    const missing = undefinedVariables(server);
    if (!missing.length) return [server];
    if (place) warnUndefinedVariables(server.url, missing, `${place.at}/${i}/url`, place.warnings);
    return [];
  });
}

/** Once per place: a path item's servers are read for each of its operations. */
function warnUndefinedVariables(url: string, missing: string[], where: string, warnings: GenerationWarning[]): void {
  if (warnings.some((w) => w.where === where)) return;
  const names = missing.map((name) => `{${name}}`).join(', ');
  const message = `server URL ${url} uses ${names}, which its variables do not define: left out (give the URL with --base-url or API_BASE_URL)`;
  warnings.push(warning('undefined-server-variable', message, where));
}

/** A Server Object as the runtime needs it; a relative URL is resolved against a spec URL. */
export function serverOf(s: Json, source: string): ServerSpec | undefined {
  if (!isObject(s) || typeof s.url !== 'string') return undefined;
  const server: ServerSpec = { url: absoluteUrl(s.url.trim(), source) };
  if (typeof s.description === 'string') server.description = oneLine(s.description);
  if (typeof s.name === 'string' && oneLine(s.name)) server.name = oneLine(s.name); // OAS 3.2
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
