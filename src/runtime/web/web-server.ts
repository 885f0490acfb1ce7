// The platform-neutral HTTP server: one web-standard handler, (Request) → Response, that the
// entries of Cloudflare Workers, Deno, Vercel and AWS Lambda serve. Streamable HTTP at /mcp in
// both protocol eras without sessions: the SDK's createMcpHandler answers 2026-07-28 requests
// one by one and 2025-era clients statelessly, so that any isolate or instance can answer any
// request. In front of it the Node server's rules: health, Host/Origin, no open server beyond
// loopback, the shared token.

import { createMcpHandler } from '@modelcontextprotocol/server';
import { ConfigError, readConfig, type ServerConfig } from '../start/config.js';
import type { Hooks } from '../hooks-api.js';
import { createLogger, type Logger } from '../start/log.js';
import { runOn, type PlatformName } from '../start/platform.js';
import { prepareServing, startProblem } from '../start/serving.js';
import { bearerAuth, health, hostOriginGuard, jsonRpcRefusal, refuseOpenServer, type WebStep } from './web-steps.js';
import type { TableSummary } from '../../contract/summary.js';
import type { ToolTable } from '../../contract/table.js';

export interface WebServerInput {
  platform: Exclude<PlatformName, 'node'>;
  summary: TableSummary;
  table: ToolTable;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the project's hooks are typed by its own tool arguments
  hooks: Hooks<any>;
  /** The platform's variables and secrets: the settings and the API's credentials. */
  env: Record<string, string | undefined>;
}

export interface WebServer {
  fetch(request: Request): Promise<Response>;
}

/** The handler a platform entry exports; a setting the platform cannot serve makes every answer say why. */
export function createWebServer(input: WebServerInput): WebServer {
  runOn(input.platform, input.env);
  const started = startOn(input);
  if ('problem' in started) {
    console.error(`[${input.summary.name}] ${started.problem}`);
    const refusal = () => Promise.resolve(jsonRpcRefusal(503, -32603, `${input.summary.name}: ${started.problem}`));
    return { fetch: refusal };
  }
  const { config, log } = started;
  const serving = prepareServing(input.summary, () => input.table, input.hooks as Hooks, config, log);
  const mcp = createMcpHandler(() => serving.factory('request'), {
    legacy: 'stateless',
    maxRequestBodySize: config.maxRequestBytes,
    keepAliveMs: config.sseKeepAliveMs,
    onerror: (error) => log.debug(`mcp: ${error.message}`),
  });
  const steps: WebStep[] = [health, hostOriginGuard(config), refuseOpenServer(config), bearerAuth(config.authToken)];
  return {
    async fetch(request) {
      try {
        const url = new URL(request.url);
        for (const step of steps) {
          const answered = await step(request, url);
          if (answered !== undefined) return answered;
        }
        if (url.pathname !== '/mcp') return jsonRpcRefusal(404, -32601, `Not found: ${url.pathname}; the MCP endpoint is /mcp`);
        return await mcp.fetch(request);
      } catch (error) {
        log.error(`${request.method} ${request.url}: ${(error as Error).message}`);
        return jsonRpcRefusal(500, -32603, 'Internal server error');
      }
    },
  };
}

/** The settings from the platform's variables, or why they cannot be served here. */
function startOn(input: WebServerInput): { config: ServerConfig; log: Logger } | { problem: string } {
  let config: ServerConfig;
  try {
    const read = readConfig([], input.env);
    if (typeof read === 'string') return { problem: `unexpected ${read}` };
    config = read;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problem: error.message };
  }
  const problem = startProblem(input.summary, config, input.env) ?? platformProblem(input, config);
  if (problem !== undefined) return { problem };
  return { config, log: createLogger(input.summary.name, config.logLevel, (line) => console.error(line.trimEnd())) };
}

/**
 * A setting this platform cannot serve, named with what to do instead: never a feature silently
 * dropped (issue #40's rule).
 */
function platformProblem(input: WebServerInput, config: ServerConfig): string | undefined {
  const on = input.platform;
  if (config.oauth !== undefined) return `OAuth (--oauth-issuer) is not served on ${on} yet: use MCP_AUTH_TOKEN, or the Node server`;
  if ((config.toolMode ?? input.summary.mode) === 'code') {
    return `code mode (--tools code) is not served on ${on}: it runs programs in worker threads; use --tools direct, toolsets or dynamic, or the Node server`;
  }
  if (input.env.OTEL_EXPORTER_OTLP_ENDPOINT || input.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return `OpenTelemetry export is not served on ${on} yet: unset OTEL_EXPORTER_OTLP_ENDPOINT, or use the Node server`;
  }
  if (config.baseUrl === undefined && input.table.publicServers !== undefined) {
    return `the spec came from a URL, so its servers are screened for internal addresses, which ${on}'s fetch cannot do (it tells no resolved address): set API_BASE_URL to the API's URL`;
  }
  return undefined;
}
