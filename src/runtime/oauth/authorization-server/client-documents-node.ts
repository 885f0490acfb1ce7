// Client ID metadata documents fetched on Node, where the address a name resolves to is screened
// as the connection is made (publicOnlyLookup): node:https, loaded by clients.ts only on Node.

import type { IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { publicOnlyLookup } from '../../../contract/addresses.js';

/** GET without redirects, within `maxBytes` and one deadline for the whole answer. */
export function fetchScreened(url: URL, allowInternal: boolean, limits: { timeoutMs: number; maxBytes: number }): Promise<string> {
  let deadline: NodeJS.Timeout | undefined;
  const fetched = new Promise<string>((resolve, reject) => {
    const request = httpsGet(
      url,
      { headers: { accept: 'application/json' }, ...(allowInternal ? {} : { lookup: publicOnlyLookup }) },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`HTTP ${response.statusCode}`));
          return request.destroy();
        }
        readBody(response, limits.maxBytes, (error) => request.destroy(error)).then(resolve, reject);
      },
    );
    // A timeout on silence alone would let a document sent a byte at a time hold /authorize.
    deadline = setTimeout(() => request.destroy(new Error(`no whole answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    request.on('error', reject);
  });
  return fetched.finally(() => clearTimeout(deadline));
}

/** The body as text, at most `maxBytes` (beyond, `abort` with why). */
function readBody(response: IncomingMessage, maxBytes: number, abort: (error: Error) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) abort(new Error(`larger than ${maxBytes} bytes`));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('close', () => reject(new Error('the answer was cut short')));
  });
}
