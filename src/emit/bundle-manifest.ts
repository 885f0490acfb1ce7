// manifest.json of the Claude Desktop extension bundle (MCPB, manifest version 0.3) that the
// generated project's `npm run bundle` packs with the official @anthropic-ai/mcpb tool. Claude
// Desktop shows `user_config` as a settings form and passes each answer to the server through
// `mcp_config.env`: a field per credential variable (sensitive, so it is kept in the OS keychain),
// the API's base URL and the main start-time settings. Optional fields default to "", which the
// server reads as unset.

import { codeTools, metaTools } from '../contract/meta-tools.js';
import type { ListedTool } from '../contract/profiles.js';
import type { ToolTable } from '../contract/table.js';
import { toolsetMetaTools } from '../contract/toolsets.js';
import { resolveDefaultServer } from './servers.js';
import { oneLine } from '../contract/visible-text.js';

interface ManifestInput {
  table: ToolTable;
  /** The default tools/list mode chosen at generation. */
  mode: 'direct' | 'toolsets' | 'dynamic' | 'code';
  /** Each credential variable and what it is (the README's rows). */
  credentials: { variable: string; what: string }[];
  /** The spec's absolute server URL, when it has one. */
  defaultBaseUrl: string | undefined;
  description: string;
  /** The spec's logo (https); `npm run bundle` fetches it as the bundle's icon when it is a PNG. */
  logoUrl: string | undefined;
}

interface UserConfigField {
  type: 'string' | 'boolean';
  title: string;
  description: string;
  required?: boolean;
  sensitive?: boolean;
  default?: string | boolean;
}

/** The tools Claude Desktop shows before the server runs: what the default tools/list holds. */
function listedTools(table: ToolTable, mode: ManifestInput['mode']): ListedTool[] | { name: string; description: string }[] {
  if (mode === 'code') return codeTools(table);
  if (mode === 'dynamic') return metaTools(table);
  if (mode === 'toolsets') return toolsetMetaTools(table);
  return table.tools.filter((t) => t.asTool !== false).map((t) => ({ name: t.name, description: t.description }));
}

/**
 * Where the API is: API_BASE_URL, required when the spec names no absolute URL; over several
 * APIs (ToolTable.apis), each API's own variable instead.
 */
function baseUrlFields(input: ManifestInput): [string, UserConfigField][] {
  const apis = input.table.apis;
  if (apis === undefined)
    return [
      [
        'API_BASE_URL',
        {
          type: 'string',
          title: 'API base URL',
          description: input.defaultBaseUrl
            ? `Where the API is; empty: ${input.defaultBaseUrl}`
            : 'Where the API is (the spec names no absolute URL)',
          required: input.defaultBaseUrl === undefined,
          default: '',
        },
      ],
    ];
  return Object.entries(apis).map(([namespace, api]) => {
    const server = resolveDefaultServer(api.servers);
    const description = server
      ? `Where the ${namespace} API is; empty: ${server}`
      : `Where the ${namespace} API is (its spec names no absolute URL)`;
    return [
      api.baseUrlEnv,
      { type: 'string', title: `${namespace} API base URL`, description, required: server === undefined, default: '' },
    ];
  });
}

export function bundleManifest(input: ManifestInput): Record<string, unknown> {
  const { table } = input;
  const userConfig: Record<string, UserConfigField> = {};
  const env: Record<string, string> = {};
  const field = (variable: string, spec: UserConfigField) => {
    const key = variable.toLowerCase();
    userConfig[key] = spec;
    env[variable] = `\${user_config.${key}}`;
  };
  for (const { variable, what } of input.credentials) {
    field(variable, { type: 'string', title: variable, description: oneLine(what, 200), sensitive: true, required: false, default: '' });
  }
  for (const [variable, spec] of baseUrlFields(input)) field(variable, spec);
  field('MCP_READ_ONLY', {
    type: 'boolean',
    title: 'Read-only',
    description: 'Serve only the operations that read (safe methods: GET, HEAD, QUERY, …)',
    required: false,
    default: false,
  });
  field('MCP_TOOLS', {
    type: 'string',
    title: 'Tool mode',
    description: `direct, toolsets, dynamic or code; empty: ${input.mode}, chosen at generation`,
    required: false,
    default: '',
  });
  field('MCP_TOOLSETS', {
    type: 'string',
    title: 'Toolsets',
    description: 'Comma-separated toolsets to serve; empty: all',
    required: false,
    default: '',
  });
  return {
    manifest_version: '0.3',
    name: table.name,
    display_name: oneLine(table.title ?? table.name, 100),
    version: '1.0.0',
    description: oneLine(input.description, 300),
    author: { name: 'mcp-gen' },
    server: {
      type: 'node',
      entry_point: 'dist/main.js',
      mcp_config: { command: 'node', args: ['${__dirname}/dist/main.js'], env },
    },
    tools: listedTools(table, input.mode).map((t) => ({ name: t.name, description: oneLine(t.description ?? '', 300) })),
    tools_generated: input.mode === 'toolsets',
    keywords: ['api', 'openapi', 'mcp-gen'],
    compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: '>=20.0.0' } },
    user_config: userConfig,
    ...(input.logoUrl !== undefined ? { _meta: { 'mcp-gen': { icon_url: input.logoUrl } } } : {}),
  };
}
