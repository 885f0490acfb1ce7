// Whether a value's JSON is within a size, without building the text: the count stops once past
// the limit, so a table of megabytes costs no copy of itself to be found too large.

/** Characters JSON.stringify escapes (quotes, backslashes, controls) or may (lone surrogates). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

const stringLength = (text: string) => (NEEDS_ESCAPE.test(text) ? (JSON.stringify(text) as string).length : text.length + 2);

/** `JSON.stringify(value).length <= limit`. */
export function jsonLengthWithin(value: unknown, limit: number): boolean {
  let length = 0;
  const count = (node: unknown, inArray: boolean): boolean => {
    if (typeof node === 'string') length += stringLength(node);
    else if (typeof node === 'object' && node !== null && typeof (node as { toJSON?: unknown }).toJSON !== 'function') {
      length += 2; // the brackets
      let first = true;
      if (Array.isArray(node)) {
        for (const item of node) {
          if (!first) length++;
          first = false;
          if (!count(item, true)) return false;
        }
      } else {
        for (const key of Object.keys(node)) {
          const member = (node as Record<string, unknown>)[key];
          if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
          length += (first ? 0 : 1) + stringLength(key) + 1;
          first = false;
          if (!count(member, false)) return false;
        }
      }
    } else length += (JSON.stringify(node) ?? (inArray ? 'null' : '')).length;
    return length <= limit;
  };
  return count(value, false);
}
