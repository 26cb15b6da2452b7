/**
 * From what a file asks for to the fewest batches the contract allows.
 *
 * 1. Merge: per Property, consecutive nights with the same set of fields and the same values become
 *    one entry (an entry's `values` apply to every night from..to).
 * 2. Order: Properties are taken in listing order (by id), except that when some Properties weigh
 *    mostly on one limit (many entries) and others on another (just a Property slot), the two kinds
 *    are interleaved so that every batch fills all limits at the same pace. A file whose Properties
 *    are alike keeps plain id order, so batches follow the pages of GET /properties.
 * 3. Cut: batches are filled in that order up to 100 distinct Properties, 20000 entries and 200000
 *    date x field changes; an entry that would cross the change limit is split at a night so that
 *    the batch fills up exactly. A Property may thus continue in the next batch.
 *
 * The count reaches max(ceil(P/100), ceil(E/20000), ceil(C/200000)) on ordinary files.
 */
import {MAX_CHANGES_PER_BATCH, MAX_ENTRIES_PER_BATCH, MAX_PROPERTIES_PER_CALL} from '../contract/limits.js'
import {formatDay} from '../contract/days.js'
import {FIELD_COUNT, FIELDS, toApiValue} from './fields.js'
import {type NightStore, WINDOW_NIGHTS} from './store.js'

/**
 * Counts on the three limits of one batch: distinct Properties, entries and night x field changes.
 * The same shape says what the contract allows (the limits), what a file asks for (the totals)
 * and what one planned batch holds.
 */
export interface BatchLoad {
  properties: number
  entries: number
  changes: number
}

export const CONTRACT_LIMITS: BatchLoad = {
  properties: MAX_PROPERTIES_PER_CALL,
  entries: MAX_ENTRIES_PER_BATCH,
  changes: MAX_CHANGES_PER_BATCH,
}

export interface Plan {
  readonly store: NightStore
  /** Entries in batch order: Property index, first and last night (day numbers, inclusive). */
  readonly entryProperty: Int32Array
  readonly entryFrom: Int32Array
  readonly entryTo: Int32Array
  /** Batch i holds entries batchStart[i] .. batchStart[i + 1] - 1. */
  readonly batchStart: readonly number[]
  readonly batchCount: number
  /** After merging, before any split at a batch boundary. */
  readonly totals: BatchLoad
  readonly lowerBound: number
  readonly limits: BatchLoad
}

export function lowerBound(totals: BatchLoad, limits: BatchLoad = CONTRACT_LIMITS): number {
  if (totals.entries === 0) return 0
  return Math.max(
    Math.ceil(totals.properties / limits.properties),
    Math.ceil(totals.entries / limits.entries),
    Math.ceil(totals.changes / limits.changes),
  )
}

class GrowArray {
  data: Int32Array
  length = 0
  constructor(capacity: number) {
    this.data = new Int32Array(Math.max(16, capacity))
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = value
  }
  done(): Int32Array {
    return this.data.subarray(0, this.length)
  }
}

interface Merged {
  /** Per touched Property (in listing order): Property index, first entry, entry count, changes. */
  property: number[]
  first: number[]
  count: number[]
  changes: number[]
  from: Int32Array
  to: Int32Array
  fields: Uint8Array
}

function merge(store: NightStore): Merged {
  const touched = store.touched()
  const capacity = touched.length * WINDOW_NIGHTS
  const from = new Int32Array(capacity)
  const to = new Int32Array(capacity)
  const fields = new Uint8Array(capacity)
  const result: Merged = {property: [], first: [], count: [], changes: [], from, to, fields}
  let n = 0
  for (const p of touched) {
    const values = store.nights[p]!.values
    const start = store.windowStart[p]!
    const first = n
    let changes = 0
    let open = false
    let prev = 0
    for (let night = 0; night < WINDOW_NIGHTS; night++) {
      const base = night * FIELD_COUNT
      let k = 0
      for (let f = 0; f < FIELD_COUNT; f++) if (values[base + f] === values[base + f]) k++
      if (k === 0) {
        open = false
        continue
      }
      changes += k
      if (open) {
        let same = true
        for (let f = 0; f < FIELD_COUNT; f++) {
          const a = values[base + f]!
          const b = values[prev + f]!
          if (a !== b && (a === a || b === b)) {
            same = false
            break
          }
        }
        if (same) {
          to[n - 1] = start + night
          prev = base
          continue
        }
      }
      from[n] = start + night
      to[n] = start + night
      fields[n] = k
      n++
      open = true
      prev = base
    }
    result.property.push(p)
    result.first.push(first)
    result.count.push(n - first)
    result.changes.push(changes)
  }
  result.from = from.subarray(0, n)
  result.to = to.subarray(0, n)
  result.fields = fields.subarray(0, n)
  return result
}

/**
 * Order of the touched Properties (positions into Merged): id order, interleaving Properties by
 * the limit they weigh on most, relative to the file's total on that limit.
 */
