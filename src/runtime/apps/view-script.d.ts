// Written at build time by scripts/build-app-views.js (dist/src/runtime/apps/view-script.js):
// the views' bundled script and its SHA-256 (base64), which the pages' CSP allows.
export declare const VIEW_SCRIPT: string;
export declare const VIEW_SCRIPT_SHA256: string;
