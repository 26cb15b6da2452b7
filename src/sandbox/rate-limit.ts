/**
 * Per-connection rate limits of the contract: a sliding 60-second window per limit class, on the
 * sandbox clock. Calls refused with 429 are not counted, so that a client which waits `Retry-After`
 * always gets through.
 */
import {RATE_LIMIT_WINDOW_SECONDS, RATE_LIMITS, type LimitClass} from '../contract/limits.js'
import type {SandboxClock} from './clock.js'

export type RateDecision = {ok: true} | {ok: false; retryAfterSeconds: number}

export class RateLimiter {
  private readonly windows = new Map<string, number[]>()
  private readonly windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000

  constructor(
    private readonly clock: SandboxClock,
    readonly enabled: boolean,
  ) {}

  take(connectionId: string, limitClass: LimitClass): RateDecision {
    if (!this.enabled) return {ok: true}
    const key = `${connectionId}\u0000${limitClass}`
    let calls = this.windows.get(key)
    if (!calls) this.windows.set(key, (calls = []))
    const now = this.clock.now()
    let expired = 0
    while (expired < calls.length && (calls[expired] as number) <= now - this.windowMs) expired++
    if (expired > 0) calls.splice(0, expired)
    if (calls.length >= RATE_LIMITS[limitClass]) {
      const waitMs = (calls[0] as number) + this.windowMs - now
      // Retry-After is read by clients on their own (real) clock; a fast sandbox clock shortens it.
      return {ok: false, retryAfterSeconds: Math.max(1, Math.ceil(this.clock.toRealMs(waitMs) / 1000))}
    }
    calls.push(now)
    return {ok: true}
  }
}
