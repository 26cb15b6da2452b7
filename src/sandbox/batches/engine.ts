import {cellDay, cellField, cellKey, tagCell} from '../../contract/cells.js'
import {UNWRITABLE_REASONS} from '../../contract/error-codes.js'
import type {BatchStatus} from '../../contract/error-codes.js'
import {
  BATCH_REPORT_RETENTION_DAYS,
  CHANNEL_OUTAGE_MAX_ATTEMPTS,
  CHANNEL_OUTAGE_PAUSE_SECONDS,
  CHANNEL_PACE_PER_MINUTE,
} from '../../contract/limits.js'
import type {Calendar} from '../calendar/calendar.js'
import {AVAILABILITY} from '../calendar/calendar.js'
import type {BatchPlan} from './plan.js'
import {sameValue} from './values.js'

/**
 * How the sandbox sends Restriction changes to the Sales Channels.
 *
 * Each Property has two update streams: `restrictions` (rate, min_stay, closed_to_arrival,
 * closed_to_departure) and `availability`. One *update* is one channel call of one stream carrying
 * every change of that stream waiting for the Property at that moment ("all changes waiting for a
 * Property leave together"). Each stream makes at most 10 updates in any 60 seconds of sandbox
 * time, one at a time: an update is confirmed SEND_LATENCY_MS later and the next one leaves after
 * that, so changes reach the channels in submission order.
 *
 * At send time each waiting change is refused when its field is unwritable then (a Manual Override
 * set after submission refuses with `manual_override`), counted `unchanged` and not sent when it
 * equals the current value, and otherwise sent; it is `applied` when the update is confirmed.
 *
 * When the Sales Channels are down an attempt fails and the whole Property pauses: retries follow
 * after 60, 120, 240 and 480 seconds (the last attempt about 15 minutes after the first); when the
 * 5th attempt fails, every change still waiting for the Property fails with
 * `sales_channel_unavailable`.
 */

export const SEND_LATENCY_MS = 2_000
const WINDOW_MS = 60_000
/** Delay after the n-th failed attempt (n = 1..4): the first pause is the contract's 60 s, then doubling. */
export const OUTAGE_RETRY_DELAYS_MS = Array.from(
  {length: CHANNEL_OUTAGE_MAX_ATTEMPTS - 1},
  (_, index) => CHANNEL_OUTAGE_PAUSE_SECONDS * 1000 * 2 ** index,
)
const RETENTION_MS = BATCH_REPORT_RETENTION_DAYS * 86_400_000
export const FAILURE_CODE = 'sales_channel_unavailable'

export type Counts = {
  submitted: number
  pending: number
  applied: number
  unchanged: number
  superseded: number
  refused: number
  failed: number
  cancelled: number
}
const zeroCounts = (): Counts => ({submitted: 0, pending: 0, applied: 0, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0})

export interface PropertyOutcome {
  propertyId: string
  /** A change of this Property was picked up for sending (or settled). */
  started: boolean
  counts: Counts
  /** Cell keys (src/contract/cells.ts) tagged with the index of the reason in UNWRITABLE_REASONS. */
  refused: number[]
  /** Cell keys. */
  failed: number[]
}

export interface StoredBatch {
  id: string
  connectionId: string
  createdAt: number
  updatedAt: number
  completedAt: number | null
  status: BatchStatus
  started: boolean
  /** A connection-level cancellation (revocation, suspension, ...) hit the batch: it ends `cancelled`. */
  stopped?: boolean
  /** Changes not settled yet, over every Property (in flight included). */
  pending: number
  properties: PropertyOutcome[]
}

interface Change {
  batch: StoredBatch
  outcome: PropertyOutcome
  day: number
  field: number
  value: number | boolean
}

interface Stream {
  /** Waiting changes by cell key, in submission order. */
  pending: Map<number, Change>
  /** When the oldest waiting change arrived. */
  readySince: number
  /** Start times of the latest updates (at most the pace per minute). */
  sends: number[]
  flight: {doneAt: number; changes: Change[]} | null
}

interface Lane {
  propertyId: string
  streams: [Stream, Stream]
  outage: {attempts: number; lastAttemptAt: number; retryAt: number} | null
}

/** One channel call, kept for observation (tests, the admin API). */
export interface ChannelUpdate {
  propertyId: string
  stream: 'restrictions' | 'availability'
  at: number
  changes: number
}

const MAX_LOGGED_UPDATES = 10_000
const STREAM_NAMES = ['restrictions', 'availability'] as const
const streamOf = (field: number): 0 | 1 => (field === AVAILABILITY ? 1 : 0)
const PACE = [CHANNEL_PACE_PER_MINUTE.restrictions, CHANNEL_PACE_PER_MINUTE.availability] as const

