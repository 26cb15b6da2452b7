/**
 * The network side of rates: Properties for validation, previews, submissions and following
 * batches. Takes the client's resources as an interface so that tests can hand in fakes.
 */
import {FINAL_BATCH_STATUSES, RATE_LIMITS} from '../contract/limits.js'
import type {BatchReport, Property, RestrictionBatchAccepted, RestrictionBatchPreview, RestrictionBatchRequest} from '../contract/index.js'
import type {Clock} from '../client/clock.js'
import {WaitStoppedError} from './errors.js'
import {batchRequest, batchStats, type Plan} from './planner.js'
import {foldIntoRuns, mergePreviews, type RunsByProperty} from './diff.js'
import type {PlannedBatchSummary} from './submit.js'
import type {PropertyInfo} from './store.js'
import type {CalendarClient} from './calendar.js'
import {CurrentValues, previewFromReads, type ReadCall, readCallsOf} from './read-preview.js'

export interface RatesClient extends CalendarClient {
  properties: {list(opts?: {limit?: number}): AsyncIterable<Property>}
  restrictionBatches: {
    create(request: RestrictionBatchRequest, opts: {idempotencyKey: string}): Promise<RestrictionBatchAccepted>
    preview(request: RestrictionBatchRequest): Promise<RestrictionBatchPreview>
    get(id: string): Promise<BatchReport>
  }
}

/** Every Property of the Connection Scope in listing order (by id): scope, names and time zones. */
export async function loadProperties(client: Pick<RatesClient, 'properties'>): Promise<PropertyInfo[]> {
  const properties: PropertyInfo[] = []
  for await (const property of client.properties.list({limit: 100})) {
    properties.push({id: property.id, name: property.name, timezone: property.timezone})
  }
  return properties
}

/**
 * Names of Properties by id, for labels (a Map serves), and how a terminal shows an id: cut to a
 * unique prefix (`1c979dcd…`) that commands take back; whole where `idText` is left out (pipes,
 * files, --json). An unknown id is shown alone.
 */
export interface Names {
  get(id: string): string | undefined
  idText?(id: string): string
}

export function namesOf(properties: readonly PropertyInfo[]): Map<string, string> {
  return new Map(properties.map((p) => [p.id, p.name]))
}

export function summarizePlan(plan: Plan): PlannedBatchSummary[] {
  return Array.from({length: plan.batchCount}, (_, index) => ({index, ...batchStats(plan, index)}))
}

/** Called around every write of a plan: before batch `index` (0-based) leaves, and once it is answered. */
export interface WriteHooks {
  before?(index: number): void
  after?(done: number): void
  /** True while the current call is still held back by the write limit (it has not left yet). */
  held?(): boolean
}

/** What the preview of one batch found to do: values that change, fields the service refuses. */
export interface BatchChanges {
  changed: number
  refused: number
}

/** Reads the current values of every night the plan writes (see readCallsOf); `onRead` after each call. */
export async function readCurrent(
  client: CalendarClient,
  plan: Plan,
  calls: readonly ReadCall[] = readCallsOf(plan),
  onRead: (done: number) => void = () => {},
): Promise<CurrentValues> {
  const ahead = new ReadAhead(client, plan, calls, onRead)
  await ahead.finished()
  return ahead.current
}

/**
 * The reads of a plan's current values, one call after another in the order the batches need
 * them, as fast as the read budget lets them go: `ready(b)` resolves once every night of batch b
 * is read (or failed), so that batch b can be previewed and sent while later reads go on.
 */
export class ReadAhead {
  readonly current: CurrentValues
  private readonly done: Promise<void>[] = []
  /** Per Property index, the last call that reads it. */
  private readonly lastCall = new Map<number, number>()