function balancedOrder(merged: Merged, totals: BatchLoad): number[] {
  const count = merged.property.length
  const queues: number[][] = [[], [], []]
  for (let i = 0; i < count; i++) {
    const shares = [1 / totals.properties, merged.count[i]! / totals.entries, merged.changes[i]! / totals.changes]
    let dominant = 0
    for (let d = 1; d < 3; d++) if (shares[d]! > shares[dominant]! * (1 + 1e-9)) dominant = d
    queues[dominant]!.push(i)
  }
  if (queues.filter((queue) => queue.length > 0).length <= 1) return [...queues[0]!, ...queues[1]!, ...queues[2]!]
  const heads = [0, 0, 0]
  const progress = [0, 0, 0]
  const totalsArray = [totals.properties, totals.entries, totals.changes]
  const order: number[] = []
  while (order.length < count) {
    let pick = -1
    for (let q = 0; q < 3; q++) {
      if (heads[q]! >= queues[q]!.length) continue
      if (
        pick < 0 ||
        progress[q]! < progress[pick]! - 1e-12 ||
        (Math.abs(progress[q]! - progress[pick]!) <= 1e-12 && queues[q]![heads[q]!]! < queues[pick]![heads[pick]!]!)
      ) {
        pick = q
      }
    }
    const i = queues[pick]![heads[pick]!++]!
    order.push(i)
    progress[0]! += 1 / totalsArray[0]!
    progress[1]! += merged.count[i]! / totalsArray[1]!
    progress[2]! += merged.changes[i]! / totalsArray[2]!
  }
  return order
}

export function planBatches(store: NightStore, limits: BatchLoad = CONTRACT_LIMITS): Plan {
  const merged = merge(store)
  const totals: BatchLoad = {
    properties: merged.property.length,
    entries: merged.from.length,
    changes: merged.changes.reduce((a, b) => a + b, 0),
  }
  const bound = lowerBound(totals, limits)
  const outProperty = new GrowArray(totals.entries + 64)
  const outFrom = new GrowArray(totals.entries + 64)
  const outTo = new GrowArray(totals.entries + 64)
  const batchStart: number[] = []
  if (totals.entries > 0) {
    const order = balancedOrder(merged, totals)
    let properties = 0
    let entries = 0
    let changes = 0
    const open = () => {
      batchStart.push(outFrom.length)
      properties = 0
      entries = 0
      changes = 0
    }
    open()
    for (const i of order) {
      const p = merged.property[i]!
      let inBatch = false
      const last = merged.first[i]! + merged.count[i]!
      for (let e = merged.first[i]!; e < last; e++) {
        let from = merged.from[e]!
        const to = merged.to[e]!
        const k = merged.fields[e]!
        while (from <= to) {
          if (entries > 0 && (entries + 1 > limits.entries || (!inBatch && properties + 1 > limits.properties) || changes + k > limits.changes)) {
            open()
            inBatch = false
          }
          if (!inBatch) {
            properties++
            inBatch = true
          }
          const nights = Math.min(to - from + 1, Math.max(1, Math.floor((limits.changes - changes) / k)))
          outProperty.push(p)
          outFrom.push(from)
          outTo.push(from + nights - 1)
          entries++
          changes += nights * k
          from += nights
        }
      }
    }
  }
  return {
    store,
    entryProperty: outProperty.done(),
    entryFrom: outFrom.done(),
    entryTo: outTo.done(),
    batchStart,
    batchCount: batchStart.length,
    totals,
    lowerBound: bound,
    limits,
  }
}

function entryRange(plan: Plan, batch: number): [number, number] {
  const start = plan.batchStart[batch]!
  const end = batch + 1 < plan.batchCount ? plan.batchStart[batch + 1]! : plan.entryFrom.length
  return [start, end]
}

function fieldsAt(plan: Plan, property: number, day: number): number {
  const values = plan.store.nights[property]!.values
  const base = (day - plan.store.windowStart[property]!) * FIELD_COUNT
  let k = 0
  for (let f = 0; f < FIELD_COUNT; f++) if (values[base + f] === values[base + f]) k++
  return k
}

export function batchStats(plan: Plan, batch: number): BatchLoad {
  const [start, end] = entryRange(plan, batch)
  const properties = new Set<number>()
  let changes = 0
  for (let e = start; e < end; e++) {
    const p = plan.entryProperty[e]!
    properties.add(p)
    changes += (plan.entryTo[e]! - plan.entryFrom[e]! + 1) * fieldsAt(plan, p, plan.entryFrom[e]!)
  }
  return {properties: properties.size, entries: end - start, changes}
}

export type EntryValues = Partial<Record<(typeof FIELDS)[number], number | boolean>>

export interface PlannedEntry {
  property_id: string
  from: string
  to: string
  values: EntryValues
}

/** The request body of one batch (without dry_run), built only when it is about to be sent. */
export function batchRequest(plan: Plan, batch: number): {entries: PlannedEntry[]} {
  const [start, end] = entryRange(plan, batch)
  const entries: PlannedEntry[] = []
  for (let e = start; e < end; e++) {
    const p = plan.entryProperty[e]!
    const from = plan.entryFrom[e]!
    const values = plan.store.nights[p]!.values
    const base = (from - plan.store.windowStart[p]!) * FIELD_COUNT
    const entryValues: EntryValues = {}
    for (let f = 0; f < FIELD_COUNT; f++) {
      const v = values[base + f]!
      if (v === v) entryValues[FIELDS[f]!] = toApiValue(f, v)
    }
    entries.push({property_id: plan.store.properties[p]!.id, from: formatDay(from), to: formatDay(plan.entryTo[e]!), values: entryValues})
  }
  return {entries}
}

/** Property ids of a batch in the order they appear. */
export function batchPropertyIds(plan: Plan, batch: number): string[] {
  const [start, end] = entryRange(plan, batch)
  const ids: string[] = []
  let last = -1
  for (let e = start; e < end; e++) {
    const p = plan.entryProperty[e]!
    if (p !== last && !ids.includes(plan.store.properties[p]!.id)) ids.push(plan.store.properties[p]!.id)
    last = p
  }
  return ids
}
