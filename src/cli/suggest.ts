import {closest} from '../text/closest.js'
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
