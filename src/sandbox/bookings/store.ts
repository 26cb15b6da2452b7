/**
 * The bookings of the sandbox, kept in the listing order of GET /bookings: by `updated_at`, then
 * `id`. Stamps never go backwards, so a changed booking moves to (or near) the end of the order,
 * ahead of any cursor handed out before the change.
 */
import type {BookingRecord, BookingsFeatureState} from '../state.js'
import {seedBookings, type BookingSeedInput} from './seed.js'
import {byCodeUnits} from '../../text/order.js'

/** (updated_at, id) strictly before? */
function before(a: BookingRecord, updatedAt: number, id: string): boolean {
  return a.updated_at < updatedAt || (a.updated_at === updatedAt && a.id < id)
}

export type BookingChangeKind = 'created' | 'changed' | 'removed'

export class BookingStore {
  private readonly byId = new Map<string, BookingRecord>()
  /** Sorted by (updated_at, id). */
  private readonly order: BookingRecord[] = []
  private readonly changed = new Set<string>()
  private readonly removed = new Set<string>()
  private readonly listeners: Array<(kind: BookingChangeKind, booking: BookingRecord) => void> = []
  private lastStamp: number

  private constructor(
    private readonly seedInput: Omit<BookingSeedInput, 'properties'> & {propertyIds: string[]},
    records: BookingRecord[],
    lastStamp: number,
  ) {
    for (const record of records) this.byId.set(record.id, record)
    this.order.push(...this.byId.values())
    this.order.sort((a, b) => a.updated_at - b.updated_at || byCodeUnits(a.id, b.id))
    this.lastStamp = Math.max(lastStamp, this.order.at(-1)?.updated_at ?? 0)
  }

  static seed(input: BookingSeedInput): BookingStore {
    const {properties, ...rest} = input
    return new BookingStore({...rest, propertyIds: properties.map((property) => property.id)}, seedBookings(input), input.seededAt)
  }

  /** Regenerates the seeded bookings, then applies what changed since (see BookingsFeatureState). */
  static fromState(state: BookingsFeatureState, seed: number, propertyOf: (id: string) => BookingSeedInput['properties'][number] | undefined): BookingStore {
    // Generation draws over the whole list: a Property gone since stands in, then its bookings are dropped.
    const gone = new Set(state.property_ids.filter((id) => propertyOf(id) === undefined))
    const properties = state.property_ids.map((id) => propertyOf(id) ?? {id, account_id: '', name: '', currency: 'XXX', timezone: 'UTC', pricing_modifiers: []})
    const seeded = seedBookings({seed, count: state.count, properties, seededAt: state.seeded_at}).filter((record) => !gone.has(record.property_id))
    const removed = new Set(state.removed)
    const changed = new Map(state.changed.map((record) => [record.id, record]))
    const records = seeded.filter((record) => !removed.has(record.id) && !changed.has(record.id))
    records.push(...changed.values())
    const store = new BookingStore({seed, count: state.count, seededAt: state.seeded_at, propertyIds: state.property_ids}, records, state.last_stamp)
    for (const id of changed.keys()) store.changed.add(id)
    for (const id of removed) store.removed.add(id)
    return store
  }

  toState(): BookingsFeatureState {
    return {
      version: 1,
      seeded_at: this.seedInput.seededAt,
      count: this.seedInput.count,
      property_ids: this.seedInput.propertyIds,
      changed: [...this.changed].map((id) => this.byId.get(id)).filter((record) => record !== undefined),
      removed: [...this.removed],
      last_stamp: this.lastStamp,
    }
  }

  get size(): number {
    return this.order.length
  }

  find(id: string): BookingRecord | undefined {
    return this.byId.get(id)
  }

  /** Every booking in listing order. Read only: change bookings through `put` and `remove`. */
  list(): readonly BookingRecord[] {
    return this.order
  }

  /** Tells `listener` about every booking created, changed or removed from now on. */
  onChange(listener: (kind: BookingChangeKind, booking: BookingRecord) => void): void {
    this.listeners.push(listener)
  }

  /** The `updated_at` of a change made now: never before an earlier stamp. */
  stamp(now: number): number {
    this.lastStamp = Math.max(this.lastStamp, now)
    return this.lastStamp
  }

  /** Index of the first booking at or after (updatedAt, id). */
  lowerBound(updatedAt: number, id = ''): number {
    let low = 0
    let high = this.order.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (before(this.order[middle] as BookingRecord, updatedAt, id)) low = middle + 1
      else high = middle
    }
    return low
  }

  /** Stores a new or changed booking (its `updated_at` already stamped). */
  put(record: BookingRecord): void {
    const existing = this.byId.get(record.id)
    if (existing !== undefined) this.unlink(existing)
    this.byId.set(record.id, record)
    this.order.splice(this.lowerBound(record.updated_at, record.id), 0, record)
    this.changed.add(record.id)
    for (const listener of this.listeners) listener(existing === undefined ? 'created' : 'changed', record)
  }

  remove(id: string): BookingRecord | undefined {
    const existing = this.byId.get(id)
    if (existing === undefined) return undefined
    this.unlink(existing)
    this.byId.delete(id)
    this.changed.delete(id)
    this.removed.add(id)
    for (const listener of this.listeners) listener('removed', existing)
    return existing
  }

  private unlink(record: BookingRecord): void {
    const index = this.lowerBound(record.updated_at, record.id)
    if (this.order[index] === record) this.order.splice(index, 1)
    else {
      // Should not happen (records are replaced, never edited in place); keep the order consistent anyway.
      const found = this.order.indexOf(record)
      if (found !== -1) this.order.splice(found, 1)
    }
  }
}
