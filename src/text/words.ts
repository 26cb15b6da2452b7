/**
 * How counts and durations are worded in what pms says, one way everywhere. Like src/fs, it imports
 * nothing of pms, so that src/cli, the features and the client can all use it.
 */

/** `1 batch`, `3 batches`, `0 Properties`: the count with the noun in the form the count takes. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/** `42s`, `1m05s`, `12m00s`: whole seconds rounded up, so a wait never reads shorter than it is. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000))
  const m = Math.floor(seconds / 60)
  const s = seconds % 60
  return m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`
}
