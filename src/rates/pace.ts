/**
 * The write limit as this run spends it (10 per 60 s, dry runs included), so that the progress
 * line can say why it stands still and when it will be done. The client's pacer decides when a
 * call leaves; this keeps the same sliding window over the same calls to predict it.
 */
import {RATE_LIMIT_WINDOW_SECONDS, RATE_LIMITS} from '../contract/limits.js'

export class WriteWindow {
  private readonly sent: number[] = []
  /** Average time a write takes once it leaves, learned as the run goes. */
  private busyMs = 0
  /** Writes recorded so far. */
  measured = 0

  constructor(
    readonly limit: number = RATE_LIMITS.write,
    readonly windowMs: number = RATE_LIMIT_WINDOW_SECONDS * 1000,
  ) {}

  /** A write was answered at `at` (the client counts a call from its answer) and took `tookMs`. */
  record(at: number, tookMs: number): void {
    this.sent.push(at)
    this.busyMs = (this.busyMs * this.measured + tookMs) / (this.measured + 1)
    this.measured++
  }

  /** Milliseconds until `remaining` more writes are done, if they leave as early as the window allows. */
  timeLeft(now: number, remaining: number): number {
    const times = this.sent.slice(-this.limit)
    let t = now
    for (let i = 0; i < remaining; i++) {
      if (times.length >= this.limit) t = Math.max(t, times[times.length - this.limit]! + this.windowMs)
      times.push(t)
      t += this.busyMs
    }
    return t - now
  }
}
