/**
 * The shared path of `rates import` and `restrictions set`, in phases: the plan announced, dry runs
 * (the preview), what to do per batch, confirmation, submission, and following the batches to
 * their final status.
 *
 * Without --dry-run the batches are previewed first (unless --no-preview), so that the summary
 * shows what will change before anything is stored. The preview is what people see, never a reason
 * to leave a batch out: a read shows applied values only, and a value it shows equal may still be
 * overwritten by a batch not yet sent (of this machine or another), which only a later submission
 * supersedes; the service itself drops what is equal when the change leaves.
 * The preview comes from reads of the current values by default (GET /restrictions, on the read
 * limit of 60 per 60 s: see read-preview.ts), so that the 10 writes per 60 s go to submissions
 * alone; `--preview dry-run` asks the service's dry runs instead, each a write call, which doubles
 * the write calls of an import. A batch whose nights the reads did not all answer is dry-run.
 * With --yes nobody is asked: each batch is previewed and submitted in turn while the reads for the
 * next ones go on (streamPhase), and the diff comes once all are previewed.
 */
import type {BatchReport, RestrictionBatchPreview} from '../contract/index.js'
import {AttemptJournal} from '../attempts/journal.js'
import type {Clock} from '../client/clock.js'
import {batchList, waitCommand} from './errors.js'
import {readCallsOf} from './read-preview.js'
import {WriteWindow} from './pace.js'
import type {Plan} from './planner.js'
import {type RunsByProperty, unchangedSentText} from './diff.js'
import {
  type BatchChanges,
  notAllApplied,
  refusedLine,
  PlanPreview,
  previewPlan,
  type RatesClient,
  ReadAhead,
  readCurrent,
  summarizePlan,
  waitForBatches,
  type WriteHooks,
} from './service.js'
import {type BatchDecision, decideBatch, decideBatches, type PlannedBatchSummary, submitBatches} from './submit.js'
import {durationText, plural} from '../text/words.js'

export interface ApplyProgress {
  tick(n?: number): void
  /** A note after the bar, e.g. why it stands still. */
  status?(text: string): void
  done(): void
}

/** The previews of a run, once every batch is previewed, and what they found. */
export interface PreviewShown {
  preview: RestrictionBatchPreview
  /** The changes folded into runs of nights (the preview's own change lists are then empty); undefined: the preview holds every change. */
  runs?: RunsByProperty
  /** A dry run: the diff is the run's result. Otherwise it is shown on the way to the question, before anything is stored. */
  dryRun: boolean
  counts: {changed: number; unchanged: number; refused: number}
}

/**
 * What a face hands a run: hooks for what it shows and asks. The run hands over results as data
 * (previewed, planned, submitted, reported), which a face draws, and talks in plain words.
 */
export interface ApplyUi {
  /** What the run does and why, in words (stderr on a terminal; a library's log). */
  talk(text: string): void
  /** The diff of the previews; the face also says why values that look unchanged are sent (`unchangedSentText`). */
  previewed?(shown: PreviewShown): void
  /** The batches as planned, shown before submitting when no preview shows what they hold (--no-preview). */
  planned?(batches: readonly PlannedBatchSummary[]): void
  /** The batches this run submitted or recovered, with their ids: a result. */
  submitted?(batches: readonly PlannedBatchSummary[]): void
  /** The final report of each batch followed (--wait): a result. */
  reported?(reports: readonly BatchReport[]): void
  /** `timeLeft` (ms) is what the bar shows as time left. */
  progress(label: string, total: number, timeLeft?: () => number | undefined): ApplyProgress
  /** `cancelled`: the message when Ctrl-C or Esc answers instead (exit 130). */
  confirm(question: string, cancelled: string): Promise<boolean>
  /** A person is at a terminal (stderr is one): advice about keys is for them only. */
  terminal?: boolean
  /** The waiting line while following batches (--wait). */
  follow?(ids: readonly string[]): {report(report: BatchReport): void; pause(ms: number): void; done(): void}
  /**
   * Batch ids as a command printed for a person to copy names them: their unique prefixes on a
   * terminal (the ids are remembered and taken back), so that the command fits on one line.
   */
  commandIds?(ids: readonly string[]): string[]
}

