/**
 * The shared path of `rates import` and `restrictions set`: dry runs, the summary, confirmation,
 * submission with Idempotency-Keys, and following the batches to their final status.
 *
 * Without --dry-run the batches are previewed first (unless --no-preview), so that the summary
 * shows what will change before anything is stored. Each dry run is a write call under the
 * 10 per 60 s limit, so this doubles the write calls of an import: --no-preview halves the time
 * of a large unattended import at the cost of showing only the planned counts.
 */
import type {BatchReport, RestrictionBatchPreview} from '../contract/index.js'
import type {Clock} from '../client/clock.js'
import type {SubmissionJournal} from './journal.js'
import {WriteWindow} from './pace.js'
import type {Plan} from './planner.js'
import {type Names, type Paint, type PlannedBatchSummary, renderPlanSummary, renderPreview, renderReport} from './render.js'
import {isFinal, isPartial, previewPlan, type RatesClient, submitPlan, summarizePlan, waitForBatches, type WriteHooks} from './service.js'
import {durationText, plural} from '../text/words.js'

export interface ApplyProgress {
  tick(n?: number): void
  /** A note after the bar, e.g. why it stands still. */
  status?(text: string): void
  done(): void
}

export interface ApplyUi {
  /** Results (stdout); not called with --json. */
  out(text: string): void
  /** Talk (stderr). */
  talk(text: string): void
  /** `timeLeft` (ms) is what the bar shows as time left. */
  progress(label: string, total: number, timeLeft?: () => number | undefined): ApplyProgress
  confirm(question: string): Promise<boolean>
  paint: Paint
}

export interface ApplyOptions {
  dryRun: boolean
  preview: boolean
  wait: boolean
  connectionKey: string
  /**
   * --resubmit: new Idempotency-Keys for this run, so that a file whose batches failed or were
   * cancelled is sent again as new batches instead of replaying the old ones.
   */
  resubmit?: boolean
  clock: Clock
  /** --json: keep every change of the previews for the document; otherwise only runs are kept. */
  keepChanges?: boolean
  /** Remembers submissions, so that a rerun can say which batches it only replayed. */
  journal?: SubmissionJournal
  /** --timeout of --wait, in milliseconds. */
  waitTimeoutMs?: number
  /** Pacing waits of the client for the write limit, to show them on the progress line. */
  pacing?: PacingSignal
  /**
   * Called when submitting starts and when following starts: Ctrl-C then aborts the signal. While
   * submitting, the run stops and says which batches were stored; while following, the batches keep running.
   */
  watchInterrupt?: () => {signal: AbortSignal; dispose(): void}
}

export interface ApplyResult {
  dry_run: boolean
  plan: {batches: number; lower_bound: number; properties: number; entries: number; changes: number}
  preview?: RestrictionBatchPreview
  submitted: boolean
  batches: PlannedBatchSummary[]
  reports?: BatchReport[]
  /** 5 when a batch ended partially_failed, failed or cancelled. */
  exit_code: 0 | 5
}

/**
 * Where the client's pacer tells of a wait for the write limit: the command wires the client's
 * onPacingWait to `listener`, which the progress of the current phase sets.
 */
export interface PacingSignal {
  listener?: (ms: number) => void
}

/**
 * A progress bar over the writes of one phase that knows the write limit: while the client's pacer
 * holds a call back (this run's writes, or another pms process's on the same connection), the bar
 * says so and counts down instead of standing still, and the time left comes from the window
 * rather than from an average that a one-minute pause makes meaningless.
 */
function pacedProgress(ui: ApplyUi, label: string, total: number, window: WriteWindow, clock: Clock, pacing?: PacingSignal): WriteHooks & {done(): void} {
  let done = 0
  let leaveAt = 0
  let countdown: ReturnType<typeof setInterval> | undefined
  const timeLeft = () => {
    const now = clock.now()
    const ahead = Math.max(0, leaveAt - now)
    if (!window.measured && ahead === 0) return undefined
    return ahead + window.timeLeft(now + ahead, total - done)
  }
  const bar = ui.progress(label, total, timeLeft)
  const stopCountdown = () => {
    if (countdown) clearInterval(countdown)
    countdown = undefined
  }
  if (pacing) {
    pacing.listener = (ms) => {
      stopCountdown()
      leaveAt = clock.now() + ms
      if (ms < 1000 || !bar.status) return
      const show = () => bar.status!(`next write in ${durationText(leaveAt - clock.now())} (write limit ${window.limit} per ${window.windowMs / 1000} s)`)
      show()
      countdown = setInterval(show, 1000)
      countdown.unref?.()
    }
  }
  return {
    before() {
      leaveAt = clock.now()
    },
    held: () => leaveAt > clock.now() + 250,
    after(n) {
      stopCountdown()
      const now = clock.now()
      window.record(now, Math.max(0, now - leaveAt))
      done = n
      bar.status?.('')
      bar.tick()
    },
    done() {
      stopCountdown()
      if (pacing) pacing.listener = undefined
      bar.done()
    },
  }
}

/** After a batch that left changes undone: a plain rerun would only replay it. */
export const RETRY_HINT =
  'Some changes were not applied (failed or cancelled: see above). Running the same command again within 24 hours only replays these batches; ' +
  'add --resubmit to send it again as new batches (values already applied come back unchanged).\n'

function when(at: string): string {
  return `${at.slice(0, 16).replace('T', ' ')} UTC`
}