/** Which batches a cancellation touches: the owning connection and the Property. */
export interface UnsentRef {
  connectionId: string
  propertyId: string
  batchId: string
}

export interface BatchEngineOptions {
  calendar: Calendar
  /** Sandbox clock. */
  now(): number
  /** True while the Sales Channels are down for the Property at that sandbox instant. */
  channelsDown(at: number, propertyId: string): boolean
  newId(): string
  /** Called once when a batch reaches a final status. */
  onFinal?(batch: StoredBatch): void
}

/** [batch id, night, field, value] */
type PackedChange = [string, number, number, number | boolean]

/** The serialisable state of the engine (see toJSON / fromJSON). */
export interface BatchEngineState {
  version: 1
  batches: StoredBatch[]
  lanes: Array<{
    propertyId: string
    outage: Lane['outage']
    streams: Array<{readySince: number; sends: number[]; pending: PackedChange[]; flight: {doneAt: number; changes: PackedChange[]} | null}>
  }>
}

/** Status of one Property of a batch: `cancelled` once any of its changes was cancelled. */
export function statusOf(counts: Pick<Counts, 'pending' | 'applied' | 'failed' | 'cancelled'>, started: boolean): BatchStatus {
  if (counts.pending > 0) return started ? 'processing' : 'queued'
  if (counts.cancelled > 0) return 'cancelled'
  if (counts.failed === 0) return 'completed'
  return counts.applied > 0 ? 'partially_failed' : 'failed'
}

/**
 * Status of a whole batch (docs/contract-gaps.md, "Readings of rules the contract leaves unclear").
 * A connection-level cancellation stops it: `cancelled`. Otherwise changes cancelled because their
 * Property left the Property Access count as not applied, like failures: nothing failed or cancelled is `completed` (also when nothing was
 * applied: every change unchanged, refused or superseded), some applied `partially_failed`, none
 * applied `failed`.
 */
export function batchStatusOf(counts: Pick<Counts, 'pending' | 'applied' | 'failed' | 'cancelled'>, started: boolean, stopped: boolean): BatchStatus {
  if (counts.pending > 0) return started ? 'processing' : 'queued'
  if (stopped) return 'cancelled'
  if (counts.failed + counts.cancelled === 0) return 'completed'
  return counts.applied > 0 ? 'partially_failed' : 'failed'
}

export function sumCounts(outcomes: Iterable<{counts: Counts}>): Counts {
  const total = zeroCounts()
  for (const {counts} of outcomes) for (const key of Object.keys(total) as Array<keyof Counts>) total[key] += counts[key]
  return total
}

export class BatchEngine {
  private readonly batches = new Map<string, StoredBatch>()
  private readonly lanes = new Map<string, Lane>()
  /** Lanes with waiting or in-flight changes. */
  private readonly active = new Set<Lane>()
  private readonly log: ChannelUpdate[] = []
  private timer: NodeJS.Timeout | null = null
  private lastPurge = -Infinity

  constructor(private readonly options: BatchEngineOptions) {}

  /** Stores a validated plan as a queued batch. */
  submit(connectionId: string, plan: BatchPlan): StoredBatch {
    const now = this.options.now()
    const batch: StoredBatch = {
      id: this.options.newId(),
      connectionId,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      status: 'queued',
      started: false,
      pending: 0,
      properties: [],
    }
    this.batches.set(batch.id, batch)
    const touched = new Set<StoredBatch>()
    for (const {propertyId, cells} of plan.properties) {
      const outcome: PropertyOutcome = {propertyId, started: false, counts: zeroCounts(), refused: [], failed: []}
      batch.properties.push(outcome)
      const lane = this.lane(propertyId)
      for (const [key, value] of cells) {
        const field = cellField(key)
        const stream = lane.streams[streamOf(field)]
        const older = stream.pending.get(key)
        if (older !== undefined) {
          // the latest batch wins; the older change was never sent
          stream.pending.delete(key)
          this.settle(older, 'superseded', now)
          touched.add(older.batch)
        }
        if (stream.pending.size === 0) stream.readySince = now
        stream.pending.set(key, {batch, outcome, day: cellDay(key), field, value})
        outcome.counts.submitted++
        outcome.counts.pending++
        batch.pending++
      }
      this.active.add(lane)
    }
    for (const older of touched) this.refresh(older, now)
    this.refresh(batch, now)
    return batch
  }

  /** A stored batch of this connection, unless older than the retention period. */
  get(id: string, connectionId: string): StoredBatch | undefined {
    const batch = this.batches.get(id)
    if (batch === undefined || batch.connectionId !== connectionId) return undefined
    if (batch.createdAt < this.options.now() - RETENTION_MS) return undefined
    return batch
  }

