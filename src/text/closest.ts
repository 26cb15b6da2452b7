/**
 * The nearest of some names to what was typed (commands, flags, profiles), for "did you mean".
 * Like words.ts it imports nothing of pms, so that src/cli and the features can both use it.
 */

/** The candidates nearest to the typed words, each word within a few edits of its counterpart. */
export function closest(typed: readonly string[], candidates: readonly string[], segmentsOf: (candidate: string) => string[]): string[] {
  const scored = candidates
    .map((candidate) => {
      const segments = segmentsOf(candidate)
      let total = 0
      for (const [index, segment] of segments.entries()) {
        const d = distance(typed[index] ?? '', segment.toLowerCase())
        if (d > Math.max(2, Math.floor(segment.length / 4))) return undefined
        total += d
      }
      return {candidate, total}
    })
    .filter((entry) => entry !== undefined)
  const best = Math.min(...scored.map((entry) => entry.total))
  return scored
    .filter((entry) => entry.total === best)
    .map((entry) => entry.candidate)
    .sort((a, b) => a.localeCompare(b))
    .slice(0, 3)
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
