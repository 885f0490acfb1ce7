// The MCP clients this authorization server knows: those named by a client ID metadata
// document (an https URL the client publishes, the registration MCP 2025-11-25 recommends) and
// those registered dynamically (RFC 7591). A redirect URI must match one the client declared,
// exactly, but for the port of a loopback one (RFC 8252 §7.3).

import type { Logger } from '../../start/log.js';
import { platform } from '../../start/platform.js';
import { readText } from '../../web/web-steps.js';
import { fetchWithoutRedirect } from '../without-redirect.js';
import { randomText, sha256Base64url } from '../secrets.js';
import { StoreFullError, type TokenStore } from './token-store.js';

export interface Client {
  clientId: string;
  /** As the consent page shows it: the client's own name, or its metadata document's host. */
  name: string;
  redirectUris: string[];
  /** SHA-256 of the secret of a confidential registered client; unset for public clients. */
  secretHash?: string;
  authMethod: 'none' | 'client_secret_post' | 'client_secret_basic';
  /** Where the client comes from, for the consent page: its metadata document's host, or "registered here". */
  origin: string;
}

export interface Clients {
  /** The client, or why it is unknown (a line for the user's browser, never a redirect). */
  find(clientId: string): Promise<Client | { problem: string }>;
  /**
   * RFC 7591: the registration answer (201), its error (400), or 429 with the seconds to wait
   * when `address` registered too often or too many registrations are still unused.
   */
  register(metadata: unknown, address: string): Promise<Registered>;
  /** The client obtained tokens: a registered one is kept REGISTERED_TTL_MS from now. */
  used(client: Client): Promise<void>;
}

interface Registered {
  status: number;
  body: Record<string, unknown>;
  retryAfterSeconds?: number;
}

/** A registered client in use lives this long after its last token grant. */
const REGISTERED_TTL_MS = 180 * 24 * 3_600_000;
/** A registration no sign-in has used yet: anyone may make one, so it goes soon. */
const UNUSED_REGISTRATION_TTL_MS = 6 * 3_600_000;
/** Unused registrations at once, from all addresses: beyond, /register answers 429. */
const MAX_UNUSED_REGISTRATIONS = 10_000;
/** What a full registration cap asks to wait (unused registrations expire over the next hours). */
const FULL_RETRY_AFTER_SECONDS = 600;
/** Per client address: this many registrations at once, then one per REGISTRATION_REFILL_MS. */
const REGISTRATION_BURST = 30;
const REGISTRATION_REFILL_MS = 60_000;
/** Addresses remembered; the one heard from least recently is forgotten first. */
const MAX_PACED_ADDRESSES = 10_000;
/** For the whole fetch of a document, its body included: /authorize waits on it. */
const DOCUMENT_TIMEOUT_MS = 5_000;
/** Documents fetched at once (one fetch serves every request for the same URL meanwhile). */
const MAX_CONCURRENT_FETCHES = 10;
/**
 * All the caller learns of a failed fetch, whatever the cause: a refused connection, a wrong
 * certificate or a status would otherwise map the network around this server. The log says more.
 */
const DOCUMENT_UNAVAILABLE = "the client's metadata document could not be fetched";
/** The draft's own advice: a metadata document is small. */
const MAX_DOCUMENT_BYTES = 5_120;
const DOCUMENT_CACHE_MS = 3_600_000;
const MAX_CACHED_DOCUMENTS = 1_000;
const MAX_REDIRECT_URIS = 20;
const MAX_NAME = 100;
/** Schemes no redirect may use: they would run code or read files in the user's browser. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;

export interface ClientsOptions {
  allowInternalDocuments: boolean;
  log: Logger;
  /** Default MAX_UNUSED_REGISTRATIONS. */
  maxUnusedRegistrations?: number;
}

