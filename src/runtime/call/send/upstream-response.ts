// What an upstream answers, whichever client brought it (upstream.ts: fetch; node-upstream.ts:
// node:http): the shape a tool result is made from.

/**
 * The upstream's answer, as much of it as a tool result needs: from node:http on the common
 * path, or from fetch (a hook's body that only fetch can send, or a hook's own Response).
 */
export interface UpstreamResponse {
  status: number;
  statusText: string;
  header(name: string): string | null;
  /** Every header, a name once per value (Set-Cookie may repeat). */
  headerList(): [string, string][];
  /** The body, decoded from its content-coding (gzip, deflate, br); null when there is none. */
  body: AsyncIterable<Uint8Array> | null;
  /** Stops the download and frees the connection (a redirect, a retry). */
  discard(): void;
}

/** The chunks as one array (the only one, when there is one). */
export function joinChunks(chunks: Uint8Array[], size: number, truncated: boolean): { bytes: Uint8Array; truncated: boolean } {
  if (chunks.length === 1 && !truncated) return { bytes: chunks[0] as Uint8Array, truncated };
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}
