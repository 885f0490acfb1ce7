// Internal addresses: where a spec from elsewhere must not make anyone connect (SSRF). mcp-gen
// refuses them for `$ref` downloads and for the servers of a spec loaded from a URL; the server
// refuses them when it connects to such servers, since a name may resolve elsewhere by then.

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Loopback, unspecified, private, shared (CGNAT), link-local, benchmarking, multicast,
// reserved, and IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64), since those
// reach the same hosts.
const INTERNAL_V4 = blockList('ipv4', [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]);
// Kept apart from the IPv4 list: a BlockList checks IPv4 addresses against IPv4-mapped rules too.
const INTERNAL_V6 = blockList('ipv6', [
  ['::', 96],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
]);

function blockList(family: 'ipv4' | 'ipv6', subnets: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, bits] of subnets) list.addSubnet(net, bits, family);
  return list;
}

/** Not a public unicast address (anything that is no IP address at all counts as internal). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL_V4.check(address, 'ipv4');
  return family === 6 ? INTERNAL_V6.check(address, 'ipv6') : true;
}

/** A connection refused because its host is, or resolves to, an internal address. */
export class InternalAddressError extends Error {
  readonly code = 'EINTERNAL';
  constructor(host: string, address: string) {
    super(host === address ? `${host} is an internal address` : `${host} resolves to an internal address (${address})`);
  }
}

/** A URL's host as an IP address, without IPv6 brackets; undefined for a name. */
export function ipLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : undefined;
}

/** Resolves a host name and refuses it when any address is internal; the connection then uses the checked address. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 4);
    const internal = addresses.find((a) => isInternalAddress(a.address));
    if (internal || addresses.length === 0) return callback(new InternalAddressError(hostname, internal?.address ?? 'none'), '', 4);
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** The internal address a URL's host is or resolves to, if any; undefined when public or not resolvable now. */
export function internalAddressOf(url: URL): Promise<string | undefined> {
  const literal = ipLiteral(url);
  if (literal !== undefined) return Promise.resolve(isInternalAddress(literal) ? literal : undefined);
  return new Promise((resolve) =>
    dnsLookup(url.hostname, { all: true }, (error, addresses) =>
      resolve(error ? undefined : addresses.find((a) => isInternalAddress(a.address))?.address),
    ),
  );
}
