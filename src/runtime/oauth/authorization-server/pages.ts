// The pages a person sees during sign-in: the consent page (which client, which tools, which
// scopes) and the error page. Plain HTML without script; every text from a client or the spec
// is escaped; no page may be framed (clickjacking) and the consent form posts only here.

export interface ConsentPage {
  apiName: string;
  clientName: string;
  /** The client's metadata document host, or "registered here". */
  clientOrigin: string;
  redirectUri: string;
  tools: string[];
  scopes: string[];
  /** The API's sign-in host, where the user goes next. */
  signInHost: string;
  requestId: string;
  csrf: string;
  /** The consent form's action. */
  action: string;
}

/** Tools named on the page at most; the rest are counted. */
const TOOLS_SHOWN = 30;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2430}
main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:10px;padding:2rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}code{background:#eef0f3;padding:0 .3rem;border-radius:4px;word-break:break-all}
ul{max-height:14rem;overflow:auto;padding-left:1.2rem}.muted{color:#5b6472;font-size:.9rem}
.actions{display:flex;gap:.8rem;margin-top:1.5rem}button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #9aa3b0;background:#fff;cursor:pointer}
button.allow{background:#1f6feb;border-color:#1f6feb;color:#fff}`;

export function consentHtml(page: ConsentPage): string {
  const shown = page.tools.slice(0, TOOLS_SHOWN).map((t) => `<li><code>${escapeHtml(t)}</code></li>`);
  const more = page.tools.length > TOOLS_SHOWN ? `<li>and ${page.tools.length - TOOLS_SHOWN} more</li>` : '';
  const scopes = page.scopes.length > 0 ? page.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ') : 'none';
  return document(
    `Allow ${page.clientName} to use ${page.apiName}?`,
    `<h1>Allow <strong>${escapeHtml(page.clientName)}</strong> to use ${escapeHtml(page.apiName)} as you?</h1>
<p class="muted">Client: ${escapeHtml(page.clientOrigin)}. After you answer, your browser returns to <code>${escapeHtml(page.redirectUri)}</code>.</p>
<p>It will be able to call these ${page.tools.length} tools with your account:</p>
<ul>${shown.join('')}${more}</ul>
<p>Scopes: ${scopes}</p>
<p class="muted">Next you sign in at <strong>${escapeHtml(page.signInHost)}</strong>. Only allow clients you started yourself.</p>
<form method="post" action="${escapeHtml(page.action)}">
<input type="hidden" name="request" value="${escapeHtml(page.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(page.csrf)}">
<div class="actions"><button class="allow" type="submit" name="decision" value="allow">Allow and sign in</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

/** A page that explains, for what must not be redirected anywhere (an unknown client or redirect URI). */
export function errorHtml(title: string, message: string): string {
  return document(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

/** The page as an answer; `headers` adds to it (cookies, Retry-After). */
export function htmlAnswer(status: number, html: string, headers: [string, string][] = []): Response {
  const answer = new Headers(headers);
  answer.set('content-type', 'text/html; charset=utf-8');
  // No script, no framing. No form-action: browsers apply it to every redirect after the
  // post, and an API's sign-in may hop to a login host of its own (Atlassian, company SSO);
  // the page's one form, to this server, is written here with nothing a client can inject.
  answer.set(
    'content-security-policy',
    ["default-src 'none'", "style-src 'unsafe-inline'", "frame-ancestors 'none'", "base-uri 'none'"].join('; '),
  );
  answer.set('x-frame-options', 'DENY');
  answer.set('x-content-type-options', 'nosniff');
  // Not no-referrer: with it browsers send `Origin: null` on the form's POST, which the
  // consent endpoint's Origin check must refuse. same-origin still sends nothing elsewhere.
  answer.set('referrer-policy', 'same-origin');
  answer.set('cache-control', 'no-store');
  return new Response(html, { status, headers: answer });
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
