// Section 9, the OAuth resource server: the JWT check per call against the static bearer
// check, the JWT verification alone, the cold start with each, and that OAuth loads lazily.
import { OAUTH_MODES, type OAuthMode, type Results } from '../lib/results.js';
import { int, msf, table, x } from './format.js';

/** Microseconds, from milliseconds. */
const us = (ms: number) => (Number.isFinite(ms) ? `${Math.round(ms * 1000).toLocaleString('en-US')} µs` : 'n/a');
/** A signed difference in microseconds. */
const dus = (ms: number) => (Number.isFinite(ms) ? `${ms >= 0 ? '+' : '−'}${us(Math.abs(ms))}` : 'n/a');
/** A signed difference in milliseconds. */
const dms = (ms: number) => (Number.isFinite(ms) ? `${ms >= 0 ? '+' : '−'}${msf(Math.abs(ms))}` : 'n/a');
const range = (runs: number[]) => {
  const finite = runs.filter(Number.isFinite);
  return finite.length ? `${msf(Math.min(...finite))} – ${msf(Math.max(...finite))}` : 'n/a';
};

/** How each server checks the client, for the tables: long (per call) and short (cold start). */
const LABELS: Record<OAuthMode, [string, string]> = {
  'no auth': ['nothing (no check)', 'nothing'],
  'static token': ['`--auth-token` (static bearer token)', '`--auth-token`'],
  'oauth jwt': ['`--oauth-issuer` (JWT, keys cached)', '`--oauth-issuer`'],
};

