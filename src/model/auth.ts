// Security schemes → what the generated server needs to authenticate to the API, and the
// environment variables it reads the secrets from. One rule names every variable:
//
//   <API>_<SCHEME>_<PART>   API    = the prefix: --env-prefix, else the package name without
//                                    "-mcp" (`swagger-petstore-mcp` → SWAGGER_PETSTORE) when the
//                                    user named it or generates from a spec file, else MCPGEN
//                           SCHEME = the scheme's name in UPPER_SNAKE_CASE
//                           PART   = KEY (apiKey) | TOKEN (http bearer, other http schemes, oauth2
//                                    and openIdConnect ready-made tokens) | USERNAME and PASSWORD
//                                    (http basic) | CLIENT_ID and CLIENT_SECRET (oauth2 client
//                                    credentials)
//
// Why a prefix: the spec is untrusted and names the schemes, so without one a hostile spec
// could make the server read AWS_SECRET_ACCESS_KEY or GITHUB_TOKEN and send it to the spec's
// own host. Nor may the spec choose the prefix where no one reviews the result: a spec titled
// "DB" served from a URL would read DB_PASSWORD. So its title names the prefix only for a
// spec file the user generates a project from (README and .env.example show the names before
// anything runs); `serve` and specs from URLs use mcp-gen's own namespace, MCPGEN, unless the
// user chose a prefix or a package name. A part is not repeated (`api_key` → …_API_KEY, not …_API_KEY_KEY), a name taken by
// an earlier scheme gets _2, _3, …. Names that are still well-known secrets of other tools are
// refused unless the user chose the prefix; names in the server's own MCP_ namespace always.

import { SpecError } from '../errors.js';
import { warning, type GenerationWarning } from '../warnings.js';
import { isObject, pointer, type Json, type JsonObject } from '../parse/pointer.js';
import type { AuthSchemeSpec, ParamSpec, SecurityRequirement, ToolTable } from '../contract/table.js';
import { SETTINGS } from '../contract/settings.js';
import { isToken, unsendableCookieName, unsendableHeaderName } from '../contract/headers.js';
import type { ModelOptions } from './model-options.js';

/** Secrets of other tools that commonly sit in a developer's or a CI runner's environment. */
const WELL_KNOWN = new Set([
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AZURE_CLIENT_SECRET',
  'AZURE_CLIENT_ID',
  'GOOGLE_API_KEY',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_PAT',
  'GITLAB_TOKEN',
  'CI_JOB_TOKEN',
  'NPM_TOKEN',
  'NODE_AUTH_TOKEN',
  'YARN_NPM_AUTH_TOKEN',
  'PYPI_TOKEN',
  'TWINE_PASSWORD',
  'CARGO_REGISTRY_TOKEN',
  'DOCKER_PASSWORD',
  'DOCKERHUB_TOKEN',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'SLACK_TOKEN',
  'SLACK_BOT_TOKEN',
  'STRIPE_SECRET_KEY',
  'STRIPE_API_KEY',
  'SENTRY_AUTH_TOKEN',
  'CODECOV_TOKEN',
  'VERCEL_TOKEN',
  'NETLIFY_AUTH_TOKEN',
  'HEROKU_API_KEY',
  'CLOUDFLARE_API_TOKEN',
  'CLOUDFLARE_API_KEY',
  'DIGITALOCEAN_TOKEN',
  'DIGITALOCEAN_ACCESS_TOKEN',
  'VAULT_TOKEN',
  'CONSUL_HTTP_TOKEN',
  'DATABASE_PASSWORD',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'SNYK_TOKEN',
  'SONAR_TOKEN',
  'TF_TOKEN',
  'ATLAS_TOKEN',
]);

/**
 * The server's own settings (src/contract/settings.ts: PORT, API_BASE_URL, MCP_AUTH_TOKEN, …)
 * and its whole MCP_ namespace: never a credential of the API.
 */
