// The views' HTML pages: one page per kind of view (table, card, image; each shows an error
// panel for a failed call), the same inline script in each (view-script.js, built by
// scripts/build-app-views.js from views/view.ts), and a Content-Security-Policy that lets that
// script alone run and reaches no origin: connect-src 'none', images only as data: URLs.
// Size budget: 768 KiB a page (test/e2e/apps.test.ts holds it); ext-apps' App with its
// dependencies (zod) is about 640 KB of it, 130 KB gzipped.

import { VIEW_SCRIPT, VIEW_SCRIPT_SHA256 } from './view-script.js';

export const VIEW_KINDS = ['table', 'card', 'image'] as const;
export type ViewKind = (typeof VIEW_KINDS)[number];

/** MCP Apps' resource mime type (SEP-1865). */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

const CSP = [
  "default-src 'none'",
  `script-src 'sha256-${VIEW_SCRIPT_SHA256}'`,
  "style-src 'unsafe-inline'",
  'img-src data:',
  "connect-src 'none'",
  "frame-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

// The host's variables (ext-apps' McpUiStyleVariableKey) first, plain light/dark defaults after.
const STYLE = `
:root{color-scheme:light dark;font-family:var(--font-sans,system-ui,sans-serif);font-size:var(--font-text-sm-size,14px)}
body{margin:0;padding:12px;background:var(--color-background-primary,Canvas);color:var(--color-text-primary,CanvasText)}
section.table{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--color-border-primary,#8884);padding:4px 8px;text-align:left;vertical-align:top}
th{cursor:pointer;user-select:none;background:var(--color-background-secondary,#8881)}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
a{color:var(--color-text-info,LinkText)}
.status{color:var(--color-text-secondary,GrayText)}
button{font:inherit;padding:4px 12px;border-radius:var(--border-radius-md,6px);border:1px solid var(--color-border-primary,#888);background:var(--color-background-secondary,ButtonFace);color:inherit;cursor:pointer}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}
dt{font-weight:600}dd{margin:0}dd.nested{grid-column:1/-1}
details{border-left:2px solid var(--color-border-primary,#8884);padding-left:8px}summary{cursor:pointer;font-weight:600}
.error{border:1px solid var(--color-border-danger,#c33);background:var(--color-background-danger,#c331);border-radius:var(--border-radius-md,6px);padding:8px 12px}
pre{white-space:pre-wrap;word-break:break-word;margin:0}
img{max-width:100%}
`;

/** The page of a kind of view. */
export function viewPage(kind: ViewKind): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${kind}</title><style>${STYLE}</style></head>` +
    `<body data-view="${kind}"><main id="root"></main><script>${VIEW_SCRIPT}</script></body></html>`
  );
}
