// Text a person must read as it is: a confirmation question, a terminal or log line. Some
// characters change how the text around them is shown, or show nothing: bidi embeddings,
// overrides and isolates reorder the rest of the line (Trojan Source, CVE-2021-42574), line and
// paragraph separators start a line in many renderers, zero-width characters make two texts look
// alike. On a terminal, control characters do more: ESC sequences (ECMA-48 CSI and OSC) can
// erase a line, set the window title, write the clipboard (OSC 52) or hide a link (OSC 8), and a
// carriage return or line break can forge a line. Shown as their escapes, they are seen for what
// they are.

/**
 * Bidi marks, embeddings, overrides and isolates, line and paragraph separators, the zero-width
 * space, word joiner and invisible operators, and the BOM. Not the zero-width (non-)joiners,
 * which Persian, Indic scripts and emoji sequences need.
 */
const UNSEEN = /[\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** C0 but tab, DEL and C1. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** `\uXXXX`, as JSON writes a character it escapes. */
const escapeOf = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The text with each character that hides or reorders text as its escape (`\u202e`). */
export function withUnseenEscaped(text: string): string {
  return text.replace(UNSEEN, escapeOf);
}

/** One line for a terminal or a log: each control character, and each that hides or reorders text, as its escape (`\u001b`). */
export function terminalLine(text: string): string {
  return withUnseenEscaped(text.replace(CONTROL, escapeOf));
}

/**
 * Spec text for one line of a generated file (a README, .env.example's comments, a manifest): no
 * line breaks or control characters, runs of space as one, nothing that hides or reorders it;
 * cut with an ellipsis at `max` characters when given.
 */
export function oneLine(text: string, max = Infinity): string {
  const line = withUnseenEscaped(text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