const SERVER_VARIABLES = new Set(SETTINGS.map((s) => s.env));
export const isServerSetting = (name: string) => name.startsWith('MCP_') || SERVER_VARIABLES.has(name);

function upperSnake(name: string): string {
  const snake = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[A-Z]/.test(snake) ? snake : `AUTH_${snake || 'SCHEME'}`;
}

export interface AuthModel {
  schemes: Record<string, AuthSchemeSpec>;
  warnings: GenerationWarning[];
}

/** mcp-gen's own namespace: the prefix wherever neither the user nor a reviewed spec file names one. */
const OWN_PREFIX = 'MCPGEN';

/** The package name without its `-mcp` ending, as a prefix. */
export function envPrefixFor(packageName: string): string {
  return upperSnake(packageName.replace(/-mcp$/, '')).slice(0, 40).replace(/_+$/, '');
}

/**
 * PREFIX_STEM, written once where they overlap: SWAGGER_PETSTORE + PETSTORE_AUTH gives
 * SWAGGER_PETSTORE_AUTH, and a stem that already starts with the whole prefix stays as it is.
 */
export function joinOverlapping(prefix: string, stem: string): string {
  if (!prefix) return stem;
  const head = prefix.split('_');
  const tail = stem.split('_');
  for (let k = Math.min(head.length, tail.length); k > 0; k--) {
    if (head.slice(-k).join('_') === tail.slice(0, k).join('_')) return [...head, ...tail.slice(k)].join('_');
  }
  return `${prefix}_${stem}`;
}

export interface AuthNaming {
  /** UPPER_SNAKE prefix of every credential variable; '' for none. */
  prefix: string;
  /** The user chose the prefix (--env-prefix): well-known names are theirs to pick. */
  chosen: boolean;
}

/**
 * Who names the prefix: the user (--env-prefix; else --name, through the package name), else
 * the spec's title through `packageName` when `titleMayName` (a spec file, generating), else
 * mcp-gen's own namespace.
 */
export function credentialNaming(user: Pick<ModelOptions, 'envPrefix' | 'name'>, packageName: string, titleMayName: boolean): AuthNaming {
  if (user.envPrefix !== undefined) return { prefix: user.envPrefix, chosen: true };
  return { prefix: user.name !== undefined || titleMayName ? envPrefixFor(packageName) : OWN_PREFIX, chosen: false };
}

/** Every credential variable, by scheme: `db: MCPGEN_DB_USERNAME, MCPGEN_DB_PASSWORD; …`, for the people starting a server. */
export function credentialSummary(table: Pick<ToolTable, 'auth' | 'tools'>, groups = credentialGroups(table)): string | undefined {
  const variables = (name: string) => Object.values(table.auth[name]?.env ?? {}).join(', ');
  const parts = groups.map((group) =>
    group.length === 1
      ? `${group[0]}: ${variables(group[0] as string)}`
      : `one of ${group.map((name) => `${name} (${variables(name)})`).join(' or ')}`,
  );
  return parts.length ? parts.join('; ') : undefined;
}

/**
 * The security schemes in groups of alternatives: schemes accepted by exactly the same tools,
 * never required together, are interchangeable (Stripe's basic *or* bearer), and a user sets
 * one of each group. Every other scheme is a group of its own. In the order of `auth`.
 */
