// 2025-era Streamable HTTP sessions kept in this process's memory, behind the interface Cloudflare's
// Durable Objects are routed through (sessions-durable.ts): for a server whose one process answers
// every request of a session (Node behind the web core, http/listener.ts). Each session is
// one object of sessions-durable.ts, its idle alarm a timer. As a session opens, it is counted
// against --max-sessions (503) and, by its client's address, --max-sessions-per-client (429),
// shared with the legacy SSE sessions (http/sessions.ts).

import type { ServerConfig } from '../start/config.js';
import { releaseSession, sessionRefusal } from '../http/sessions.js';
import {
  sessionNotFound,
  type Learnt,
  type SessionObjectHandlers,
  type SessionObjects,
  type SessionObjectState,
} from './sessions-durable.js';
import { jsonRpcRefusal } from './web-steps.js';

type Caps = Pick<ServerConfig, 'maxSessions' | 'maxSessionsPerClient' | 'replicaId'>;

/** Makes a session's object, as the web server's `session(state)` does. */
export type ObjectMaker = (state: SessionObjectState) => SessionObjectHandlers;

export interface MemorySessions extends SessionObjects {
  /** Sessions open, or opening. */
  readonly size: number;
  /** Ends every session (the server stops), after the calls in flight (drain.ts waits for them). */
  close(): Promise<void>;
}

/** A session's idle alarm. */
interface Timer {
  alarm?: ReturnType<typeof setTimeout>;
}

interface Held {
  handlers: SessionObjectHandlers;
  /** The address it counts against. */
  client: string;
  timer: Timer;
}

/** A session id as the routing takes one. */
const idOf = (id: string) => ({ toString: () => id });

export function memorySessions(makeObject: ObjectMaker, caps: Caps): MemorySessions {
  const held = new Map<string, Held>();
  const forget = (id: string) => {
    const session = held.get(id);
    if (session === undefined) return;
    held.delete(id);
    clearTimeout(session.timer.alarm);
    releaseSession(session.client);
  };
  return {
    inProcess: true,
    get size() {
      return held.size;
    },
    // `<replica>.<uuid>` lets a proxy route the session back to the replica that holds it.
    newUniqueId: () => idOf(caps.replicaId === undefined ? crypto.randomUUID() : `${caps.replicaId}.${crypto.randomUUID()}`),
    idFromString(id) {
      if (!held.has(id)) throw new Error('no such session');
      return idOf(id);
    },
    get(id) {
      const key = id.toString();
      // Only in this process: the routing hands each request over as it is (serve), never forwarded (fetch).
      const serve = (request: Request, learnt: Learnt) => held.get(key)?.handlers.serve(request, learnt) ?? open(key, request, learnt);
      return { serve, fetch: () => Promise.reject(new Error('a session in memory is served, not fetched')) };
    },
    async close() {
      const sessions = [...held.values()];
      await Promise.allSettled(sessions.map((session) => session.handlers.close?.()));
    },
  };

  /** The initialize of a new session: counted, then kept only if it opened the session. */
  async function open(id: string, request: Request, learnt: Learnt): Promise<Response> {
    const { opens, address } = learnt;
    if (!opens) return sessionNotFound();
    const refused = sessionRefusal(address, caps, held.size);
    if (refused !== undefined) return jsonRpcRefusal(refused.status, -32000, refused.message);
    const timer: Timer = {};
    const handlers = makeObject(
      stateOf(
        id,
        timer,
        () => void held.get(id)?.handlers.alarm(),
        () => forget(id),
      ),
    );
    held.set(id, { handlers, client: address, timer });
    const answer = await handlers.serve(request, learnt);
    if (answer.headers.get('mcp-session-id') === null) forget(id);
    return answer;
  }
}

/** What a session's object is given: its id, its alarm as a timer (that keeps no process alive), and who to tell when it ends. */
function stateOf(id: string, timer: Timer, ring: () => void, ended: () => void): SessionObjectState {
  return {
    id: idOf(id),
    storage: {
      async setAlarm(scheduledTime) {
        clearTimeout(timer.alarm);
        timer.alarm = setTimeout(ring, Math.max(0, scheduledTime - Date.now()));
        (timer.alarm as { unref?: () => void }).unref?.();
      },
      async deleteAlarm() {
        clearTimeout(timer.alarm);
      },
    },
    ended,
  };
}
