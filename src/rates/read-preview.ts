/**
 * The preview of a plan from reads: GET /restrictions answers, per Property and night, the current
 * values and the fields a batch will refuse with their reason (`unwritable_fields`), which is all a
 * dry run compares against. "A value equal to the current one is unchanged and not re-sent" (batch
 * rule 9), a field in `unwritable_fields` is refused, every other value changes: the same counts,
 * changes and refused runs as the service's dry run, on the read budget (60 a minute, 100
 * Properties x 366 nights a call) instead of the write budget (10 a minute) that every dry run
 * spends like a submission.
 *
 * Where the reads cannot tell (the service answered no record for a night the batch writes), the
 * batch is left to a dry run: `undefined` below.
 *
 * The counting is written here on its own, not shared with the sandbox's dry run, so that a test
 * comparing the two compares two readings of the contract rather than one code with itself.
 */
import type {PreviewProperty, RestrictionBatchPreview, RestrictionRecord} from '../contract/index.js'
import {MAX_DAYS_PER_RESTRICTIONS_CALL, MAX_PROPERTIES_PER_CALL} from '../contract/limits.js'
import {formatDay, parseDay} from '../contract/days.js'
import {FIELD_COUNT, FIELDS, RATE_FIELD, MIN_STAY_FIELD, toApiValue} from './fields.js'
import type {Plan} from './planner.js'
import {WINDOW_NIGHTS} from './store.js'

type Value = number | boolean | null

/** One GET /restrictions call: at most 100 Properties and 366 nights. */
export interface ReadCall {
  propertyIds: string[]
  from: string
  to: string
}

/**
 * The calls that read every night the plan writes: the touched Properties in the order the batches
 * reach them, 100 to a call, over the nights they span, 366 to a call. Calls come in the order the
 * batches need them, and the first calls read the Properties of batch 1 alone, so that it can be
 * previewed (and with --yes sent) after the fewest records; the rest go 100 to a call.
 */
export function readCallsOf(plan: Plan): ReadCall[] {
  const groups: number[][] = [[]]
  const span = new Map<number, {from: number; to: number}>()
  const firstBatchEnd = plan.batchCount > 1 ? plan.batchStart[1]! : plan.entryFrom.length
  for (let e = 0; e < plan.entryFrom.length; e++) {
    const p = plan.entryProperty[e]!
    const known = span.get(p)
    if (known) {
      known.from = Math.min(known.from, plan.entryFrom[e]!)
      known.to = Math.max(known.to, plan.entryTo[e]!)
      continue
    }
    span.set(p, {from: plan.entryFrom[e]!, to: plan.entryTo[e]!})
    let group = groups.at(-1)!
    if (group.length === MAX_PROPERTIES_PER_CALL || (e >= firstBatchEnd && groups.length === 1 && group.length > 0)) groups.push((group = []))
    group.push(p)
  }
  const calls: ReadCall[] = []
  for (const group of groups) {
    if (group.length === 0) continue
    const from = Math.min(...group.map((p) => span.get(p)!.from))
    const to = Math.max(...group.map((p) => span.get(p)!.to))
    const propertyIds = group.map((p) => plan.store.properties[p]!.id)
    for (let start = from; start <= to; start += MAX_DAYS_PER_RESTRICTIONS_CALL) {
      calls.push({propertyIds, from: formatDay(start), to: formatDay(Math.min(to, start + MAX_DAYS_PER_RESTRICTIONS_CALL - 1))})
    }
  }
  return calls
}

/**
 * What reads answered for the nights of a plan, kept per Property over its writable window like
 * the plan's own NightStore (typed arrays, not one object per night): the values (NaN for unset),
 * whether a record came for the night, and the reason a field is refused (0: writable).
 */
export class CurrentValues {
  private readonly values: (Float64Array | undefined)[]
  private readonly answered: (Uint8Array | undefined)[]
  private readonly refusals: (Uint8Array | undefined)[]
  /** Reasons as the service names them; a refusal holds its position + 1. */
  private readonly reasons: string[] = []

  constructor(private readonly plan: Plan) {
    const count = plan.store.properties.length
    this.values = new Array(count).fill(undefined)
    this.answered = new Array(count).fill(undefined)
    this.refusals = new Array(count).fill(undefined)
  }

  /** Keeps the records of one read; nights outside the Property's writable window are not needed. */
  add(records: readonly RestrictionRecord[]): void {
    const {store} = this.plan
    for (const record of records) {
      const p = store.indexById.get(record.property_id)
      const day = parseDay(record.date)
      if (p === undefined || typeof day !== 'number') continue
      const night = day - store.windowStart[p]!
      if (night < 0 || night >= WINDOW_NIGHTS) continue
      if (!this.values[p]) {
        this.values[p] = new Float64Array(WINDOW_NIGHTS * FIELD_COUNT)
        this.answered[p] = new Uint8Array(WINDOW_NIGHTS)
        this.refusals[p] = new Uint8Array(WINDOW_NIGHTS * FIELD_COUNT)
      }
      const values = this.values[p]!
      const refusals = this.refusals[p]!
      this.answered[p]![night] = 1
      FIELDS.forEach((field, f) => {
        const value = record[field]
        values[night * FIELD_COUNT + f] = value === null || value === undefined ? Number.NaN : Number(value)
        refusals[night * FIELD_COUNT + f] = 0
      })
      for (const unwritable of record.unwritable_fields) {
        const f = (FIELDS as readonly string[]).indexOf(unwritable.field)
        // A field version 1 may add is not one a batch of this plan writes.
        if (f < 0 || refusals[night * FIELD_COUNT + f] !== 0) continue
        let reason = this.reasons.indexOf(unwritable.reason)
        if (reason < 0) reason = this.reasons.push(unwritable.reason) - 1
        refusals[night * FIELD_COUNT + f] = reason + 1
      }
    }
  }

