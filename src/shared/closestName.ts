/**
 * The name a typo most likely meant, for "did you mean …?": at most two edits away (a swap of
 * two neighbours counts as one, so "dmeo" is one from "demo"), or sharing a prefix of at least
 * three letters when the typo is that prefix ("dem" for "demo-eu"). Case is ignored; undefined
 * when nothing is close, or when two names are equally close (a guess then misleads).
 */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const scored = candidates
    .map((candidate) => ({ candidate, distance: distanceOf(typed, candidate.toLowerCase()) }))
    .filter(({ distance }) => distance <= MAX_EDITS)
    .sort((a, b) => a.distance - b.distance);
  const [best, second] = scored;
  if (!best || (second && second.distance === best.distance && second.candidate !== best.candidate)) return undefined;
  return best.candidate;
}

const MAX_EDITS = 2;
const PREFIX_LETTERS = 3;

function distanceOf(typed: string, candidate: string): number {
  if (typed === candidate) return 0;
  const edits = editDistance(typed, candidate);
  const isPrefix = typed.length >= PREFIX_LETTERS && candidate.startsWith(typed);
  return isPrefix ? Math.min(edits, MAX_EDITS) : edits;
}

/** Damerau-Levenshtein in its optimal-string-alignment form: insert, delete, replace, swap neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
