// "Did you mean …?" for a mistyped name (a flag, a setting, a toolset, a tool), shared by the
// generator and the server so that both suggest alike. The nearest known name by edit distance,
// close enough to be a typo: at most a third of the longer name's length apart (at least 1).

/** The nearest of `known` to `given`, or undefined when none is close enough to be a typo. */
export function nearest(given: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = given.toLowerCase();
  for (const candidate of known) {
    const limit = Math.max(1, Math.floor(Math.max(given.length, candidate.length) / 3));
    const distance = editDistance(lower, candidate.toLowerCase(), limit);
    if (distance <= limit && distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** ` (did you mean X?)` for the nearest known name, quoted by `show`, or '' when none is near. */
export function didYouMean(given: string, known: Iterable<string>, show: (name: string) => string = (n) => n): string {
  const found = nearest(given, known);
  return found === undefined ? '' : ` (did you mean ${show(found)}?)`;
}

/** Damerau-free Levenshtein distance, giving up (returning limit + 1) once past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
}
