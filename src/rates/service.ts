/**
 * The network side of rates: Properties for validation, previews, submissions and following
 * batches. Takes the client's resources as an interface so that tests can hand in fakes.
 */
import {FINAL_BATCH_STATUSES} from '../contract/limits.js'
import type {BatchReport, Property, RestrictionBatchAccepted, RestrictionBatchPreview, RestrictionBatchRequest} from '../contract/index.js'
import type {Clock} from '../client/clock.js'
import {WaitStoppedError} from './errors.js'
import {batchRequest, batchStats, type Plan} from './planner.js'
import {foldIntoRuns, mergePreviews, type PlannedBatchSummary, type RunsByProperty} from './render.js'
import type {PropertyInfo} from './store.js'

export interface RatesClient {
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

/** Nothing would change and nothing is refused: submitting the batch would do nothing worth a report. */
export function nothingToChange(changes: BatchChanges): boolean {
  return changes.changed === 0 && changes.refused === 0
}

/**
 * Dry runs of every batch (each one a write call), merged into one preview in listing order, with
 * what each batch would do.
 */
export async function previewPlan(
  client: Pick<RatesClient, 'restrictionBatches'>,
  plan: Plan,
  hooks: WriteHooks = {},
  /** When given, changes are folded into these runs and dropped from the preview. */
  runs?: RunsByProperty,
): Promise<{preview: RestrictionBatchPreview; batches: BatchChanges[]}> {
  const previews: RestrictionBatchPreview[] = []
  const batches: BatchChanges[] = []
  for (let b = 0; b < plan.batchCount; b++) {
    hooks.before?.(b)
    const preview = await client.restrictionBatches.preview(batchRequest(plan, b) as RestrictionBatchRequest)
    const counts = {changed: 0, refused: 0}
    for (const p of preview.properties) {
      counts.changed += p.changes.changed
      counts.refused += p.changes.refused
    }
    batches.push(counts)
    if (runs) foldIntoRuns(preview, runs)
    previews.push(preview)
    hooks.after?.(b + 1)
  }
  const preview = mergePreviews(
    previews,
    plan.store.properties.map((p) => p.id),
  )
  return {preview, batches}
}

export function isFinal(status: string): boolean {
  return FINAL_BATCH_STATUSES.includes(status)
}

/** A final status that leaves work undone: the command exits 5. */
export function isPartial(status: string): boolean {
  return status === 'partially_failed' || status === 'failed' || status === 'cancelled'
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

/** Reads every batch until each reaches a final status, backing off between rounds. */
export async function waitForBatches(client: Pick<RatesClient, 'restrictionBatches'>, ids: readonly string[], options: WaitOptions): Promise<BatchReport[]> {
  const reports = new Map<string, BatchReport>()
  let delay = options.initialDelayMs ?? 1000
  const maxDelay = options.maxDelayMs ?? 15_000
  const deadline = options.timeoutMs === undefined ? Infinity : options.clock.now() + options.timeoutMs
  const pending = () => ids.filter((id) => !isFinal(reports.get(id)?.status ?? ''))
  const stop = (reason: 'timeout' | 'interrupted') => new WaitStoppedError(reason, pending(), options.timeoutMs, options.profile)
  for (;;) {
    for (const id of ids) {
      const known = reports.get(id)
      if (known && isFinal(known.status)) continue
      if (options.signal?.aborted) throw stop('interrupted')
      const report = await client.restrictionBatches.get(id)
      reports.set(id, report)
      options.onReport?.(report)
    }
    if (ids.every((id) => isFinal(reports.get(id)!.status))) return ids.map((id) => reports.get(id)!)
    const left = deadline - options.clock.now()
    if (left <= 0) throw stop('timeout')
    options.onPause?.(Math.min(delay, left))
    try {
      await options.clock.sleep(Math.min(delay, left), options.signal)
    } catch (error) {
      if (options.signal?.aborted) throw stop('interrupted')
      throw error
    }
    delay = Math.min(maxDelay, Math.round(delay * 1.5))
  }
}
