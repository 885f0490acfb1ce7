// The upstreams a spec loaded from a URL may choose. Its servers are where calls go, credentials
// included, and its OAuth tokenUrl is where the client secret goes: a spec from elsewhere must
// not aim them at a service inside the user's network (SSRF), as its `$ref`s may not be fetched
// from there (parse/sources.ts). Such a URL is left out with a warning, unless it is on the
// spec's own origin (the user pointed there) or the user says so (--allow-internal-servers; or
// --base-url, which replaces the servers when the server starts). The table carries the rule on
// (ToolTable.publicServers) because a name may resolve elsewhere by the time the server connects.

import type { LoadedSpec } from '../parse/load.js';
import { followRefs, isObject, pointer, type Json } from '../parse/pointer.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { internalAddressOf } from '../contract/addresses.js';
import { resolveServerUrl } from '../contract/server-url.js';
import type { ToolTable } from '../contract/table.js';
import { operationsOf } from './operation.js';
import { serverOf } from './servers.js';

const isHttpUrl = (s: string) => /^https?:\/\//i.test(s);

/**
 * Removes from the spec every server URL (and client-credentials flow, and logo) of a spec loaded
 * from a URL that is, or resolves to, an internal address, with a warning naming its place; returns
 * the rule for the table, or undefined when there is none (a spec file, or allowed).
 */
export async function screenUpstreams(spec: LoadedSpec, allowInternal: boolean): Promise<ToolTable['publicServers']> {
  if (!isHttpUrl(spec.source) || allowInternal) return undefined;
  const origin = new URL(spec.source).origin;
  const internalAddress = cached(internalAddressOf);
  const refused = async (text: string | undefined): Promise<string | undefined> => {
    if (text === undefined || !isHttpUrl(text)) return undefined;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return undefined;
    }
    return url.origin === origin ? undefined : internalAddress(url);
  };
  const found: GenerationWarning[] = [];
  const why = (url: string, address: string, what: string, instead: string) =>
    `${url} is an internal address (${address}), where a spec loaded from a URL may not send ${what}: not used; ${instead}`;

  for (const { list, at } of serverLists(spec.doc)) {
    const first = found.length;
    // from the end, so that removing one leaves the places of those before it as they were
    for (let i = list.length - 1; i >= 0; i--) {
      const url = resolvedUrl(list[i] as Json, spec.source);
      const address = await refused(url);
      if (address === undefined) continue;
      list.splice(i, 1);
      const instead = "choose the upstream with --base-url, or allow the spec's with --allow-internal-servers";
      found.splice(first, 0, warning('internal-server', why(url as string, address, 'calls', instead), `${at}/${i}/url`));
    }
  }
  found.push(...(await screenTokenUrls(spec.doc, refused, why)), ...(await screenLogo(spec.doc, refused, why)));
  spec.warnings.push(...found);
  return (await internalAddressOf(new URL(spec.source))) !== undefined ? { trustedOrigin: origin } : {};
}

type Refused = (text: string | undefined) => Promise<string | undefined>;
type Why = (url: string, address: string, what: string, instead: string) => string;

/** Each client-credentials or authorization-code flow whose tokenUrl is internal is removed, with a warning. */
async function screenTokenUrls(doc: LoadedSpec['doc'], refused: Refused, why: Why): Promise<GenerationWarning[]> {
  const found: GenerationWarning[] = [];
  // read as buildAuth reads them
  const schemes = isObject(doc.components) ? doc.components.securitySchemes : undefined;
  for (const [name, raw] of Object.entries(isObject(schemes) ? schemes : {})) {
    const flows = isObject(raw) ? raw.flows : undefined;
    if (!isObject(flows)) continue;
    for (const flow of SECRET_FLOWS) {
      const tokenUrl = isObject(flows[flow]) && typeof flows[flow].tokenUrl === 'string' ? flows[flow].tokenUrl : undefined;
      const address = await refused(tokenUrl);
      if (address === undefined) continue;
      delete flows[flow];
      found.push(
        warning(
          'internal-server',
          why(
            tokenUrl as string,
            address,
            'the client secret',
            "the scheme takes a ready token, or allow the spec's tokenUrl with --allow-internal-servers",
          ),
          pointer('components', 'securitySchemes', name, 'flows', flow, 'tokenUrl'),
        ),
      );
    }
  }
  return found;
}

/**
 * The logo (`info.x-logo.url`, https) that the project's `npm run bundle` fetches on the user's
 * machine for the bundle's icon, and would pack whatever answers there: removed when internal.
 */
async function screenLogo(doc: LoadedSpec['doc'], refused: Refused, why: Why): Promise<GenerationWarning[]> {
  const logo = isObject(doc.info) && isObject(doc.info['x-logo']) ? doc.info['x-logo'] : undefined;
  const url = typeof logo?.url === 'string' ? logo.url : undefined;
  const address = await refused(url);
  if (logo === undefined || address === undefined) return [];
  delete logo.url;
  const instead = 'the bundle gets no icon, or allow it with --allow-internal-servers';
  return [
    warning(
      'internal-server',
      why(url as string, address, "the bundle script's request for its logo", instead),
      pointer('info', 'x-logo', 'url'),
    ),
  ];
}

/** The flows whose tokenUrl receives the server's client secret. */
const SECRET_FLOWS = ['clientCredentials', 'authorizationCode'];

/** Every `servers` list of the document (root, path items, operations) and its place. */
function serverLists(doc: LoadedSpec['doc']): { list: Json[]; at: string }[] {
  const lists: { list: Json[]; at: string }[] = [];
  if (Array.isArray(doc.servers)) lists.push({ list: doc.servers, at: pointer('servers') });
  for (const [path, raw] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = followRefs(doc, raw);
    if (!isObject(item)) continue;
    if (Array.isArray(item.servers)) lists.push({ list: item.servers, at: pointer('paths', path, 'servers') });
  }
  for (const { op, where } of operationsOf(doc)) if (Array.isArray(op.servers)) lists.push({ list: op.servers, at: `${where}/servers` });
  return lists;
}

/** A Server Object's URL as the server would call it (variables at their defaults), if it can be worked out. */
function resolvedUrl(entry: Json, source: string): string | undefined {
  const server = serverOf(entry, source);
  try {
    return server && resolveServerUrl(server);
  } catch {
    return undefined; // an undefined variable: the server cannot call it either
  }
}

/** One lookup per host. */
function cached(lookup: (url: URL) => Promise<string | undefined>): (url: URL) => Promise<string | undefined> {
  const seen = new Map<string, Promise<string | undefined>>();
  return (url) => {
    let answer = seen.get(url.hostname);
    if (!answer) seen.set(url.hostname, (answer = lookup(url)));
    return answer;
  };
}