  constructor(
    client: CalendarClient,
    private readonly plan: Plan,
    calls: readonly ReadCall[] = readCallsOf(plan),
    onRead: (done: number) => void = () => {},
  ) {
    this.current = new CurrentValues(plan)
    let previous: Promise<void> = Promise.resolve()
    calls.forEach((call, i) => {
      for (const id of call.propertyIds) this.lastCall.set(plan.store.indexById.get(id)!, i)
      previous = previous.then(async () => {
        this.current.add(await client.restrictions.get(call))
        onRead(i + 1)
      })
      // Awaited by ready(); a failure nobody waits for yet is not an unhandled rejection.
      previous.catch(() => undefined)
      this.done.push(previous)
    })
  }

  async finished(): Promise<void> {
    await this.done.at(-1)
  }

  async ready(batch: number): Promise<void> {
    const {plan} = this
    if (batch < 0) return
    const end = batch + 1 < plan.batchCount ? plan.batchStart[batch + 1]! : plan.entryFrom.length
    let last = -1
    for (let e = plan.batchStart[batch]!; e < end; e++) last = Math.max(last, this.lastCall.get(plan.entryProperty[e]!) ?? -1)
    if (last >= 0) await this.done[last]
  }
}

/**
 * The previews of a plan, batch by batch in order: from `current` (reads) where they answered
 * every night of a batch, otherwise a dry run (a write call, with `hooks` around it); merged into
 * one in listing order at the end.
 */
export class PlanPreview {
  private readonly previews: RestrictionBatchPreview[] = []
  /** What each batch previewed so far would do. */
  readonly batches: BatchChanges[] = []
  /** Batches previewed by a dry run. */
  readonly dryRuns: number[] = []

  constructor(
    private readonly client: Pick<RatesClient, 'restrictionBatches'>,
    private readonly plan: Plan,
    private readonly hooks: WriteHooks = {},
    /** When given, changes are folded into these runs and dropped from the preview. */
    private readonly runs?: RunsByProperty,
  ) {}

  /** Previews batch `b` (the next one): what it would do. */
  async next(b: number, current?: CurrentValues): Promise<BatchChanges> {
    let preview = current?.covers(b) ? previewFromReads(this.plan, b, current) : undefined
    if (!preview) {
      this.hooks.before?.(b)
      preview = await this.client.restrictionBatches.preview(batchRequest(this.plan, b) as RestrictionBatchRequest)
      this.dryRuns.push(b)
      this.hooks.after?.(this.dryRuns.length)
    }
    const counts = {changed: 0, refused: 0}
    for (const p of preview.properties) {
      counts.changed += p.changes.changed
      counts.refused += p.changes.refused
    }
    this.batches.push(counts)
    if (this.runs) foldIntoRuns(preview, this.runs)
    this.previews.push(preview)
    return counts
  }

  merged(): {preview: RestrictionBatchPreview; batches: BatchChanges[]; dryRuns: number[]} {
    const preview = mergePreviews(
      this.previews,
      this.plan.store.properties.map((p) => p.id),
    )
    return {preview, batches: this.batches, dryRuns: this.dryRuns}
  }
}

/** Every batch's preview (see PlanPreview), one after another. */
export async function previewPlan(
  client: Pick<RatesClient, 'restrictionBatches'>,
  plan: Plan,
  hooks: WriteHooks = {},
  runs?: RunsByProperty,
  current?: CurrentValues,
): Promise<{preview: RestrictionBatchPreview; batches: BatchChanges[]; dryRuns: number[]}> {
  const previews = new PlanPreview(client, plan, hooks, runs)
  for (let b = 0; b < plan.batchCount; b++) await previews.next(b, current)
  return previews.merged()
}

export function isFinal(status: string): boolean {
  return FINAL_BATCH_STATUSES.includes(status)
}

/** A final status that leaves work undone. */
export function isPartial(status: string): boolean {
  return status === 'partially_failed' || status === 'failed' || status === 'cancelled'
}

/** Changes of a batch the service refused (Manual Override, a field managed by another tool): its own count, else its Properties'. */
export function refusedCount(report: BatchReport): number {
  return report.changes?.refused ?? (report.properties ?? []).reduce((sum, p) => sum + p.changes.refused, 0)
}

