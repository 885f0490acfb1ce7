// Over several APIs, each one's own --retries and --rate-limit: its variable
// (`<NAMESPACE>_RETRIES`, `<NAMESPACE>_RATE_LIMIT`), else the config file's value the table
// records (ApiSpec), else the server's setting. Read once at start, where a bad value is a
// one-line refusal naming the variable (serving.ts), then by the calls' sending (retry.ts).

import { setting } from '../../contract/settings.js';
import type { ToolTable } from '../../contract/table.js';
import { ConfigError, rateLimitOf, type ServerConfig } from './config.js';

/** How one API's requests are sent: its tries after the first, and its rate with the setting that gave it (for the log). */
export interface ApiSending {
  retries: number;
  rate?: { perSecond: number; setting: string };
}

/** Each API's sending by namespace; throws a ConfigError naming the variable whose value is unusable. */
export function apiSendings(
  apis: ToolTable['apis'],
  server: ServerConfig['sending'],
  env: Readonly<Record<string, string | undefined>>,
): Map<string, ApiSending> {
  const serverRate = server.ratePerSecond === undefined ? undefined : { perSecond: server.ratePerSecond, setting: '--rate-limit' };
  return new Map(
    Object.entries(apis ?? {}).map(([namespace, api]) => {
      const retries = retriesOf(api.retriesEnv, env) ?? api.retries ?? server.retries;
      const variable = api.rateLimitEnv;
      const fromEnv = variable === undefined ? undefined : env[variable];
      // Named by its variable also when the config file gave it: that is what changes it.
      const own = fromEnv ? rateLimitOf(fromEnv, variable as string) : api.rateLimit;
      const rate =
        fromEnv?.trim() === 'off' ? undefined : own !== undefined ? { perSecond: own, setting: variable ?? '--rate-limit' } : serverRate;
      return [namespace, rate === undefined ? { retries } : { retries, rate }];
    }),
  );
}

/** `<NAMESPACE>_RETRIES` as --retries takes it; undefined when unset. */
function retriesOf(variable: string | undefined, env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = variable === undefined ? undefined : env[variable];
  if (!text) return undefined;
  const { min, max } = setting('retries').range as { min: number; max: number };
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max)
    throw new ConfigError(`${variable} must be a whole number from ${min} to ${max} (got "${text}")`);
  return n;
}