export function oauthSection(r: Results): string[] {
  const o = r.oauth;
  if (!o) return [];
  const a = o.cells['static token'];
  const b = o.cells['oauth jwt'];
  // Results from before the unchecked server was measured have no such row.
  const measured = OAUTH_MODES.filter((mode) => mode !== 'no auth' || o.cells[mode] || o.start.cells[mode]);
  const callRows = measured.map((mode) => {
    const c = o.cells[mode];
    const label = LABELS[mode][0];
    if (!c) return [label, `not measured: ${o.unavailable[mode] ?? 'unavailable'}`, '', '', ''];
    return [label, us(c.median), us(c.mean), us(c.serverCpu), int(c.errors)];
  });
  const lines = [
    '## 9. OAuth resource server',
    '',
    `A generated server started with \`--transport http --oauth-issuer <issuer>\` discovers the authorization server at start and checks every request's \`Authorization: Bearer <JWT>\` against the issuer's JWKS (jose, keys cached); here the issuer is a real authorization server (oidc-provider, \`test/harness/authorization-server.ts\`) on loopback, in the bench process. ` +
      `Per call: ${int(o.calls)} sequential \`tools/call getPetById\` (Petstore, local upstream) over Streamable HTTP through the official SDK client, the token in \`requestInit.headers\`, against the same project started with no check${o.cells['no auth'] ? '' : ' (not in these results)'}, with \`--auth-token\` and with \`--oauth-issuer\`, ${o.reps} interleaved rounds; latency is the median of the calls of a round, server CPU from /proc/<pid>/stat, medians over the rounds.`,
    '',
    table(['server checks the client with', 'median per call', 'mean per call', 'server CPU per call', 'errors'], callRows),
    '',
  ];
  if (a && b) {
    lines.push(
      `**Cost of the OAuth check per call:** ${dus(b.median - a.median)} of latency (${x(b.median / a.median)} the static check's) and ${dus(b.serverCpu - a.serverCpu)} of server CPU (${x(b.serverCpu / a.serverCpu)}). ` +
        'This is what checking the token (its signature on first sight, then its remembered claims: issuer, audience, expiry), checking the tool’s scopes and building the request’s auth info add to each HTTP request, against comparing one static string.',
      '',
    );
  }
  const v = o.verify;
  lines.push(
    `**The token check alone:** ${us(v.ms)} per \`jwtVerifier(metadata)(audience).verifyAccessToken(token)\` of a token seen before (${v.alg}, ${int(v.tokenBytes)}-byte token; ${us(v.cpuMs)} of CPU: a SHA-256 of the token and a lookup), in-process after one warm-up call, median of ${v.reps} × ${int(v.iterations)} iterations. ` +
      (v.first
        ? `The first check of a token verifies its signature: ${us(v.first.ms)} (${us(v.first.cpuMs)} of CPU), over ${int(v.first.tokens)} distinct tokens; a client pays it once per token, not per call. `
        : '') +
      `It is the lower bound of the per-call cost above, since the server pays it on every request${lowerBoundNote(a, b, v, o.calls)}. ` +
      `The keys stay cached: the authorization server served ${int(o.jwksFetches)} JWKS document${o.jwksFetches === 1 ? '' : 's'} to the OAuth server over its ${int(50 + o.calls * o.reps)} calls and the session's other requests (jose ${o.jose}).`,
    '',
  );
  const sa = o.start.cells['static token'];
  const sb = o.start.cells['oauth jwt'];
  const startRows = measured.map((mode) => {
    const c = o.start.cells[mode];
    const label = LABELS[mode][1];
    if (!c) return [label, 'n/a', 'n/a', 'n/a'];
    if (c.error) return [label, `failed: ${c.error}`, '', ''];
    return [label, msf(c.listenMs), msf(c.ms), range(c.runs)];
  });
  lines.push(
    `Cold start of the same project over HTTP, spawn → \`initialize\` answered (timed around spawn and \`Client.connect()\` of the SDK client, with its token), median of ${o.start.reps} interleaved runs:`,
    '',
    table(['server checks the client with', 'spawn → listening', 'spawn → initialize answered', 'range'], startRows),
    '',
  );
  if (sa && sb && !sa.error && !sb.error) {
    lines.push(
      `**Turning OAuth on costs ${dms(sb.ms - sa.ms)} at start** (${x(sb.ms / sa.ms)}): ${dms(sb.listenMs - sa.listenMs)} before the server listens (loading jose and the OAuth modules, and discovering the authorization server — one metadata request, here on loopback; a remote issuer adds its round trips) and ${dms(sb.ms - sb.listenMs - (sa.ms - sa.listenMs))} on the first request (the JWKS fetch and the key import).`,
      '',
    );
  }
  const lazy = o.lazy;
  lines.push(
    lazy.dynamicImport && lazy.staticOAuth.length === 0
      ? 'With OAuth off nothing of it loads: the built `lib/runtime/http/listener.js` imports `oauth/resource-server/resource-server.js` with `import()` only when `--oauth-issuer` is set, and no module `dist/main.js` imports statically reaches jose or an OAuth module (checked in the built project), so the default start (section 3) is unchanged.'
      : `**The OAuth modules are not loaded lazily:** ${lazy.dynamicImport ? '' : '`lib/runtime/http/listener.js` has no `import()` of the resource server; '}${lazy.staticOAuth.length ? `\`dist/main.js\` reaches ${lazy.staticOAuth.map((m) => `\`${m}\``).join(', ')} by static imports` : ''} — every start pays for them.`,
    '',
  );
  return lines;
}

type Cell = NonNullable<NonNullable<Results['oauth']>['cells']['oauth jwt']>;

/** How the differences measured through the server compare with the verification alone. */
function lowerBoundNote(a: Cell | undefined, b: Cell | undefined, v: { ms: number; cpuMs: number }, calls: number): string {
  if (!a || !b) return '';
  const cpu = b.serverCpu - a.serverCpu;
  const latency = b.median - a.median;
  const notes = [
    cpu >= v.cpuMs
      ? `of the ${us(cpu)} of server CPU the OAuth server adds per call, the verification in a tight loop takes ${us(v.cpuMs)}; the rest is the same check running with colder caches between requests, the SDK's bearer helpers, the scope step and building the auth info`
      : `the ${us(cpu)} of server CPU measured per call is below it, i.e. within the noise (/proc counts in 10 ms steps, ${us(10 / calls)} per call over ${int(calls)} calls)`,
    ...(latency < v.ms
      ? [`the latency difference (${dus(latency)}) is below it: the spread of the round trips between rounds is larger than the check`]
      : []),
  ];
  return `: ${notes.join('; ')}`;
}