  /** Whether the reads answered every night batch `batch` writes (else only a dry run can tell). */
  covers(batch: number): boolean {
    const {plan} = this
    const end = batch + 1 < plan.batchCount ? plan.batchStart[batch + 1]! : plan.entryFrom.length
    for (let e = plan.batchStart[batch]!; e < end; e++) {
      for (let day = plan.entryFrom[e]!; day <= plan.entryTo[e]!; day++) if (!this.has(plan.entryProperty[e]!, day)) return false
    }
    return true
  }

  has(p: number, day: number): boolean {
    return this.answered[p]?.[day - this.plan.store.windowStart[p]!] === 1
  }

  /** The reason the field is refused on the night, or undefined when it is writable. */
  refusal(p: number, day: number, f: number): string | undefined {
    const code = this.refusals[p]![(day - this.plan.store.windowStart[p]!) * FIELD_COUNT + f]!
    return code === 0 ? undefined : this.reasons[code - 1]
  }

  current(p: number, day: number, f: number): Value {
    const value = this.values[p]![(day - this.plan.store.windowStart[p]!) * FIELD_COUNT + f]!
    if (Number.isNaN(value)) return null
    return f === RATE_FIELD || f === MIN_STAY_FIELD ? value : value === 1
  }
}

/** Equal as the service compares: rates to the cent (they are rounded so), the rest exactly. */
function unchanged(current: Value, next: number | boolean): boolean {
  if (typeof current === 'number' && typeof next === 'number') return Math.round(current * 100) === Math.round(next * 100)
  return current === next
}

interface Refusal {
  field: string
  reason: string
  from: number
  to: number
}

/**
 * What the service's dry run of batch `batch` would answer, from the reads; undefined when a night
 * the batch writes was not answered by them. Properties come in order of first appearance in the
 * batch, changes in date then field order, refusals as runs of consecutive nights with one field
 * and one reason, ordered by first night then field.
 */
export function previewFromReads(plan: Plan, batch: number, current: CurrentValues): RestrictionBatchPreview | undefined {
  const start = plan.batchStart[batch]!
  const end = batch + 1 < plan.batchCount ? plan.batchStart[batch + 1]! : plan.entryFrom.length
  const byProperty = new Map<number, {property: PreviewProperty; open: Map<number, Refusal>; runs: Refusal[]}>()
  for (let e = start; e < end; e++) {
    const p = plan.entryProperty[e]!
    let entry = byProperty.get(p)
    if (!entry) {
      const property: PreviewProperty = {
        property_id: plan.store.properties[p]!.id,
        changes: {submitted: 0, changed: 0, unchanged: 0, refused: 0},
        changed: [],
        refused_fields: [],
      }
      byProperty.set(p, (entry = {property, open: new Map(), runs: []}))
    }
    const {property, open, runs} = entry
    const asked = plan.store.nights[p]!.values
    const windowStart = plan.store.windowStart[p]!
    for (let day = plan.entryFrom[e]!; day <= plan.entryTo[e]!; day++) {
      if (!current.has(p, day)) return undefined
      for (let f = 0; f < FIELD_COUNT; f++) {
        const stored = asked[(day - windowStart) * FIELD_COUNT + f]!
        if (Number.isNaN(stored)) continue
        const next = toApiValue(f, stored)
        property.changes.submitted++
        const reason = current.refusal(p, day, f)
        if (reason !== undefined) {
          property.changes.refused++
          const run = open.get(f)
          if (run && run.reason === reason && run.to === day - 1) run.to = day
          else {
            const fresh = {field: FIELDS[f]!, reason, from: day, to: day}
            open.set(f, fresh)
            runs.push(fresh)
          }
          continue
        }
        const now = current.current(p, day, f)
        if (unchanged(now, next)) property.changes.unchanged++
        else {
          property.changes.changed++
          property.changed.push({date: formatDay(day), field: FIELDS[f]!, current: now, new: next})
        }
      }
    }
  }
  const fieldRank = (field: string) => (FIELDS as readonly string[]).indexOf(field)
  return {
    dry_run: true,
    properties: [...byProperty.values()].map(({property, runs}) => ({
      ...property,
      refused_fields: runs
        .sort((a, b) => a.from - b.from || fieldRank(a.field) - fieldRank(b.field))
        .map((run) => ({field: run.field, reason: run.reason, from: formatDay(run.from), to: formatDay(run.to)})),
    })),
  } as RestrictionBatchPreview
}
