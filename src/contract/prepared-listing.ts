// The default tools/list, prepared at generation: mcp-gen writes it as tools-listed.json beside
// tools.json, and a Node server started without options that change its listing (--tools,
// --toolsets, --read-only, --client-profile, OAuth) serves it as it is, instead of writing every
// tool's listed schemas on its first tools/list (GitHub's 1,224 tools: ~50 ms of a cold start).
// Any other start, and a tools.json that is not the one it was made from, lists the general way
// (runtime/mcp/listing.ts), which gives the same tools for the same settings.

import type { ClientProfile, ListedTool } from './profiles.js';

export const PREPARED_LISTING_FILE = 'tools-listed.json';

/** The profile the listing is prepared in: the servers' default (--client-profile). */
export const PREPARED_PROFILE: ClientProfile = 'portable';

export interface PreparedListing {
  format: 1;
  /** The fingerprint of the tools.json it was made from (tableFingerprint): a listing beside another table is not served. */
  table: string;
  /** The mode it lists (the table's default, `serve.mode`, or direct). */
  mode: 'direct' | 'dynamic' | 'code';
  profile: ClientProfile;
  /** Where each page starts, at the default page size (LIST_PAGE_BYTES). */
  starts: number[];
  tools: ListedTool[];
}

/**
 * What a prepared listing knows its tools.json by: the file's length and CRC-32 (node:zlib's
 * `crc32`, which a Node server loads for its first call anyway, where node:crypto would add ~2 ms
 * to its start). It tells an edited or regenerated table from the one the listing was made from;
 * it is no seal, as whoever can write tools.json can write the listing too.
 */
export const tableFingerprint = (bytes: Uint8Array, crc32: (data: Uint8Array) => number): string =>
  `${bytes.length}:${crc32(bytes).toString(16)}`;

/** Whether a server with these settings lists exactly what a listing made for `prepared`'s mode and profile holds. */
export function servesPrepared(
  prepared: { mode: string; profile: ClientProfile },
  settings: { mode: string; profile: ClientProfile; toolsets: string[]; readOnly: boolean; oauth: boolean },
): boolean {
  return (
    settings.mode === prepared.mode &&
    settings.profile === prepared.profile &&
    settings.toolsets.length === 0 &&
    !settings.readOnly &&
    !settings.oauth
  );
}