/** What the submission did, in words: new batches, or batches the service only replayed. */
export function submissionText(batches: readonly PlannedBatchSummary[]): string {
  const replayed = batches.filter((b) => b.replayed)
  const fresh = batches.length - replayed.length
  const lines: string[] = []
  if (replayed.length > 0) {
    const first = replayed.map((b) => b.first_submitted_at!).sort()[0]!
    const all = replayed.length === batches.length
    lines.push(
      all
        ? `${batches.length === 1 ? 'This batch was' : `All ${batches.length} batches were`} already submitted by an earlier run (${when(first)}): the service returned the same ${batches.length === 1 ? 'id' : 'ids'} and created nothing new.`
        : `${replayed.length} of ${batches.length} batches were already submitted by an earlier run (${when(first)}, same ids, nothing new created); ${fresh} ${fresh === 1 ? 'was' : 'were'} submitted now.`,
    )
  } else {
    lines.push(`Submitted ${plural(batches.length, 'batch', 'batches')}.`)
  }
  return lines.join('\n') + '\n'
}

export async function applyPlan(client: RatesClient, plan: Plan, names: Names, options: ApplyOptions, ui: ApplyUi): Promise<ApplyResult> {
  const planned = summarizePlan(plan)
  const result: ApplyResult = {
    dry_run: options.dryRun,
    plan: {
      batches: plan.batchCount,
      lower_bound: plan.lowerBound,
      properties: plan.totals.properties,
      entries: plan.totals.entries,
      changes: plan.totals.changes,
    },
    submitted: false,
    batches: planned,
    exit_code: 0,
  }
  const batchWord = plural(plan.batchCount, 'batch', 'batches')
  const writes = (options.dryRun ? 0 : plan.batchCount) + (options.dryRun || options.preview ? plan.batchCount : 0)
  const window = new WriteWindow()
  ui.talk(
    `Planned ${batchWord} (no fewer possible: ${plan.lowerBound}) for ${plural(plan.totals.properties, 'Property', 'Properties')}, ` +
      `${plural(plan.totals.entries, 'entry', 'entries')}, ${plan.totals.changes} night x field values.\n`,
  )
  if (writes > window.limit) {
    ui.talk(
      `That is ${writes} write calls${options.dryRun || !options.preview ? '' : ` (${plan.batchCount} dry runs, ${plan.batchCount} submissions)`}; ` +
        `the write limit of ${window.limit} per ${window.windowMs / 1000} s makes it take at least ${durationText(window.timeLeft(0, writes))}.\n`,
    )
  }

  // A dry run's diff is its result (stdout); before a real submission the same diff is talk on the
  // way to the confirmation (stderr), so stdout carries only what was submitted.
  const beforeSubmit = options.dryRun ? ui.out : ui.talk
  let question = `Submit ${batchWord} (${plan.totals.changes} night x field values)?`
  let changed: number | undefined
  if (options.dryRun || options.preview) {
    const bar = pacedProgress(ui, 'dry runs', plan.batchCount, window, options.clock, options.pacing)
    const runs = options.keepChanges ? undefined : new Map()
    try {
      result.preview = await previewPlan(client, plan, bar, runs)
    } finally {
      bar.done()
    }
    beforeSubmit(renderPreview(result.preview, names, ui.paint, runs))
    const counts = {changed: 0, unchanged: 0, refused: 0}
    for (const p of result.preview.properties) for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] += p.changes[key]
    question = `Submit ${batchWord}: ${counts.changed} night x field values change, ${counts.unchanged} unchanged, ${counts.refused} refused?`
    changed = counts.changed
  } else {
    beforeSubmit(renderPlanSummary(planned, plan.lowerBound))
  }
  if (options.dryRun) {
    ui.talk(
      changed === 0
        ? 'Dry run: nothing was written, and submitting this file would change nothing.\n'
        : 'Dry run: nothing was written. Run the same command without --dry-run to submit.\n',
    )
    return result
  }

  if (!(await ui.confirm(question))) {
    ui.talk('Nothing was sent.\n')
    return result
  }
  const bar = pacedProgress(ui, 'submitting', plan.batchCount, window, options.clock, options.pacing)
  const stop = options.watchInterrupt?.()
  try {
    const key = options.resubmit ? `${options.connectionKey}#resubmit-${options.clock.now()}` : options.connectionKey
    result.batches = await submitPlan(client, plan, key, {...bar, journal: options.journal, clock: options.clock, signal: stop?.signal})
  } finally {
    stop?.dispose()
    bar.done()
  }
  result.submitted = true
  ui.out(renderPlanSummary(result.batches, plan.lowerBound))
  ui.talk(submissionText(result.batches))
  const ids = result.batches.map((b) => b.id!)

  if (options.wait) {
    ui.talk('Waiting for every batch to reach a final status (Ctrl-C stops waiting; the batches keep running)...\n')
    const waiting = ui.progress('batches final', result.batches.length)
    const final = new Set<string>()
    const interrupt = options.watchInterrupt?.()
    try {
      result.reports = await waitForBatches(client, ids, {
        clock: options.clock,
        timeoutMs: options.waitTimeoutMs,
        signal: interrupt?.signal,
        onReport: (report) => {
          if (isFinal(report.status) && !final.has(report.id)) {
            final.add(report.id)
            waiting.tick()
          }
        },
      })
    } finally {
      interrupt?.dispose()
      waiting.done()
    }
    for (const report of result.reports) ui.out(`\n${renderReport(report, names, ui.paint)}`)
    if (result.reports.some((report) => isPartial(report.status))) {
      result.exit_code = 5
      ui.talk(RETRY_HINT)
    }
  } else {
    ui.talk(`Follow ${ids.length === 1 ? 'it' : 'them'} with: pms batches wait ${ids.join(' ')}\n`)
  }
  return result
}
