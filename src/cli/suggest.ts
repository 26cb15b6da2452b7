/** Command ids within a small edit distance of what was typed, closest first (at most three). */
export function closestCommands(typed: string, ids: readonly string[]): string[] {
  const wanted = typed.toLowerCase()
  const scored = ids
    .map((id) => ({id, distance: distance(wanted, id.toLowerCase())}))
    .filter(({id, distance: d}) => d <= Math.max(2, Math.floor(id.length / 4)))
    .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id))
  return scored.slice(0, 3).map(({id}) => id)
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
