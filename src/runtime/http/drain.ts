// Graceful shutdown. Closing the sessions at the signal would end the streams that in-flight
// calls answer on, losing the calls. So, on SIGTERM or SIGINT: readiness goes false for
// --drain-delay-ms (a balancer with probes stops routing here while requests are still
// served), then the listener closes, the calls in flight finish (up to --shutdown-grace-ms),
// and only then are the sessions closed.

import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { ServerConfig } from '../start/config.js';
import { jsonRpcError } from './answer.js';
import type { HttpEndpoints } from './endpoints.js';
import type { Logger } from '../start/log.js';
import { flushTelemetry } from '../observe/observe.js';

/** What closes after the calls in flight: the core's sessions, legacy SSE's streams (whose calls it counts). */
type Closing = Pick<HttpEndpoints, 'close' | 'pendingCalls'>;

type DrainSettings = Pick<ServerConfig, 'drainDelayMs' | 'shutdownGraceMs'>;

export class Drain {
  /** From the signal on: /healthz answers 503. */
  private draining = false;
  /** From the drain on: the listener is closed and new requests are refused. */
  private stopping = false;
  /**
   * Requests being answered, which shutdown waits for. GET requests are the long-lived SSE
   * streams (GET /mcp, GET /sse): they carry no call of their own and would never end.
   */
  private readonly inFlight = new Set<ServerResponse>();

  constructor(
    private readonly settings: DrainSettings,
    private readonly log: Logger,
    // The spans still buffered go to the collector first (a tracing server only, at most 2 s).
    private readonly exit: (code: number) => void = (code) => void flushTelemetry().finally(() => process.exit(code)),
  ) {}

  get isDraining(): boolean {
    return this.draining;
  }

  /** The first look at every request: refused once stopping, else counted until answered. */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.stopping) {
      // The listener is closed, but a kept-alive connection can still bring a request.
      res.setHeader('connection', 'close');
      jsonRpcError(res, 503, -32000, 'Server is shutting down');
      return false;
    }
    if (req.method !== 'GET') {
      this.inFlight.add(res);
      res.once('close', () => this.inFlight.delete(res));
    }
    return true;
  }

  stopOnSignals(server: HttpServer, endpoints: readonly Closing[]): void {
    process.once('SIGTERM', () => this.stop('SIGTERM', server, endpoints));
    process.once('SIGINT', () => this.stop('SIGINT', server, endpoints));
  }

  stop(signal: string, server: HttpServer, endpoints: readonly Closing[]): void {
    if (this.draining) return;
    this.draining = true;
    const { drainDelayMs } = this.settings;
    if (drainDelayMs === 0) return this.drain(signal, server, endpoints);
    this.log.info(`${signal}: /healthz answers 503; draining in ${drainDelayMs} ms`);
    setTimeout(() => this.drain(signal, server, endpoints), drainDelayMs);
  }

  private drain(signal: string, server: HttpServer, endpoints: readonly Closing[]): void {
    this.stopping = true;
    setTimeout(() => this.exit(0), this.settings.shutdownGraceMs).unref(); // grace is over
    server.close(() => this.exit(0)); // no new connections; exit once every one has ended
    server.closeIdleConnections();
    this.log.info(`${signal}: shutting down`); // after close(): from this line on, connections are refused
    this.refuseUnfinishedBodies();
    void this.closeWhenIdle(server, endpoints);
  }

  /**
   * close() also stops Node's request-timeout checks, so a body still trickling in would hold
   * the exit for the whole grace period. Its call has not started: refuse it now.
   */
  private refuseUnfinishedBodies(): void {
    for (const res of this.inFlight) {
      if (res.req.complete) continue;
      res.setHeader('connection', 'close');
      jsonRpcError(res, 503, -32000, 'Server is shutting down');
      res.req.socket.destroySoon();
    }
  }

  private async closeWhenIdle(server: HttpServer, endpoints: readonly Closing[]): Promise<void> {
    const busy = () => this.inFlight.size > 0 || endpoints.some((e) => (e.pendingCalls?.() ?? 0) > 0);
    while (busy()) await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.allSettled(endpoints.map((e) => e.close()));
    server.closeAllConnections(); // what is left: idle keep-alive sockets and ended streams
  }
}
