/**
 * Sandbox time. It starts at a given instant and runs `speed` times faster than real time, so
 * that expiries, rate-limit windows, pacing and retries of the contract take seconds in tests.
 * Every rule of the sandbox that depends on time reads this clock, never Date.now().
 */
export interface SandboxClock {
  /** Sandbox time in epoch milliseconds. */
  now(): number
  readonly speed: number
  /** Moves sandbox time forward (admin API and tests); real time keeps running on top. */
  advance(ms: number): void
  /** Converts a sandbox duration to the real milliseconds it takes. */
  toRealMs(sandboxMs: number): number
  /** Runs `callback` after `sandboxMs` of sandbox time (approximately; advance() does not fire it early). */
  setTimeout(callback: () => void, sandboxMs: number): NodeJS.Timeout
}

export function createSandboxClock(options: {speed?: number; start?: number; realNow?: () => number} = {}): SandboxClock {
  const speed = options.speed ?? 1
  if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`speed must be a positive number, got ${speed}`)
  const realNow = options.realNow ?? (() => Date.now())
  const realStart = realNow()
  let offset = options.start ?? realStart
  return {
    speed,
    now: () => Math.floor(offset + (realNow() - realStart) * speed),
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError('the sandbox clock only moves forward')
      offset += ms
    },
    toRealMs: (sandboxMs) => sandboxMs / speed,
    setTimeout(callback, sandboxMs) {
      const timer = setTimeout(callback, Math.max(0, sandboxMs / speed))
      timer.unref()
      return timer
    },
  }
}
