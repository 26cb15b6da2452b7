/**
 * The command or topic closest to the words typed, as a colon-separated id (`rates:import`,
 * `properties`); several only when they are equally close. Every level counts: a typo in the
 * topic (`rate import`), in the command (`rates imprt`) or a topic alone (`propertes`). Words
 * after the command (its arguments) are ignored: the longest run of leading words that comes close
 * to a topic or command wins.
 */
export function closestCommands(words: readonly string[], ids: readonly string[]): string[] {
  const paths = new Set<string>()
  for (const id of ids) {
    const segments = id.split(':')
    for (let length = 1; length <= segments.length; length++) paths.add(segments.slice(0, length).join(':'))
  }
  const typed = words.map((word) => word.toLowerCase())
  const depth = Math.max(0, ...[...paths].map((path) => path.split(':').length))
  for (let length = Math.min(typed.length, depth); length >= 1; length--) {
    const found = closest(
      typed.slice(0, length),
      [...paths].filter((path) => path.split(':').length === length),
      (path) => path.split(':'),
    )
    if (found.length > 0) return found
  }
  return []
}

/** What a command declares about one flag, as far as suggesting it needs. */
export interface FlagShape {
  /** oclif's `boolean` or `option`. */
  type: string
  /** A boolean flag that also takes the `--no-` form. */
  allowNo?: boolean
}

/**
 * The flag closest to one typed (`--form`, `--noBrowser`, `--no_browser=x`), without its dashes.
 * Of a `--x` / `--no-x` pair only the one of the polarity typed is ever suggested: `--noBrowser`
 * meant `--no-browser`, never its opposite.
 */
export function closestFlag(typed: string, flags: Readonly<Record<string, FlagShape>>): string | undefined {
  const name = typed
    .replace(/^-+/, '')
    .split('=')[0]!
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replaceAll('_', '-')
    .toLowerCase()
  const negated = name.startsWith('no')
  const candidates = Object.entries(flags).flatMap(([flag, shape]) => {
    if (!shape.allowNo) return [flag]
    return negated ? [`no-${flag}`] : [flag]
  })
  return closest([name], candidates, (candidate) => [candidate])[0]
}

/** The candidates nearest to the typed words, each word within a few edits of its counterpart. */
function closest(typed: readonly string[], candidates: readonly string[], segmentsOf: (candidate: string) => string[]): string[] {
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