/**
 * The UI of a run nobody watches (the library, an MCP tool): results not drawn (the caller has them
 * in the typed result), no bars, every question answered yes (whoever called already agreed), the
 * talk handed to `talk` as plain text, with why values that look unchanged are sent.
 */
export function quietUi(talk: (text: string) => void): ApplyUi {
  return {
    talk,
    previewed: (shown) => {
      if (!shown.dryRun) talk(unchangedSentText(shown.counts))
    },
    progress: () => ({tick: () => undefined, done: () => undefined}),
    confirm: async () => true,
  }
}

/**
 * Where the preview comes from: `reads` (GET /restrictions, the read limit), `dry-run` (the
 * service's dry runs, the write limit) or `none` (--no-preview: every batch sent, nothing shown).
 */
export type PreviewMode = 'reads' | 'dry-run' | 'none'

export interface ApplyOptions {
  dryRun: boolean
  preview: PreviewMode
  wait: boolean
  connectionKey: string
  /** --profile of the run, named in the commands it prints (undefined: the default profile). */
  profile?: string
  /**
   * --resubmit: every batch is a new attempt, even where an earlier run's attempt at the identical
   * batch has an unknown outcome (not recovered).
   */
  resubmit?: boolean
  /**
   * --yes: nobody is asked, so with the preview from reads each batch leaves as soon as its preview
   * is known while the reads for the next batches go on: reads and writes each on their own budget.
   */
  confirmed?: boolean
  clock: Clock
  /** --json: keep every change of the previews for the document; otherwise only runs are kept. */
  keepChanges?: boolean
  /** The attempts of this profile: keys written before their first POST, and the batches they stored. */
  journal?: AttemptJournal
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
  /** Calls the preview made: reads of the current values, and dry runs (write calls). */
  preview_calls?: {reads: number; dry_runs: number}
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

/** After a batch that left changes undone: the next run sends them again. */
export const RETRY_HINT =
  'Some changes were not applied (failed or cancelled: see above). Running the same command again submits them as new batches ' +
  '(values already applied are left unchanged).\n'

function when(at: string): string {
  return `${at.slice(0, 16).replace('T', ' ')} UTC`
}

/** What the run did with each batch, in words: submitted or recovered. */
export function submissionText(batches: readonly PlannedBatchSummary[]): string {
  const numbers = (outcome: PlannedBatchSummary['outcome']) => batches.filter((b) => b.outcome === outcome).map((b) => b.index + 1)
  const earliest = (outcome: PlannedBatchSummary['outcome']) => when(batches.filter((b) => b.outcome === outcome).map((b) => b.earlier_at!).sort()[0]!)
  const capital = (text: string) => text[0]!.toUpperCase() + text.slice(1)
  const lines: string[] = []
  const submitted = numbers('submitted')
  const recovered = numbers('recovered')
  if (submitted.length > 0) lines.push(`Submitted ${plural(submitted.length, 'batch', 'batches')}${submitted.length < batches.length ? ` (${batchList(submitted)})` : ''}.`)
  if (recovered.length > 0) {
    lines.push(
      `${capital(batchList(recovered))}: recovered the attempt of an earlier run (${earliest('recovered')}) whose answer was lost, under its Idempotency-Key: ` +
        'the service answered the batch it had stored, nothing was written twice.',
    )
  }
  return lines.join('\n') + '\n'
}

export async function applyPlan(client: RatesClient, plan: Plan, options: ApplyOptions, ui: ApplyUi): Promise<ApplyResult> {
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
    batches: summarizePlan(plan),
    exit_code: 0,
  }
  const window = new WriteWindow()
  announcePlan(plan, options, window, ui)

