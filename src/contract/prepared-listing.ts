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
  /** SHA-1 of the tools.json it was made from: a listing beside another table is not served. */
  table: string;
  /** The mode it lists (the table's default, `serve.mode`, or direct). */
  mode: 'direct' | 'dynamic' | 'code';
  profile: ClientProfile;
  /** Where each page starts, at the default page size (LIST_PAGE_BYTES). */
  starts: number[];
  tools: ListedTool[];
}

/** The hash (node:crypto's name) of a tools.json's bytes that a prepared listing names, hex. */
export const TABLE_FINGERPRINT = 'sha1';

/** Whether a server with these settings lists exactly what `prepared` holds. */
export function servesPrepared(
  prepared: PreparedListing,
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
