// One SDK Server per connection (the SDK's rule), made without the tool table: initialize is
// answered from the table's summary (summary.ts), and the handlers that need the table are
// attached to the instance once it is loaded. A large table takes tens of milliseconds to parse
// (GitHub's 3.4 MB), which a client's initialize need not wait for; the requests that need it
// wait, in order. A first tools/list that the prepared listing answers (early-listing.ts) does
// not wait: the table is loaded right after it is answered.

import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  Server,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';
import type { TableSummary } from '../../contract/summary.js';
import type { ToolMode } from '../start/config.js';
import { keepClientLogLevel } from '../observe/client-log.js';
import type { Lazy } from '../start/lazy.js';
import type { EarlyListing } from './early-listing.js';

/**
 * What one server instance serves: a `session` (stdio, legacy SSE, a 2025-era Streamable HTTP
 * session), where state such as enabled toolsets lasts from one request to the next, or a
 * single `request` (2026-07-28, or any request under --stateless), where nothing outlasts it.
 */
export type Serving = 'session' | 'request';

export type ServerFactory = (serving?: Serving) => Server;

/** The tasks extension's name (SEP-2663), in capabilities' `extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Capabilities a server with long-running tools adds: task-augmented tools/call, tasks/list and
 * tasks/cancel (served by tasks.ts, which loads node:crypto: here, initialize does not wait for it).
 */
const TASK_CAPABILITIES = {
  tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} },
  extensions: { [TASKS_EXTENSION]: {} },
};

/** Registers on one instance the handlers that answer from the table (tools, resources, prompts, tasks). */
export type Attach = (server: Server, serving: Serving) => void;

export function serverFactory(
  summary: TableSummary,
  mode: ToolMode,
  served: Lazy<{ attach: Attach }>,
  early?: EarlyListing,
): ServerFactory {
  return (serving = 'session') => {
    // Toolsets enabled one by one change the list of a session; a request has nothing to change.
    const onDemand = mode === 'toolsets' && serving === 'session';
    const server = new (serving === 'request' ? RequestServer : Server)(
      { name: summary.name, version: summary.version, ...(summary.title ? { title: summary.title } : {}) },
      {
        capabilities: {
          tools: onDemand ? { listChanged: true } : {},
          logging: {},
          // advertised only when there is something to offer; resources always (the documentation)
          resources: {},
          ...(summary.offers.prompts ? { prompts: {} } : {}),
          ...(summary.offers.completions ? { completions: {} } : {}),
          ...(summary.offers.tasks ? TASK_CAPABILITIES : {}),
        },
        ...(summary.instructions ? { instructions: summary.instructions } : {}),
      },
    );
    keepClientLogLevel(server);
    if (served.value) served.value.attach(server, serving);
    else holdUntilAttached(server, summary.name, async () => (await served.get()).attach(server, serving), early);
    return server;
  };
}

/**
 * An instance for a single request, closed once its exchange ends: closing, the SDK makes the
 * Error that ends the requests still pending (none, after the answer) and captures its stack,
 * ~25 µs of every 2026-07-28 and --stateless call. Made without one: it reaches no client, as
 * only a still-pending handler sees it, as its abort reason.
 */
class RequestServer extends Server {
  protected override _onclose(): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** Requests an instance answers without the table: the others wait for it. */
const WITHOUT_TABLE = new Set(['initialize', 'ping', 'server/discover', 'logging/setLevel']);
const needsTable = (message: JSONRPCMessage) => isJSONRPCRequest(message) && !WITHOUT_TABLE.has(message.method);

/**
 * Until `attach` has run, the requests that need the table (and every message after the first
 * of them, so that order is kept) wait at the instance's transport; the first of them starts it.
 * When that first one is a tools/list that `early` answers, it is answered first, and the table
 * is loaded once the answer is out.
 */
function holdUntilAttached(server: Server, name: string, attach: () => Promise<void>, early?: EarlyListing): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const deliver = transport.onmessage; // the SDK's dispatch, set by connect
    let held: Delivery[] | undefined;
    let attached = false;
    const release = () => {
      attached = true;
      for (const [message, extra] of held ?? []) deliver?.(message, extra);
      held = undefined;
    };
    const fail = (error: unknown) => {
      // Nothing could be served: fail as a start-up failure does.
      process.stderr.write(`${name}: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    };
    const answerEarly = async (waiting: Delivery[]) => {
      const first = waiting[0];
      const [message] = first ?? [];
      if (early === undefined || first === undefined || !isListing(message) || !(await early(server, message))) return;
      waiting.shift();
      const sent = answerSent(transport, message.id);
      deliver?.(...first);
      // The answer leaves as the client reads it (GitHub's listing: 1.7 MB through a 64 KB pipe):
      // the table's parse would hold the rest back.
      await sent;
    };
    transport.onmessage = (message, extra) => {
      if (attached || (held === undefined && !needsTable(message))) {
        deliver?.(message, extra);
        return;
      }
      if (held === undefined) {
        held = [[message, extra]];
        answerEarly(held).then(attach).then(release, fail);
        return;
      }
      held.push([message, extra]);
    };
  };
}

/**
 * Settles once the transport has sent the answer to request `id` (or failed to), or after
 * `ANSWER_WAIT_MS` at most: only the parse waits on it, and it must not wait on an answer that
 * never leaves.
 */
function answerSent(transport: Transport, id: RequestId): Promise<void> {
  const send = transport.send.bind(transport);
  return new Promise((settle) => {
    const bound = setTimeout(settle, ANSWER_WAIT_MS);
    transport.send = (message, options) => {
      const sending = send(message, options);
      if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id === id) {
        transport.send = send;
        const done = () => (clearTimeout(bound), settle());
        sending.then(done, done);
      }
      return sending;
    };
  });
}

const ANSWER_WAIT_MS = 2_000;

/** A message as the SDK's dispatch takes it. */
type Delivery = [JSONRPCMessage, MessageExtraInfo | undefined];

const isListing = (message: JSONRPCMessage | undefined): message is JSONRPCRequest =>
  message !== undefined && isJSONRPCRequest(message) && message.method === 'tools/list';
