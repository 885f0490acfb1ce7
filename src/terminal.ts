// Text for the user's terminal. Spec names reach mcp-gen's summary, warnings and errors, and a
// terminal obeys control characters in them: ESC sequences (ECMA-48 CSI and OSC) can erase a
// warning line, set the window title, write the clipboard (OSC 52) or hide a link (OSC 8), a
// carriage return or line break can forge a line, and bidi overrides reorder what is shown.

import { escapeOf, withUnseenEscaped } from './contract/visible-text.js';

/** C0 but tab, DEL and C1. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** One line for the terminal: each control character, and each that hides or reorders text, as its escape (`\u001b`). */
export function terminalLine(text: string): string {
  return withUnseenEscaped(text.replace(CONTROL, escapeOf));
}