export function createClients(store: TokenStore, options: ClientsOptions): Clients {
  const pace = new RegistrationPace();
  const documents = new DocumentClients(options);
  return {
    find: (clientId) => (clientId.startsWith('https://') ? documents.find(clientId) : registeredClient(store, clientId)),
    async register(metadata, address) {
      const wait = pace.take(address);
      if (wait > 0) return tooMany(`${address} registered too many clients; try again in ${wait} s`, wait);
      const checked = registration(metadata);
      if ('error' in checked) return { status: 400, body: checked };
      return saveRegistration(store, checked, options.maxUnusedRegistrations ?? MAX_UNUSED_REGISTRATIONS);
    },
    used: (client) => keepUsedClient(store, client),
  };
}

function tooMany(description: string, retryAfterSeconds: number): Registered {
  return { status: 429, body: { error: 'temporarily_unavailable', error_description: description }, retryAfterSeconds };
}

async function saveRegistration(store: TokenStore, checked: Registration, cap: number): Promise<Registered> {
  const clientId = `mcp_${randomText(16)}`;
  const secret = checked.authMethod === 'none' ? undefined : randomText(32);
  const client: Client = {
    clientId,
    name: checked.name ?? 'an unnamed client',
    redirectUris: checked.redirectUris,
    authMethod: checked.authMethod,
    origin: 'registered here',
    ...(secret !== undefined ? { secretHash: await hashOf(secret) } : {}),
  };
  try {
    await store.put(`client:${clientId}`, client, UNUSED_REGISTRATION_TTL_MS, cap);
  } catch (error) {
    if (!(error instanceof StoreFullError)) throw error;
    return tooMany(`${cap} registrations are waiting for their first sign-in; try again later`, FULL_RETRY_AFTER_SECONDS);
  }
  return {
    status: 201,
    body: {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: client.authMethod,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(checked.name !== undefined ? { client_name: checked.name } : {}),
    },
  };
}

/** Registrations per client address: a burst, then one per interval (a token bucket in memory, per process). */
class RegistrationPace {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** 0 when `address` may register now (counted), else the whole seconds until it may. */
  take(address: string): number {
    const unit = paceUnit(address);
    const now = Date.now();
    const bucket = this.#buckets.get(unit);
    const tokens = bucket ? Math.min(REGISTRATION_BURST, bucket.tokens + (now - bucket.at) / REGISTRATION_REFILL_MS) : REGISTRATION_BURST;
    // re-inserted, so that the map's first entry is the address heard from least recently
    this.#buckets.delete(unit);
    this.#buckets.set(unit, { tokens: tokens >= 1 ? tokens - 1 : tokens, at: now });
    if (this.#buckets.size > MAX_PACED_ADDRESSES) this.#buckets.delete(this.#buckets.keys().next().value as string);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * REGISTRATION_REFILL_MS) / 1000);
  }
}

/**
 * What the pace counts: an IPv4 address, or an IPv6 address's /64, which a single subscriber
 * usually holds whole (RFC 6177), so that fresh addresses from one subscriber share one pace.
 */
function paceUnit(address: string): string {
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // an embedded IPv4 address (a.b.c.d) stands for two groups
  const groups = (parts: string[]) => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const zeros = tail === undefined ? [] : Array<string>(8 - groups(left) - groups(right)).fill('0');
  const prefix = [...left, ...zeros, ...right].slice(0, 4).map((group) => group.replace(/^0+(?=.)/, ''));
  return `${prefix.join(':')}::/64`;
}

/**
 * A registered client that obtained tokens lives REGISTERED_TTL_MS from its latest grant, out of
 * the unused registrations' cap; rewritten at most once a day, since registration says its
 * secret never expires and a client in use must never disappear.
 */
async function keepUsedClient(store: TokenStore, client: Client): Promise<void> {
  if (client.clientId.startsWith('https://')) return;
  const stored = await store.get<Client & { seen?: number }>(`client:${client.clientId}`);
  if (stored === undefined || (stored.seen ?? 0) > Date.now() - 86_400_000) return;
  await store.put(`client:${client.clientId}`, { ...stored, seen: Date.now() }, REGISTERED_TTL_MS);
}

/** Clients named by a metadata document: cached, each URL fetched once at a time, few fetches at once. */
class DocumentClients {
  readonly #cache = new Map<string, { client: Client | { problem: string }; until: number }>();
  readonly #fetching = new Map<string, Promise<Client | { problem: string }>>();

