// Clients are counted by IP address (sessions and connections per client): an IPv4 client of a
// dual-stack listener must count, and be named, as the same client as over IPv4.
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../../../src/runtime/http/connections.js';

describe('clientAddress', () => {
  it.each([
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['1.2.3.4', '1.2.3.4'],
    ['::1', '::1'],
    ['2001:db8::ffff:1.2.3.4', '2001:db8::ffff:1.2.3.4'],
    [undefined, 'unknown'],
  ])('%s → %s', (remoteAddress, want) => {
    expect(clientAddress({ remoteAddress } as Socket)).toBe(want);
  });
});