  let changes: BatchChanges[] | undefined
  let counts: {changed: number; unchanged: number; refused: number} | undefined
  const journal = options.journal ?? AttemptJournal.memory()
  const mode = previewMode(options)
  let submitted: PlannedBatchSummary[]
  if (!options.dryRun && mode === 'reads' && options.confirmed === true) {
    const streamed = await streamPhase(client, plan, {...options, journal}, ui, window)
    result.preview = streamed.preview
    result.preview_calls = streamed.calls
    changes = streamed.batches
    submitted = streamed.submitted
  } else {
    const asked = await previewAndAsk()
    if (!asked) return result
    submitted = asked
  }
  result.batches = submitted.map((b, i) => (changes?.[i] ? {...b, changed: changes[i]!.changed} : b))
  result.submitted = result.batches.some((b) => b.outcome === 'submitted' || b.outcome === 'recovered')
  if (result.batches.some((b) => b.id)) ui.submitted?.(result.batches)
  ui.talk(submissionText(result.batches))

  const ids = result.batches.flatMap((b) => (b.id ? [b.id] : []))
  if (ids.length === 0) return result
  if (!options.wait) {
    ui.talk(`Follow ${ids.length === 1 ? 'it' : 'them'} with: ${waitCommand(ui.commandIds?.(ids) ?? ids, options.profile)}\n`)
    return result
  }
  result.reports = await followPhase(client, ids, options, ui)
  await journal.seenReports(result.reports)
  ui.reported?.(result.reports)
  const undone = notAllApplied(result.reports)
  if (undone.partial || undone.refused > 0) result.exit_code = 5
  if (undone.refused > 0) ui.talk(refusedLine(undone.refused))
  if (undone.partial) ui.talk(RETRY_HINT)
  return result

  /** Preview every batch, show the diff, decide and ask: the batches as submitted, or undefined when nothing is to be. */
  async function previewAndAsk(): Promise<PlannedBatchSummary[] | undefined> {
    if (mode !== 'none') {
      const previewed = await previewPhase(client, plan, {...options, preview: mode}, ui, window)
      result.preview = previewed.preview
      result.preview_calls = previewed.calls
      changes = previewed.batches
      counts = previewed.counts
    } else {
      ui.planned?.(result.batches)
    }
    if (options.dryRun) {
      const found = counts ? ` ${changesText(counts)}.` : ''
      ui.talk(
        counts?.changed === 0
          ? `Dry run:${found} Nothing was written. Without --dry-run the same command submits every value all the same ` +
              '(a read shows applied values only: a batch not yet sent could still overwrite them).\n'
          : `Dry run:${found} Nothing was written. Run the same command without --dry-run to submit.\n`,
      )
      return undefined
    }

    const decisions = decideBatches(plan, {journal, connectionKey: options.connectionKey, resubmit: options.resubmit})
    if (decisions.length > 0 && !(await ui.confirm(confirmQuestion(plan, counts), notSubmitted(true, plan, options)))) {
      ui.talk(`${notSubmitted(false, plan, options)}.\n`)
      return undefined
    }
    return submitPhase(client, plan, decisions, {...options, journal}, ui, window)
  }
}

/** The preview a run makes: --dry-run always previews (from reads unless --preview dry-run). */
function previewMode(options: Pick<ApplyOptions, 'dryRun' | 'preview'>): PreviewMode {
  return options.dryRun && options.preview === 'none' ? 'reads' : options.preview
}

/**
 * The plan in one line, and how long the write limit makes it take when it needs more than one
 * window: the floor that no run of this plan can beat, the figure benches compare against.
 */
function announcePlan(plan: Plan, options: ApplyOptions, window: WriteWindow, ui: ApplyUi): void {
  const mode = previewMode(options)
  const dryRuns = mode === 'dry-run' ? plan.batchCount : 0
  const writes = (options.dryRun ? 0 : plan.batchCount) + dryRuns
  ui.talk(`${planLine(plan)}\n`)
  if (writes > window.limit) {
    const detail =
      mode === 'dry-run' && !options.dryRun
        ? ` (${plan.batchCount} dry runs, ${plan.batchCount} submissions)`
        : mode === 'reads'
          ? ` (the preview takes ${plural(readCallsOf(plan).length, 'read', 'reads')}, on the read limit)`
          : ''
    ui.talk(
      `That is ${writes} write calls${detail}; ` +
        `the write limit of ${window.limit} per ${window.windowMs / 1000} s makes it take at least ${durationText(window.timeLeft(0, writes))}.\n`,
    )
  }
}

