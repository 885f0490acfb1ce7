// server.json for the official MCP Registry (https://registry.modelcontextprotocol.io), in the
// form of its published schema (server.schema.json, 2025-12-11): the npm package that `npx -y`
// runs over stdio, with the environment variables the server reads. `mcp-publisher publish`
// sends it as it is; its version is package.json's, so the two are published together.
import { SETTINGS } from '../contract/settings.js';
import { oneLine } from '../contract/visible-text.js';

const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** The registry's limit on a server's description (server.schema.json: maxLength). */
const DESCRIPTION_MAX = 100;

interface RegistryInput {
  mcpName: string;
  packageName: string;
  version: string;
  title: string;
  description: string;
  /** The credential variables, each with what it is (the README's rows). */
  credentials: { variable: string; what: string }[];
  /** Base URL variables the server cannot start without (the spec names no absolute URL). */
  requiredBaseUrls: string[];
}

interface EnvironmentVariable {
  name: string;
  description: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: 'boolean';
  default?: string;
}

/** Each variable once: the credentials (secret), the base URLs the spec lacks (required), then the settings table's. */
function environmentVariables(input: RegistryInput): EnvironmentVariable[] {
  const seen = new Set<string>();
  const once = (variable: EnvironmentVariable) => (seen.has(variable.name) ? [] : (seen.add(variable.name), [variable]));
  return [
    ...input.credentials.flatMap((c) => once({ name: c.variable, description: oneLine(c.what, 200), isSecret: true })),
    ...input.requiredBaseUrls.flatMap((name) =>
      once({ name, description: 'Where the API is (the spec names no absolute URL)', isRequired: true }),
    ),
    ...SETTINGS.flatMap((s) =>
      once({
        name: s.env,
        description: oneLine(s.help, 200),
        ...(s.value === undefined ? { format: 'boolean' as const } : {}),
        // a default that is a value (not prose such as "the mode chosen at generation")
        ...(s.default !== undefined && !/\s/.test(s.default) ? { default: s.default } : {}),
      }),
    ),
  ];
}

export function serverJson(input: RegistryInput): object {
  return {
    $schema: SERVER_SCHEMA,
    name: input.mcpName,
    title: oneLine(input.title, 100),
    description: oneLine(input.description, DESCRIPTION_MAX),
    version: input.version,
    packages: [
      {
        registryType: 'npm',
        identifier: input.packageName,
        version: input.version,
        transport: { type: 'stdio' },
        environmentVariables: environmentVariables(input),
      },
    ],
  };
}

/** The name mcp-gen gives when none is configured: a placeholder the generation summary asks to replace. */
export const defaultMcpName = (packageName: string): string => `io.github.your-github-user/${packageName.replace(/^@[^/]+\//, '')}`;
