import {RATE_LIMITS, RATE_LIMIT_WINDOW_SECONDS, type LimitClass} from '../contract/limits.js'
import type {Clock} from './clock.js'

export interface PacerOptions {
  /** Calls per window by limit class; the contract's limits by default. */
  limits?: Record<LimitClass, number>
  windowMs?: number
  /**
   * Added to every wait: the service counts calls when they arrive, which may be a little later
   * than when they leave here, so a call sent exactly on the window's edge could still count in it.
   */
  marginMs?: number
}

/**
 * Client-side pacing per App Connection and limit class over a sliding window, so that a long job
 * waits for its turn instead of meeting 429. Each call reserves its slot synchronously before
 * waiting, so concurrent callers queue in order without a lock.
 */
export class Pacer {
  private readonly limits: Record<LimitClass, number>
  private readonly windowMs: number
  private readonly marginMs: number
  /** Send times (past and reserved), ascending, per connection and class. */
  private readonly slots = new Map<string, number[]>()
  private readonly pausedUntil = new Map<string, number>()

  constructor(
    private readonly clock: Clock,
    options: PacerOptions = {},
  ) {
    this.limits = options.limits ?? {...RATE_LIMITS}
    this.windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_SECONDS * 1000
    this.marginMs = options.marginMs ?? 250
  }

  /** Milliseconds the next call of this class would have to wait, reserving its slot. */
  reserve(connectionKey: string, limitClass: LimitClass): number {
    const key = `${connectionKey}\u0000${limitClass}`
    const now = this.clock.now()
    const limit = this.limits[limitClass]
    const times = this.slots.get(key) ?? []
    // Keep only what still counts in a window that ends at the earliest possible send time.
    while (times.length > 0 && (times[0] as number) <= now - this.windowMs) times.shift()
    let at = Math.max(now, this.pausedUntil.get(key) ?? 0, times.at(-1) ?? 0)
    if (times.length >= limit) {
      const oldestCounting = times[times.length - limit] as number
      at = Math.max(at, oldestCounting + this.windowMs + this.marginMs)
    }
    times.push(at)
    this.slots.set(key, times)
    return at - now
  }

  /** Waits until a call of this class may leave. */
  async acquire(connectionKey: string, limitClass: LimitClass, signal?: AbortSignal): Promise<void> {
    const wait = this.reserve(connectionKey, limitClass)
    if (wait > 0) await this.clock.sleep(wait, signal)
  }

  /** A 429 arrived anyway (another process on the same connection): hold the class back. */
  pause(connectionKey: string, limitClass: LimitClass, ms: number): void {
    const key = `${connectionKey}\u0000${limitClass}`
    const until = this.clock.now() + ms
    this.pausedUntil.set(key, Math.max(this.pausedUntil.get(key) ?? 0, until))
  }
}

/** The limit class of a call: attachment downloads and every GET are reads, sends are POST .../messages. */
export function limitClassOf(method: string, path: string): LimitClass {
  if (method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD') return 'read'
  if (/\/bookings\/[^/]+\/messages\/?$/.test(path.split('?')[0] ?? '')) return 'send'
  return 'write'
}
