import type {Clock} from '../client/clock.js'
import type {Io} from '../run/context.js'
import {durationText} from '../text/words.js'

export interface Progress {
  /** Marks `n` more units done. */
  tick(n?: number): void
  /** Replaces the label, e.g. "waiting 42 s for the write limit". */
  status(text: string): void
  done(): void
}

/**
 * Carriage return and "erase the line": a line redrawn in place on a terminal. Not a style, so not
 * a styleText format; written only where stderr is a terminal.
 */
export const CLEAR_LINE = '\r\u001B[2K'

/**
 * A line redrawn in place must stay one row: a longer one wraps, the carriage return then goes back
 * only to the start of its last row, and every redraw leaves a row behind. One column is kept free
 * for the cursor (a line that fills the row wraps on some terminals).
 */
export function fitLine(io: Pick<Io, 'columns'>, line: string): string {
  const width = (io.columns ?? 80) - 1
  return line.length > width ? line.slice(0, width - 1) + '…' : line
}

const silent: Progress = {tick() {}, status() {}, done() {}}

/**
 * A one-line bar with the time left on stderr, drawn only when stderr is a terminal: pipes and
 * cron logs get nothing, so their output stays stable.
 */
export function createProgress(
  io: Io,
  /** `timeLeft` (ms) replaces the average pace where the caller knows better, e.g. a write limit ahead. */
  options: {total: number; label: string; clock?: Clock; timeLeft?: () => number | undefined},
): Progress {
  if (!io.stderrIsTTY || options.total <= 0) return silent
  const now = () => options.clock?.now() ?? Date.now()
  const started = now()
  let done = 0
  let note = ''
  const draw = () => {
    const width = 24
    const filled = Math.round((done / options.total) * width)
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled)
    const left = options.timeLeft ? leftText(options.timeLeft(), done, options.total) : etaText(started, now(), done, options.total)
    io.err(`${CLEAR_LINE}${fitLine(io, `${options.label} [${bar}] ${done}/${options.total}${left}${note ? `  ${note}` : ''}`)}`)
  }
  draw()
  return {
    tick(n = 1) {
      done = Math.min(options.total, done + n)
      draw()
    },
    status(text) {
      note = text
      draw()
    },
    done() {
      io.err(CLEAR_LINE)
    },
  }
}

/** ` ~1m20s left`, from the average pace so far; empty until there is a pace to go by. */
export function etaText(started: number, now: number, done: number, total: number): string {
  if (done === 0 || done >= total) return ''
  return leftText(((now - started) / done) * (total - done), done, total)
}

function leftText(ms: number | undefined, done: number, total: number): string {
  if (ms === undefined || done >= total) return ''
  return ` ~${durationText(ms)} left`
}