  /** Every channel call made so far (oldest first), kept for observation. */
  updates(): readonly ChannelUpdate[] {
    return this.log
  }

  /**
   * Cancels every change not yet sent whose batch and Property match: immediate and permanent.
   * Changes in flight complete. At level `connection` every batch touched ends `cancelled`; at
   * level `property` it settles by its other changes (see batchStatusOf).
   */
  cancelUnsent(predicate: (ref: UnsentRef) => boolean, level: 'connection' | 'property'): number {
    const now = this.options.now()
    const touched = new Set<StoredBatch>()
    let cancelled = 0
    for (const lane of this.active) {
      for (const stream of lane.streams) {
        for (const [key, change] of stream.pending) {
          if (!predicate({connectionId: change.batch.connectionId, propertyId: lane.propertyId, batchId: change.batch.id})) continue
          stream.pending.delete(key)
          this.settle(change, 'cancelled', now)
          if (level === 'connection') change.batch.stopped = true
          touched.add(change.batch)
          cancelled++
        }
      }
      this.deactivateIfIdle(lane)
    }
    for (const batch of touched) this.refresh(batch, now)
    return cancelled
  }

  /** Processes everything due up to `now` (sandbox ms), in time order. Deterministic for tests. */
  advance(now: number = this.options.now()): void {
    for (;;) {
      let next: {lane: Lane; stream: 0 | 1; at: number} | null = null
      for (const lane of this.active) {
        for (const index of [0, 1] as const) {
          const at = this.dueAt(lane, index)
          if (at <= now && (next === null || at < next.at)) next = {lane, stream: index, at}
        }
      }
      if (next === null) break
      this.step(next.lane, next.stream, next.at)
    }
    this.purge(now)
  }

