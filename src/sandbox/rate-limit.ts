/**
 * Per-connection rate limits of the contract: a sliding 60-second window per limit class, on the
 * sandbox clock. Every call with a valid token counts, those refused with 429 too (the contract's
 * words, and the stricter reading: a client that keeps calling instead of waiting stays refused).
 * `Retry-After` is the wait after which one call gets through if nothing else is sent meanwhile.
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
    const limit = RATE_LIMITS[limitClass]
    const allowed = calls.length < limit
    calls.push(now)
    if (allowed) return {ok: true}
    // The next call passes once no more than limit - 1 counted calls remain in its window.
    const waitMs = (calls[calls.length - limit] as number) + this.windowMs - now
    // Retry-After is read by clients on their own (real) clock; a fast sandbox clock shortens it.
    return {ok: false, retryAfterSeconds: Math.max(1, Math.ceil(this.clock.toRealMs(waitMs) / 1000))}
  }
}
