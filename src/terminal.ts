// Text for the user's terminal. Spec names reach mcp-gen's summary, warnings and errors, and a
// terminal obeys control characters in them: ESC sequences (ECMA-48 CSI and OSC) can erase a
// warning line, set the window title, write the clipboard (OSC 52) or hide a link (OSC 8), a
// carriage return or line break can forge a line, and bidi overrides reorder what is shown.

/** C0 but tab, DEL, C1, the Unicode line and paragraph separators, and the bidi embeddings, overrides and isolates. */
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line for the terminal: each control character shown as its escape (`\n`, `\u001b`), as JSON writes it. */
export function terminalLine(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
