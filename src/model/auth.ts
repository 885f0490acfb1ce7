// Security schemes → what the generated server needs to authenticate to the API, and the
// environment variables it reads the secrets from. One rule names every variable:
//
//   <SCHEME>_<PART>   SCHEME = the scheme's name in UPPER_SNAKE_CASE
//                     PART   = KEY (apiKey) | TOKEN (http bearer, other http schemes, oauth2 and
//                              openIdConnect ready-made tokens) | USERNAME and PASSWORD (http basic)
//                              | CLIENT_ID and CLIENT_SECRET (oauth2 client credentials)
//
// The part is not repeated when the name already ends with it (`api_key` → API_KEY), a name
// that would shadow one of the server's own settings gets an AUTH_ prefix, and a name taken
// by an earlier scheme gets _2, _3, ….

import { isObject, type Json, type JsonObject } from '../parse/pointer.js';
import type { AuthSchemeSpec, SecurityRequirement } from '../../templates/runtime/table.js';

const RESERVED = new Set([
  'API_BASE_URL', 'API_TIMEOUT_MS', 'MCP_TRANSPORT', 'PORT', 'HOST', 'LOG_LEVEL', 'MCP_AUTH_TOKEN',
  'MCP_ALLOWED_HOSTS', 'MCP_ALLOWED_ORIGINS', 'MCP_MAX_RESPONSE_BYTES', 'MCP_MAX_REQUEST_BYTES',
  'MCP_AUTH_FROM_HEADERS', 'PATH', 'HOME', 'NODE_OPTIONS',
]);

export function upperSnake(name: string): string {
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
  warnings: string[];
}

export function buildAuth(doc: JsonObject): AuthModel {
  const components = isObject(doc.components) ? doc.components : {};
  const raw = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const taken = new Set<string>(RESERVED);
  const variable = (scheme: string, part: string) => {
    const stem = upperSnake(scheme);
    let name = stem === part || stem.endsWith('_' + part) ? stem : `${stem}_${part}`;
    if (RESERVED.has(name)) name = `AUTH_${name}`;
    let candidate = name;
    for (let i = 2; taken.has(candidate); i++) candidate = `${name}_${i}`;
    taken.add(candidate);
    return candidate;
  };
  const schemes: Record<string, AuthSchemeSpec> = {};
  const warnings: string[] = [];
  for (const name of Object.keys(raw).sort()) {
    const s = raw[name];
    if (!isObject(s)) continue;
    const description = typeof s.description === 'string' ? s.description.replace(/\s+/g, ' ').trim().slice(0, 200) : undefined;
    const extra = description ? { description } : {};
    if (s.type === 'apiKey' && typeof s.name === 'string' && (s.in === 'header' || s.in === 'query' || s.in === 'cookie')) {
      schemes[name] = { type: 'apiKey', in: s.in, name: s.name, env: { key: variable(name, 'KEY') }, ...extra };
    } else if (s.type === 'http' && typeof s.scheme === 'string' && s.scheme.toLowerCase() === 'basic') {
      schemes[name] = { type: 'basic', env: { username: variable(name, 'USERNAME'), password: variable(name, 'PASSWORD') }, ...extra };
    } else if (s.type === 'http' && typeof s.scheme === 'string') {
      // bearer and any other scheme: `Authorization: <Scheme> <token>` (RFC 7235)
      const scheme = s.scheme.toLowerCase() === 'bearer' ? 'Bearer' : s.scheme;
      schemes[name] = { type: 'http', scheme, env: { token: variable(name, 'TOKEN') }, ...extra };
    } else if (s.type === 'oauth2') {
      const flows = isObject(s.flows) ? s.flows : {};
      const cc = isObject(flows.clientCredentials) ? flows.clientCredentials : undefined;
      const spec: AuthSchemeSpec = { type: 'oauth2', env: { token: variable(name, 'TOKEN') }, ...extra };
      if (cc && typeof cc.tokenUrl === 'string') {
        spec.clientCredentials = { tokenUrl: cc.tokenUrl };
        spec.env.clientId = variable(name, 'CLIENT_ID');
        spec.env.clientSecret = variable(name, 'CLIENT_SECRET');
      }
      schemes[name] = spec;
    } else if (s.type === 'openIdConnect') {
      schemes[name] = { type: 'oauth2', env: { token: variable(name, 'TOKEN') }, ...extra };
    } else {
      warnings.push(`#/components/securitySchemes/${name}: type ${JSON.stringify(s.type ?? null)} is not supported; operations that need it must be authenticated in src/hooks.ts`);
    }
  }
  return { schemes, warnings };
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
      if (!schemes[name]) usable = false;
      requirement[name] = Array.isArray(scopes) ? scopes.filter((x): x is string => typeof x === 'string') : [];
    }
    if (usable) out.push(requirement);
  }
  return out.length ? out : undefined;
}