  constructor(private readonly options: ClientsOptions) {}

  find(clientId: string): Promise<Client | { problem: string }> {
    const cached = this.#cache.get(clientId);
    if (cached !== undefined && cached.until > Date.now()) return Promise.resolve(cached.client);
    const fetching = this.#fetching.get(clientId);
    if (fetching !== undefined) return fetching;
    if (this.#fetching.size >= MAX_CONCURRENT_FETCHES) {
      this.options.log.warn(`client ID metadata document ${clientId}: not fetched, ${MAX_CONCURRENT_FETCHES} fetches are under way`);
      return Promise.resolve({ problem: DOCUMENT_UNAVAILABLE });
    }
    const fetched = this.#fetch(clientId).finally(() => this.#fetching.delete(clientId));
    this.#fetching.set(clientId, fetched);
    return fetched;
  }

  async #fetch(clientId: string): Promise<Client | { problem: string }> {
    const client = await clientOfDocument(clientId, this.options);
    if (this.#cache.size >= MAX_CACHED_DOCUMENTS) this.#cache.delete(this.#cache.keys().next().value as string);
    // A failure is remembered briefly only, so that a fixed document works soon.
    this.#cache.set(clientId, { client, until: Date.now() + ('problem' in client ? 10_000 : DOCUMENT_CACHE_MS) });
    return client;
  }
}

async function registeredClient(store: TokenStore, clientId: string): Promise<Client | { problem: string }> {
  return (await store.get<Client>(`client:${clientId}`)) ?? { problem: 'unknown client_id' };
}

export function hashOf(secret: string): Promise<string> {
  return sha256Base64url(secret);
}

/** Exact match, or a loopback http redirect on another port (native apps pick a free port). */
export function redirectAllowed(client: Client, redirectUri: string): boolean {
  if (client.redirectUris.includes(redirectUri)) return true;
  const asked = loopbackWithoutPort(redirectUri);
  return asked !== undefined && client.redirectUris.some((uri) => loopbackWithoutPort(uri) === asked);
}

function loopbackWithoutPort(uri: string): string | undefined {
  const url = parseUrl(uri);
  if (url === null || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
}

/** A redirect URI a client may declare: https, http on loopback, or an app's own scheme; no fragment. */
function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length > 2_000) return 'a redirect URI must be a string of at most 2000 characters';
  const url = parseUrl(uri);
  if (url === null) return `${JSON.stringify(uri)} is not an absolute URI`;
  if (url.hash !== '' || uri.includes('#')) return `${uri} has a fragment`;
  if (url.username !== '' || url.password !== '') return `${uri} carries credentials`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${url.protocol} redirect URIs are not allowed`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return `${uri}: http only on loopback (127.0.0.1, [::1], localhost)`;
  return undefined;
}

interface Registration {
  redirectUris: string[];
  name?: string;
  authMethod: Client['authMethod'];
}

function registration(metadata: unknown): Registration | { error: string; error_description: string } {
  const invalid = (field: string, why: string) => ({
    error: field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    error_description: `${field}: ${why}`,
  });
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return invalid('body', 'a JSON object is expected');
  const m = metadata as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    return invalid('redirect_uris', `1 to ${MAX_REDIRECT_URIS} URIs are required`);
  }
  const problem = uris.map(redirectUriProblem).find((p) => p !== undefined);
  if (problem !== undefined) return invalid('redirect_uris', problem);
  // RFC 7591 §2: without a method, client_secret_basic.
  const authMethod = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(authMethod as Client['authMethod'])) {
    return invalid('token_endpoint_auth_method', `one of ${AUTH_METHODS.join(', ')}`);
  }
  const unsupported = listProblem(m.grant_types, ['authorization_code', 'refresh_token']) ?? listProblem(m.response_types, ['code']);
  if (unsupported !== undefined) return invalid('grant_types/response_types', unsupported);
  const name = displayName(m.client_name);
  return { redirectUris: uris as string[], authMethod: authMethod as Client['authMethod'], ...(name !== undefined ? { name } : {}) };
}

function listProblem(value: unknown, supported: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return 'a list is expected';
  const other = value.find((v) => !supported.includes(v as string));
  return other === undefined ? undefined : `${JSON.stringify(other)} is not supported (only ${supported.join(', ')})`;
}

/** A client's name as the consent page may show it: one line of printable text, bounded. */
function displayName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  return name === '' ? undefined : name.slice(0, MAX_NAME);
}

/** A client ID metadata document's URL: https, a path, no fragment, no credentials, no dot segments. */
function documentUrlProblem(clientId: string): string | undefined {
  const url = parseUrl(clientId);
  if (url === null || url.protocol !== 'https:') return 'a client ID metadata document must be at an https URL';
  if (url.pathname === '/' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return 'a client ID metadata document URL needs a path and no fragment or credentials';
  }
  if (url.href !== clientId || /\/\.\.?(\/|$)/.test(clientId)) return 'a client ID metadata document URL must be in normal form';
  return undefined;
}

async function clientOfDocument(clientId: string, options: ClientsOptions): Promise<Client | { problem: string }> {
  const problem = documentUrlProblem(clientId);
  if (problem !== undefined) return { problem };
  let document: unknown;
  try {
    document = JSON.parse(await fetchDocument(new URL(clientId), options.allowInternalDocuments));
  } catch (error) {
    options.log.warn(`client ID metadata document ${clientId}: ${(error as Error).message}`);
    return { problem: DOCUMENT_UNAVAILABLE };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { problem: "the client's metadata document is not a JSON object" };
  }
  const d = document as Record<string, unknown>;
  if (d.client_id !== clientId) return { problem: "the client's metadata document names another client_id" };
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined) {
    return { problem: "the client's metadata document holds a client secret, which a public document may not" };
  }
  if ((d.token_endpoint_auth_method ?? 'none') !== 'none') {
    return { problem: "the client's metadata document asks for a token endpoint authentication this server does not offer (only none)" };
  }
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    return { problem: "the client's metadata document lists no redirect_uris" };
  }
  const bad = uris.map(redirectUriProblem).find((p) => p !== undefined);
  if (bad !== undefined) return { problem: `the client's metadata document: ${bad}` };
  const host = new URL(clientId).host;
  return { clientId, name: displayName(d.client_name) ?? host, redirectUris: uris as string[], authMethod: 'none', origin: host };
}

/**
 * GET over https without redirects, within a size limit and one deadline for the whole answer;
 * the host, a name or an address, must be public (an MCP client's URL must not make this server
 * reach its own network), unless this server itself serves loopback only. Node screens the
 * address a name resolves to as it connects (client-documents-node.ts); a platform's fetch tells
 * none, so there only an address written in the URL is screened.
 */
async function fetchDocument(url: URL, allowInternal: boolean): Promise<string> {
  // The address rules (node:net's BlockList) load with the first document fetched.
  const { InternalAddressError, ipLiteral, isInternalAddress } = await import('../../../contract/addresses.js');
  const literal = ipLiteral(url);
  if (!allowInternal && literal !== undefined && isInternalAddress(literal)) throw new InternalAddressError(literal, literal);
  if (platform().screensAddresses) {
    const { fetchScreened } = await import('./client-documents-node.js');
    return fetchScreened(url, allowInternal, { timeoutMs: DOCUMENT_TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES });
  }
  const response = await fetchWithoutRedirect(url.href, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  const text = await readText(response, MAX_DOCUMENT_BYTES);
  if (text === undefined) throw new Error(`larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return text;
}

/** new URL without the throw (URL.parse is newer than Node 20.0). */
function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
