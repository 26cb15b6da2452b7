/** Retry timing, pure so that tests can drive it with a fixed random source. */

export interface BackoffOptions {
  baseMs?: number
  capMs?: number
}

/**
 * "Full jitter" exponential back-off: a uniform wait between 0 and min(cap, base * 2^attempt),
 * which spreads clients that failed together instead of having them return together.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 500
  const cap = options.capMs ?? 20_000
  const ceiling = Math.min(cap, base * 2 ** attempt)
  return Math.floor(random() * ceiling)
}

/** Seconds of a `Retry-After` header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed)
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, Math.ceil((date - nowMs) / 1000))
}
