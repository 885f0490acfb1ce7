// Connection slots of the HTTP listener, shared fairly between client addresses.
//
// A flood of connections that send half a request head (or nothing) must not lock other
// clients out: each address holds at most --max-connections-per-address, the listener at most
// --max-connections, and when a new connection finds either full, the oldest connection that has
// not yet sent a whole request head gives its slot up (from the address holding the most such).
// Only when none is left to give is the new one closed. A client that sends its request head at
// once is then not starved, even when it shares its address with the flood (as every local
// client shares 127.0.0.1). A connection that has been answered is never closed for room: its
// client may be sending the next request on it at that very moment.

import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../start/log.js';

/** The client's IP address; an IPv4 client of a dual-stack listener (`::ffff:1.2.3.4`) is 1.2.3.4. */
export function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}

export interface SlotLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

/** One address's connections: how many, and those whose first request head is still to come, oldest first. */
interface AddressSlots {
  open: number;
  waiting: Set<Socket>;
}

class ConnectionSlots {
  private readonly byAddress = new Map<string, AddressSlots>();
  private readonly addressOf = new WeakMap<Socket, string>();
  private total = 0;
  private readonly warned = new Set<string>();

  constructor(
    private readonly limits: SlotLimits,
    private readonly log: Logger,
  ) {}

  /** Takes a slot for a new connection, freeing a waiting one if need be; false: close it. */
  admit(socket: Socket): boolean {
    const address = clientAddress(socket);
    const slots = this.byAddress.get(address) ?? { open: 0, waiting: new Set<Socket>() };
    if (slots.open >= this.limits.maxConnectionsPerAddress && !this.evictFrom(slots)) {
      this.warnOnce(address, `${address} holds ${slots.open} connections (--max-connections-per-address): closing its new ones`);
      return false;
    }
    if (this.total >= this.limits.maxConnections && !this.evictFrom(this.mostWaiting())) {
      this.warnOnce('*', `${this.total} connections are open (--max-connections): closing new ones`);
      return false;
    }
    this.byAddress.set(address, slots);
    this.addressOf.set(socket, address);
    slots.open += 1;
    slots.waiting.add(socket);
    this.total += 1;
    socket.once('close', () => this.release(socket));
    return true;
  }

  /** The connection has sent a whole request head: it keeps its slot until it closes. */
  started(socket: Socket): void {
    this.slotsOf(socket)?.waiting.delete(socket);
  }

  private release(socket: Socket): void {
    const address = this.addressOf.get(socket);
    const slots = address === undefined ? undefined : this.byAddress.get(address);
    if (address === undefined || !slots) return;
    this.addressOf.delete(socket);
    slots.waiting.delete(socket);
    slots.open -= 1;
    this.total -= 1;
    if (slots.open === 0) {
      this.byAddress.delete(address);
      this.warned.delete(address);
    }
    if (this.total < this.limits.maxConnections) this.warned.delete('*');
  }

  private slotsOf(socket: Socket): AddressSlots | undefined {
    const address = this.addressOf.get(socket);
    return address === undefined ? undefined : this.byAddress.get(address);
  }

  /** Closes the oldest waiting connection of these slots; false when there is none. */
  private evictFrom(slots: AddressSlots | undefined): boolean {
    const oldest = slots?.waiting.values().next().value;
    if (oldest === undefined) return false;
    this.release(oldest);
    oldest.destroy();
    return true;
  }

  /** The address with the most waiting connections: the likeliest holder of a flood. */
  private mostWaiting(): AddressSlots | undefined {
    let most: AddressSlots | undefined;
    for (const slots of this.byAddress.values()) if (slots.waiting.size > (most?.waiting.size ?? 0)) most = slots;
    return most;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key); // once per spell at the cap, not per connection of a flood
    this.log.warn(`${message}; behind a proxy, raise the cap`);
  }
}

/** Shares the listener's connection slots fairly (see above), in place of Node's maxConnections. */
export function shareConnectionSlots(server: HttpServer, limits: SlotLimits, log: Logger): void {
  const slots = new ConnectionSlots(limits, log);
  server.on('connection', (socket: Socket) => {
    if (!slots.admit(socket)) socket.destroy();
  });
  server.on('request', (req) => slots.started(req.socket));
}
