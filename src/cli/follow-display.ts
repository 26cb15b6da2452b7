/** The waiting line of the batches followed by `batches wait` and `rates import --wait`. */
import type {Clock} from '../client/clock.js'
import type {BatchReport} from '../contract/index.js'
import type {Io} from '../run/context.js'
import {CLEAR_LINE, fitLine} from './progress.js'
import {type FollowedBatch, followLine} from './views/rates-text.js'

/** The waiting line of `batches wait` and `rates import --wait`, fed by the reads of waitForBatches. */
export interface FollowDisplay {
  report(report: BatchReport): void
  /** A pause of `ms` before the next read. */
  pause(ms: number): void
  done(): void
}

/**
 * One line on stderr, redrawn every second on a terminal (nothing elsewhere): per batch status,
 * changes pending and settled, time waited, the next read, and a stall said in words.
 */
export function createFollowDisplay(io: Io, ids: readonly string[], clock: Clock): FollowDisplay {
  if (!io.stderrIsTTY) return {report() {}, pause() {}, done() {}}
  const started = clock.now()
  const batches = new Map<string, FollowedBatch>(ids.map((id) => [id, {id}]))
  let nextReadAt: number | undefined
  const draw = () => {
    io.err(`${CLEAR_LINE}${fitLine(io, followLine([...batches.values()], clock.now(), started, nextReadAt))}`)
  }
  const timer = setInterval(draw, 1000)
  timer.unref?.()
  draw()
  return {
    report(report) {
      const known = batches.get(report.id) ?? {id: report.id}
      // A report without counts (the contract shows none) still moves the line by its status.
      const pending = report.changes?.pending
      const moved = known.pending !== pending || known.status !== report.status
      batches.set(report.id, {id: report.id, status: report.status, pending, submitted: report.changes?.submitted, stillSince: moved ? clock.now() : known.stillSince})
      draw()
    },
    pause(ms) {
      nextReadAt = clock.now() + ms
      draw()
    },
    done() {
      clearInterval(timer)
      io.err(CLEAR_LINE)
    },
  }
}