/**
 * `Planned 2 batches for 120 Properties: 131 entries, 3,960 nightly values (no fewer batches possible).`
 * A nightly value is one field of one night, what the contract counts as a change of a batch;
 * "changes" is kept for the values that really change, as the dry runs tell.
 */
export function planLine(plan: Pick<Plan, 'batchCount' | 'lowerBound' | 'totals'>): string {
  const bound = plan.batchCount === plan.lowerBound ? 'no fewer batches possible' : `the limits allow ${plan.lowerBound}`
  return (
    `Planned ${plural(plan.batchCount, 'batch', 'batches')} for ${plural(plan.totals.properties, 'Property', 'Properties')}: ` +
    `${plural(plan.totals.entries, 'entry', 'entries')}, ${nightlyValues(plan.totals.changes)} (${bound}).`
  )
}

function nightlyValues(n: number): string {
  return plural(n, 'nightly value', 'nightly values')
}

/** `142 nightly values, 9 of them change, 3 refused`: what the dry runs found, in one phrase. */
export function changesText(counts: {changed: number; unchanged: number; refused: number}): string {
  const total = counts.changed + counts.unchanged + counts.refused
  const change = total === 1 ? (counts.changed === 1 ? 'it changes' : 'it does not change') : counts.changed === 0 ? 'none of them changes' : `${counts.changed} of them change`
  return `${nightlyValues(total)}, ${change}${counts.refused > 0 ? `, ${counts.refused} refused` : ''}`
}

/**
 * The preview of every batch (from reads, or dry runs) and its diff. A dry run's diff is its result
 * (stdout); before a real submission the same diff is talk on the way to the confirmation
 * (stderr), so stdout carries only what was submitted.
 */
async function previewPhase(client: RatesClient, plan: Plan, options: ApplyOptions & {preview: 'reads' | 'dry-run'}, ui: ApplyUi, window: WriteWindow) {
  let current: Awaited<ReturnType<typeof readCurrent>> | undefined
  const calls = options.preview === 'reads' ? readCallsOf(plan) : []
  if (calls.length > 0) {
    const bar = ui.progress('reading current values', calls.length)
    try {
      current = await readCurrent(client, plan, calls, () => bar.tick())
    } finally {
      bar.done()
    }
  }
  const dryRuns = Array.from({length: plan.batchCount}, (_, b) => b).filter((b) => !current?.covers(b))
  const bar = dryRuns.length > 0 ? pacedProgress(ui, 'dry runs', dryRuns.length, window, options.clock, options.pacing) : undefined
  const runs = options.keepChanges ? undefined : new Map()
  let previewed: Awaited<ReturnType<typeof previewPlan>>
  try {
    previewed = await previewPlan(client, plan, bar, runs, current)
  } finally {
    bar?.done()
  }
  const counts = showDiff(previewed, current !== undefined, options, ui, runs)
  return {...previewed, counts, calls: {reads: calls.length, dry_runs: previewed.dryRuns.length}}
}

/** The diff of the previews handed to the face, and their counts. */
function showDiff(
  previewed: Awaited<ReturnType<typeof previewPlan>>,
  fromReads: boolean,
  options: Pick<ApplyOptions, 'dryRun'>,
  ui: ApplyUi,
  runs: RunsByProperty | undefined,
): {changed: number; unchanged: number; refused: number} {
  if (fromReads && previewed.dryRuns.length > 0) {
    ui.talk(
      `The service's reads did not answer every night of ${batchList(previewed.dryRuns.map((b) => b + 1))}: ` +
        `previewed by ${plural(previewed.dryRuns.length, 'dry run', 'dry runs')} instead.\n`,
    )
  }
  const counts = {changed: 0, unchanged: 0, refused: 0}
  for (const p of previewed.preview.properties) for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] += p.changes[key]
  ui.previewed?.({preview: previewed.preview, runs, dryRun: options.dryRun, counts})
  return counts
}

/**
 * With --yes and the preview from reads: batch b is previewed, decided and submitted as soon as
 * the reads of its nights are in, while the reads of the next batches go on on the read budget
 * and a submission waits for its slot on the write budget. The diff is shown once every batch has
 * been previewed, before the outcome.
 */