export function credentialGroups(table: Pick<ToolTable, 'auth' | 'tools'>): string[][] {
  const acceptedBy = new Map<string, string>();
  const together = new Set<string>();
  for (const name of Object.keys(table.auth)) {
    const tools = table.tools.filter((t) => t.security?.some((alternative) => name in alternative)).map((t) => t.name);
    acceptedBy.set(name, tools.join('\n'));
  }
  for (const tool of table.tools)
    for (const alternative of tool.security ?? [])
      for (const name of Object.keys(alternative)) if (Object.keys(alternative).length > 1) together.add(name);
  const groups = new Map<string, string[]>();
  for (const [name, tools] of acceptedBy) {
    const key = tools === '' || together.has(name) ? `\0${name}` : tools;
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  return [...groups.values()];
}

/**
 * Credential variables for every security scheme. When the default prefix would give the name
 * of another tool's well-known secret (a spec titled "Netlify" whose scheme is `netlifyAuth`
 * gives NETLIFY_AUTH_TOKEN), the variables move to PREFIX_MCP_… with a warning, rather than
 * failing: the server must never read that secret, and the user did not pick the prefix.
 */
export function buildAuth(doc: JsonObject, naming: AuthNaming, source: string): AuthModel {
  try {
    return buildAuthNamed(doc, naming, source);
  } catch (error) {
    if (naming.chosen || !(error instanceof SpecError) || !/well-known secret/.test(error.message)) throw error;
    const prefix = naming.prefix ? `${naming.prefix}_MCP` : 'API_MCP';
    const model = buildAuthNamed(doc, { prefix, chosen: false }, source);
    model.warnings.push(
      warning(
        'credential-prefix',
        `credential variables start with ${prefix}_: with the default prefix, ${error.message.replace(/; name the variables.*$/, '')} (choose another with --env-prefix)`,
      ),
    );
    return model;
  }
}

function buildAuthNamed(doc: JsonObject, naming: AuthNaming, source: string): AuthModel {
  const components = isObject(doc.components) ? doc.components : {};
  const raw = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const taken = new Set<string>();
  const variable = (scheme: string, part: string) => {
    const stem = joinOverlapping(naming.prefix, upperSnake(scheme));
    const name = stem === part || stem.endsWith('_' + part) ? stem : `${stem}_${part}`;
    if (isServerSetting(name) || (WELL_KNOWN.has(name) && !naming.chosen)) {
      throw new SpecError(
        `the credential variable would be ${name}, ${isServerSetting(name) ? "one of the server's own settings" : 'a well-known secret of another tool'}; name the variables yourself with --env-prefix`,
        source + pointer('components', 'securitySchemes', scheme),
      );
    }
    let candidate = name;
    for (let i = 2; taken.has(candidate); i++) candidate = `${name}_${i}`;
    taken.add(candidate);
    return candidate;
  };
  const schemes: Record<string, AuthSchemeSpec> = {};
  const warnings: GenerationWarning[] = [];
  for (const name of Object.keys(raw).sort()) {
    const s = raw[name];
    if (!isObject(s)) continue;
    const refused = unsendable(s);
    if (refused !== undefined) {
      warnings.push(
        warning(
          'unsendable-header',
          `${refused}; the scheme is left out, so operations that need it must be authenticated in src/hooks.ts`,
          pointer('components', 'securitySchemes', name),
        ),
      );
      continue;
    }
    const extra = schemeNotes(s);
    if (s.type === 'apiKey' && typeof s.name === 'string' && (s.in === 'header' || s.in === 'query' || s.in === 'cookie')) {
      schemes[name] = { type: 'apiKey', in: s.in, name: s.name, env: { key: variable(name, 'KEY') }, ...extra };
    } else if (s.type === 'http' && typeof s.scheme === 'string' && s.scheme.toLowerCase() === 'basic') {
      schemes[name] = { type: 'basic', env: { username: variable(name, 'USERNAME'), password: variable(name, 'PASSWORD') }, ...extra };
    } else if (s.type === 'http' && typeof s.scheme === 'string') {
      // bearer and any other scheme: `Authorization: <Scheme> <token>` (RFC 7235)
      const scheme = s.scheme.toLowerCase() === 'bearer' ? 'Bearer' : s.scheme;
      schemes[name] = { type: 'http', scheme, env: { token: variable(name, 'TOKEN') }, ...extra };
    } else if (s.type === 'oauth2') {
      schemes[name] = oauth2Scheme(s, (part) => variable(name, part), extra);
    } else if (s.type === 'openIdConnect') {
      schemes[name] = { type: 'oauth2', env: { token: variable(name, 'TOKEN') }, ...extra };
    } else {
      warnings.push(
        warning(
          'unsupported-security',
          `type ${JSON.stringify(s.type ?? null)} is not supported; operations that need it must be authenticated in src/hooks.ts`,
          `#/components/securitySchemes/${name}`,
        ),
      );
    }
  }
  return { schemes, warnings };
}

/**
 * Why a scheme would put something into the request that must never be sent: an apiKey header
 * the HTTP client owns (with --auth-from-headers a client would set Host or Transfer-Encoding),
 * or a header name, cookie name or authentication scheme that is no token.
 */
function unsendable(s: JsonObject): string | undefined {
  if (s.type === 'apiKey' && typeof s.name === 'string' && s.in === 'header') return unsendableHeaderName(s.name);
  if (s.type === 'apiKey' && typeof s.name === 'string' && s.in === 'cookie') return unsendableCookieName(s.name);
  if (s.type === 'http' && typeof s.scheme === 'string' && !isToken(s.scheme)) {
    return `authentication scheme ${JSON.stringify(s.scheme)} cannot be sent: not a valid scheme name (an RFC 9110 token)`;
  }
  return undefined;
}

/**
 * The operation's requirements (OpenAPI 3.0.3 §4.7.10: `security` on the operation replaces
 * the root's; `[]` removes it; `{}` in the list makes authentication optional). Schemes the
 * spec does not define are dropped from their alternative, which then cannot be satisfied.
 */
export function securityFor(op: JsonObject, doc: JsonObject, schemes: Record<string, AuthSchemeSpec>): SecurityRequirement[] | undefined {
  const source: Json | undefined = op.security ?? doc.security;
  if (!Array.isArray(source) || source.length === 0) return undefined;
  const out: SecurityRequirement[] = [];
  for (const alternative of source) {
    if (!isObject(alternative)) continue;
    const requirement: SecurityRequirement = {};
    let usable = true;
    for (const [name, scopes] of Object.entries(alternative)) {
      if (!Object.hasOwn(schemes, name)) usable = false;
      requirement[name] = Array.isArray(scopes) ? scopes.filter((x): x is string => typeof x === 'string') : [];
    }
    if (usable) out.push(requirement);
  }
  return out.length ? out : undefined;
}

/**
 * Parameters that are a credential: named as an apiKey scheme of the same location (a header's
 * name in any case, RFC 9110 §5.1). Specs such as Apideck's declare the key both as a scheme and
 * as a required parameter of every operation, some while no operation's security names the
 * scheme; the server fills the parameter from the scheme's variable instead of asking the agent
 * for the key. The parameters, and the schemes of the required and of the optional ones.
 */
export function credentialParameters(
  params: ParamSpec[],
  schemes: Record<string, AuthSchemeSpec>,
): { filled: Set<ParamSpec>; required: string[]; optional: string[] } {
  const filled = new Set<ParamSpec>();
  const required = new Set<string>();
  const optional = new Set<string>();
  const same = (p: ParamSpec, name: string) => (p.in === 'header' ? p.name.toLowerCase() === name.toLowerCase() : p.name === name);
  const apiKeys = Object.entries(schemes).flatMap(([key, s]) => (s.type === 'apiKey' ? [{ key, in: s.in, name: s.name }] : []));
  for (const p of params) {
    const scheme = apiKeys.find((s) => s.in === p.in && same(p, s.name));
    if (!scheme) continue;
    filled.add(p);
    (p.required ? required : optional).add(scheme.key);
  }
  return { filled, required: [...required], optional: [...optional].filter((name) => !required.has(name)) };
}

/**
 * The security requirements with the schemes that fill parameters: every way to authenticate
 * needs those of required parameters; those of optional ones are used when set (the runtime
 * takes the first alternative whose credentials are all set), else the call goes without.
 */
export function withSchemes(
  security: SecurityRequirement[] | undefined,
  required: string[],
  optional: string[],
): SecurityRequirement[] | undefined {
  if (!required.length && !optional.length) return security;
  const adding = (base: SecurityRequirement[], names: string[]) =>
    base.map((requirement) => ({ ...requirement, ...Object.fromEntries(names.map((name) => [name, []])) }));
  const needed = adding(security ?? [{}], required);
  return optional.length ? [...adding(needed, optional), ...needed] : needed;
}

/** Scope names kept of a flow: enough for any real API (Google's declare a few hundred at most). */
/** What every scheme may carry: its description on one line, and OAS 3.2's `deprecated`, said in it too. */
function schemeNotes(s: JsonObject): { description?: string; deprecated?: true } {
  const text = typeof s.description === 'string' ? s.description.replace(/\s+/g, ' ').trim().slice(0, 200) : '';
  if (s.deprecated !== true) return text ? { description: text } : {};
  return {
    description: `${text ? `${text} ` : ''}(Deprecated by the API: prefer another scheme where an operation offers one.)`,
    deprecated: true,
  };
}

/**
 * An oauth2 scheme: a token from its variable; the client credentials grant when the server can
 * fetch tokens itself, the authorization code flow for delegated sign-in. OAS 3.2's device
 * authorization flow and `oauth2MetadataUrl` (RFC 8414) are recorded for the user: a device
 * sign-in gives the token the variable holds.
 */
function oauth2Scheme(s: JsonObject, variable: (part: string) => string, extra: object): AuthSchemeSpec {
  const flows = isObject(s.flows) ? s.flows : {};
  const cc = isObject(flows.clientCredentials) ? flows.clientCredentials : undefined;
  const spec: AuthSchemeSpec = { type: 'oauth2', env: { token: variable('TOKEN') }, ...extra };
  if (cc && typeof cc.tokenUrl === 'string') {
    spec.clientCredentials = { tokenUrl: cc.tokenUrl };
    spec.env.clientId = variable('CLIENT_ID');
    spec.env.clientSecret = variable('CLIENT_SECRET');
  }
  const code = authorizationCodeFlow(flows.authorizationCode);
  if (code !== undefined) spec.authorizationCode = code;
  const device = deviceFlow(flows.deviceAuthorization);
  if (device !== undefined) spec.deviceAuthorization = device;
  if (typeof s.oauth2MetadataUrl === 'string' && isHttpUrl(s.oauth2MetadataUrl)) spec.metadataUrl = s.oauth2MetadataUrl;
  return spec;
}

/** OAS 3.2's device authorization flow (RFC 8628), when complete. */
function deviceFlow(flow: unknown): { deviceAuthorizationUrl: string; tokenUrl: string; scopes: string[] } | undefined {
  if (!isObject(flow) || typeof flow.deviceAuthorizationUrl !== 'string' || typeof flow.tokenUrl !== 'string') return undefined;
  if (!isHttpUrl(flow.deviceAuthorizationUrl) || !isHttpUrl(flow.tokenUrl)) return undefined;
  return { deviceAuthorizationUrl: flow.deviceAuthorizationUrl, tokenUrl: flow.tokenUrl, scopes: flowScopes(flow) };
}

const MAX_FLOW_SCOPES = 500;
/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The authorization code flow as the server's delegated sign-in needs it, when it is complete. */
function authorizationCodeFlow(flow: unknown): { authorizationUrl: string; tokenUrl: string; scopes: string[] } | undefined {
  if (!isObject(flow) || typeof flow.authorizationUrl !== 'string' || typeof flow.tokenUrl !== 'string') return undefined;
  if (!isHttpUrl(flow.authorizationUrl) || !isHttpUrl(flow.tokenUrl)) return undefined;
  return { authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl, scopes: flowScopes(flow) };
}

/** A flow's scopes that are RFC 6749 scope tokens, at most MAX_FLOW_SCOPES. */
function flowScopes(flow: JsonObject): string[] {
  return Object.keys(isObject(flow.scopes) ? flow.scopes : {})
    .filter((scope) => SCOPE_TOKEN.test(scope))
    .slice(0, MAX_FLOW_SCOPES);
}

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}
