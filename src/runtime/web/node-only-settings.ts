// The Node server's own settings that a platform's web handler does not apply: the platform holds
// the connections, their timeouts and the instances' lifetime, and keeps 2025-era sessions itself
// where it keeps any (Durable Objects, each with memory of its own: docs/deploy.md). Said once at
// start rather than dropped silently (issue #40's rule); what would change what is served is
// refused instead (web-server.ts's platformProblem).
import { setting } from '../../contract/settings.js';
import type { PlatformName } from '../start/platform.js';

const NODE_ONLY_FLAGS = [
  'max-connections',
  'max-connections-per-address',
  'request-timeout-ms',
  'headers-timeout-ms',
  'drain-delay-ms',
  'shutdown-grace-ms',
  'replica-id',
  'max-sessions',
  'max-sessions-per-client',
];

/** The line that names the Node-only settings `env` sets, or undefined when it sets none. */
export function unappliedSettingsNotice(env: Record<string, string | undefined>, on: PlatformName): string | undefined {
  const names = NODE_ONLY_FLAGS.map((flag) => setting(flag).env).filter((name) => !!env[name]);
  if (names.length === 0) return undefined;
  return `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} the Node server's and not applied on ${on}: the platform holds the connections and the instances (its own limits apply)`;
}