async function streamPhase(
  client: RatesClient,
  plan: Plan,
  options: ApplyOptions & {journal: AttemptJournal},
  ui: ApplyUi,
  window: WriteWindow,
) {
  const calls = readCallsOf(plan)
  const ahead = new ReadAhead(client, plan, calls)
  const runs = options.keepChanges ? undefined : new Map()
  const previews = new PlanPreview(client, plan, {}, runs)
  const bar = pacedProgress(ui, 'submitting', plan.batchCount, window, options.clock, options.pacing)
  const stop = options.watchInterrupt?.()
  let submitted: PlannedBatchSummary[]
  try {
    submitted = await submitBatches(
      client,
      plan,
      async (b) => {
        await ahead.ready(b)
        await previews.next(b, ahead.current)
        return decideBatch(plan, b, {journal: options.journal, connectionKey: options.connectionKey, resubmit: options.resubmit})
      },
      {...bar, journal: options.journal, connectionKey: options.connectionKey, clock: options.clock, signal: stop?.signal},
    )
  } finally {
    stop?.dispose()
    bar.done()
  }
  const previewed = previews.merged()
  showDiff(previewed, true, options, ui, runs)
  return {...previewed, submitted, calls: {reads: calls.length, dry_runs: previewed.dryRuns.length}}
}

/**
 * What a refusal or Ctrl-C at the question leaves behind, truthfully: dry runs were write calls
 * the service answered, but they store nothing, so no value changed.
 */
function notSubmitted(cancelled: boolean, plan: Plan, options: ApplyOptions): string {
  const previews =
    options.preview === 'dry-run'
      ? ` (the ${plural(plan.batchCount, 'dry run', 'dry runs')} before the question only previewed the changes)`
      : options.preview === 'reads'
        ? ' (the preview before the question only read the current values)'
        : ''
  return `${cancelled ? 'Cancelled; nothing submitted' : 'Not submitted'}, no value changed${previews}`
}

/** The question before anything is stored: every batch of the plan is sent. */
function confirmQuestion(plan: Plan, counts?: {changed: number; unchanged: number; refused: number}): string {
  const subject = `Submit ${plural(plan.batchCount, 'batch', 'batches')}`
  return counts ? `${subject}: ${changesText(counts)}?` : `${subject} (${nightlyValues(plan.totals.changes)})?`
}

/** Submission in plan order; Ctrl-C stops it and says which batches were stored. */
async function submitPhase(
  client: RatesClient,
  plan: Plan,
  decisions: readonly BatchDecision[],
  options: ApplyOptions & {journal: AttemptJournal},
  ui: ApplyUi,
  window: WriteWindow,
): Promise<PlannedBatchSummary[]> {
  const bar = pacedProgress(ui, 'submitting', decisions.length, window, options.clock, options.pacing)
  const stop = options.watchInterrupt?.()
  try {
    return await submitBatches(client, plan, decisions, {
      ...bar,
      journal: options.journal,
      connectionKey: options.connectionKey,
      clock: options.clock,
      signal: stop?.signal,
    })
  } finally {
    stop?.dispose()
    bar.done()
  }
}

/** --wait: every batch read until final (Ctrl-C stops the following, not the batches). */
async function followPhase(client: RatesClient, ids: readonly string[], options: ApplyOptions, ui: ApplyUi): Promise<BatchReport[]> {
  // Ctrl-C is heard before it is offered: a SIGINT with no listener yet ends the process at once.
  const interrupt = options.watchInterrupt?.()
  // Ctrl-C is advice for a person at a terminal, not for a cron log.
  ui.talk(`Waiting for every batch to reach a final status${ui.terminal ? ' (Ctrl-C stops waiting; the batches keep running)' : ''}...\n`)
  const waiting = ui.follow?.(ids)
  try {
    return await waitForBatches(client, ids, {
      clock: options.clock,
      timeoutMs: options.waitTimeoutMs,
      signal: interrupt?.signal,
      profile: options.profile,
      onReport: (report) => waiting?.report(report),
      onPause: (ms) => waiting?.pause(ms),
    })
  } finally {
    interrupt?.dispose()
    waiting?.done()
  }
}