/**
 * Reports that did not all apply, for exit 5: a final status that leaves work undone, or changes
 * refused (a `completed` batch may hold them). Returns the refused changes counted over all, for
 * the one line that says so.
 */
export function notAllApplied(reports: readonly BatchReport[]): {partial: boolean; refused: number} {
  return {partial: reports.some((report) => isPartial(report.status)), refused: reports.reduce((sum, report) => sum + refusedCount(report), 0)}
}

/** The line said when changes were refused: running again does not change them. */
export function refusedLine(refused: number): string {
  return `${refused} ${refused === 1 ? 'change was' : 'changes were'} refused (not written; the report above names each field and why): running again refuses ${refused === 1 ? 'it' : 'them'} again.\n`
}

export interface WaitOptions {
  clock: Clock
  /** First pause between reads; grows by half each round up to maxDelayMs. */
  initialDelayMs?: number
  maxDelayMs?: number
  onReport?: (report: BatchReport) => void
  /** Before each pause between rounds: how long until the next read. */
  onPause?: (ms: number) => void
  /** Give up after this long (--timeout): WaitStoppedError, the batches keep running. */
  timeoutMs?: number
  /** Ctrl-C: stop following at once; the batches keep running. */
  signal?: AbortSignal
  /** --profile of the run, named in the command printed to follow the batches later. */
  profile?: string
}

/**
 * Reads a minute that following batches may take at most: a round reads every unfinished batch, and
 * rounds are spaced so that they stay within the read limit however many batches there are (the
 * growing pause between rounds then leaves room for other reads).
 */
const FOLLOW_READS_PER_MINUTE = RATE_LIMITS.read

/**
 * Reads every batch until each reaches a final status, backing off between rounds. A round reads
 * all unfinished batches at once (the client's pacer keeps them within the read limit); rounds are
 * at least as far apart as FOLLOW_READS_PER_MINUTE allows for that many reads.
 */
export async function waitForBatches(client: Pick<RatesClient, 'restrictionBatches'>, ids: readonly string[], options: WaitOptions): Promise<BatchReport[]> {
  const reports = new Map<string, BatchReport>()
  let delay = options.initialDelayMs ?? 1000
  const maxDelay = options.maxDelayMs ?? 15_000
  const deadline = options.timeoutMs === undefined ? Infinity : options.clock.now() + options.timeoutMs
  const pending = () => ids.filter((id) => !isFinal(reports.get(id)?.status ?? ''))
  const stop = (reason: 'timeout' | 'interrupted') => new WaitStoppedError(reason, pending(), options.timeoutMs, options.profile)
  for (;;) {
    if (options.signal?.aborted) throw stop('interrupted')
    const round = pending()
    const read = Promise.all(
      round.map(async (id) => {
        const report = await client.restrictionBatches.get(id)
        reports.set(id, report)
        options.onReport?.(report)
      }),
    )
    await untilAborted(read, options.signal, () => stop('interrupted'))
    if (pending().length === 0) return ids.map((id) => reports.get(id)!)
    const left = deadline - options.clock.now()
    if (left <= 0) throw stop('timeout')
    const spaced = Math.max(delay, Math.ceil((pending().length * 60_000) / FOLLOW_READS_PER_MINUTE))
    options.onPause?.(Math.min(spaced, left))
    try {
      await options.clock.sleep(Math.min(spaced, left), options.signal)
    } catch (error) {
      if (options.signal?.aborted) throw stop('interrupted')
      throw error
    }
    delay = Math.min(maxDelay, Math.round(delay * 1.5))
  }
}

/** `work`, or `reason()` thrown as soon as `signal` aborts (the work is left to finish unheard). */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, reason: () => Error): Promise<T> {
  if (!signal) return work
  work.catch(() => undefined)
  let onAbort = () => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(reason())
    signal.addEventListener('abort', onAbort, {once: true})
  })
  try {
    return await Promise.race([work, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
