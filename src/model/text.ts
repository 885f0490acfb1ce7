// Spec text as the tool table carries it: descriptions are cut to a length, titles and server
// descriptions to one line (clients show them in one-line lists).

/** `text` cut to at most `max` characters, ending with `…` where it was cut. */
export const truncate = (text: string, max: number): string => (text.length > max ? text.slice(0, max - 1).trimEnd() + '…' : text);

/** `text` with every run of white space, line breaks included, as one space. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