  /** Runs `advance` every `intervalMs` of real time until stop(). */
  start(intervalMs = 50): void {
    if (this.timer !== null) return
    this.timer = setInterval(() => this.advance(), intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }

  toJSON(): BatchEngineState {
    const packChange = (change: Change): PackedChange => [change.batch.id, change.day, change.field, change.value]
    return {
      version: 1,
      batches: [...this.batches.values()].map((batch) => ({...batch, properties: batch.properties.map((outcome) => ({...outcome}))})),
      lanes: [...this.active].map((lane) => ({
        propertyId: lane.propertyId,
        outage: lane.outage,
        streams: lane.streams.map((stream) => ({
          readySince: stream.readySince,
          sends: stream.sends,
          pending: [...stream.pending.values()].map(packChange),
          flight: stream.flight === null ? null : {doneAt: stream.flight.doneAt, changes: stream.flight.changes.map(packChange)},
        })),
      })),
    }
  }

  static fromJSON(state: BatchEngineState, options: BatchEngineOptions): BatchEngine {
    const engine = new BatchEngine(options)
    for (const batch of state.batches) engine.batches.set(batch.id, {...batch, properties: batch.properties.map((outcome) => ({...outcome}))})
    for (const saved of state.lanes) {
      const lane = engine.lane(saved.propertyId)
      lane.outage = saved.outage
      const outcomes = new Map<string, PropertyOutcome>()
      const unpack = ([batchId, day, field, value]: PackedChange): Change => {
        const batch = engine.batches.get(batchId)!
        let outcome = outcomes.get(batchId)
        if (outcome === undefined) {
          outcome = batch.properties.find((candidate) => candidate.propertyId === saved.propertyId)!
          outcomes.set(batchId, outcome)
        }
        return {batch, outcome, day, field, value}
      }
      saved.streams.forEach((savedStream, index) => {
        const stream = lane.streams[index as 0 | 1]
        stream.readySince = savedStream.readySince
        stream.sends = [...savedStream.sends]
        for (const packed of savedStream.pending) stream.pending.set(cellKey(packed[1], packed[2]), unpack(packed))
        stream.flight = savedStream.flight === null ? null : {doneAt: savedStream.flight.doneAt, changes: savedStream.flight.changes.map(unpack)}
      })
      engine.active.add(lane)
    }
    return engine
  }

  private lane(propertyId: string): Lane {
    let lane = this.lanes.get(propertyId)
    if (lane === undefined) {
      const stream = (): Stream => ({pending: new Map(), readySince: 0, sends: [], flight: null})
      lane = {propertyId, streams: [stream(), stream()], outage: null}
      this.lanes.set(propertyId, lane)
    }
    return lane
  }

  private dueAt(lane: Lane, index: 0 | 1): number {
    const stream = lane.streams[index]
    if (stream.flight !== null) return stream.flight.doneAt
    if (stream.pending.size === 0) return Infinity
    let at = stream.readySince
    const pace = PACE[index]
    if (stream.sends.length >= pace) at = Math.max(at, stream.sends[stream.sends.length - pace]! + WINDOW_MS)
    if (lane.outage !== null) at = Math.max(at, lane.outage.retryAt)
    return at
  }

  private step(lane: Lane, index: 0 | 1, at: number): void {
    const stream = lane.streams[index]
    const touched = new Set<StoredBatch>()
    if (stream.flight !== null) {
      for (const change of stream.flight.changes) {
        this.options.calendar.setValue(lane.propertyId, change.day, change.field, change.value)
        this.settle(change, 'applied', at)
        touched.add(change.batch)
      }
      stream.flight = null
    } else {
      this.attempt(lane, index, at, touched)
    }
    this.deactivateIfIdle(lane)
    for (const batch of touched) this.refresh(batch, at)
  }

  private attempt(lane: Lane, index: 0 | 1, at: number, touched: Set<StoredBatch>): void {
    const {calendar} = this.options
    const stream = lane.streams[index]
    const toSend: Change[] = []
    for (const [key, change] of stream.pending) {
      touched.add(change.batch)
      change.batch.started = true
      change.outcome.started = true
      const reason = calendar.unwritableReason(lane.propertyId, change.day, change.field)
      if (reason !== null) {
        stream.pending.delete(key)
        change.outcome.refused.push(tagCell(cellKey(change.day, change.field), UNWRITABLE_REASONS.indexOf(reason)))
        this.settle(change, 'refused', at)
      } else if (sameValue(calendar.value(lane.propertyId, change.day, change.field), change.value)) {
        stream.pending.delete(key)
        this.settle(change, 'unchanged', at)
      } else {
        toSend.push(change)
      }
    }
    if (toSend.length === 0) return
    if (this.options.channelsDown(at, lane.propertyId)) {
      this.failAttempt(lane, at, touched)
      return
    }
    stream.pending.clear()
    stream.flight = {doneAt: at + SEND_LATENCY_MS, changes: toSend}
    stream.sends.push(at)
    if (stream.sends.length > PACE[index]) stream.sends.shift()
    lane.outage = null
    this.log.push({propertyId: lane.propertyId, stream: STREAM_NAMES[index], at, changes: toSend.length})
    if (this.log.length > MAX_LOGGED_UPDATES) this.log.splice(0, this.log.length - MAX_LOGGED_UPDATES)
  }

  private failAttempt(lane: Lane, at: number, touched: Set<StoredBatch>): void {
    // both streams retrying at the same instant make one attempt of the Property, not two
    const outage = lane.outage ?? {attempts: 0, lastAttemptAt: -1, retryAt: 0}
    if (outage.lastAttemptAt !== at) {
      outage.attempts++
      outage.lastAttemptAt = at
    }
    if (outage.attempts < CHANNEL_OUTAGE_MAX_ATTEMPTS) {
      outage.retryAt = at + OUTAGE_RETRY_DELAYS_MS[outage.attempts - 1]!
      lane.outage = outage
      return
    }
    lane.outage = null
    for (const stream of lane.streams) {
      for (const change of stream.pending.values()) {
        change.outcome.failed.push(cellKey(change.day, change.field))
        this.settle(change, 'failed', at)
        touched.add(change.batch)
      }
      stream.pending.clear()
    }
  }

  private settle(change: Change, outcome: Exclude<keyof Counts, 'submitted' | 'pending'>, at: number): void {
    change.outcome.counts.pending--
    change.outcome.counts[outcome]++
    change.batch.pending--
    change.batch.updatedAt = at
  }

  private refresh(batch: StoredBatch, at: number): void {
    if (batch.completedAt !== null) return
    const counts = batch.pending > 0 ? {pending: batch.pending, applied: 0, failed: 0, cancelled: 0} : sumCounts(batch.properties)
    const status = batchStatusOf(counts, batch.started, batch.stopped === true)
    batch.status = status
    if (batch.pending === 0) {
      batch.completedAt = at
      batch.updatedAt = at
      this.options.onFinal?.(batch)
    }
  }

  private deactivateIfIdle(lane: Lane): void {
    const idle = lane.streams.every((stream) => stream.pending.size === 0 && stream.flight === null)
    if (idle) {
      this.active.delete(lane)
      lane.outage = null
    }
  }

  private purge(now: number): void {
    // reports live 30 days: a look once per sandbox minute is plenty
    if (now < this.lastPurge + WINDOW_MS) return
    this.lastPurge = now
    for (const [id, batch] of this.batches) {
      if (batch.completedAt !== null && batch.createdAt < now - RETENTION_MS) this.batches.delete(id)
    }
  }
}
