import type {BookingRecord, BookingRecordsPage, LockCodeRecord} from '../../contract/bookings.js'
import {MAX_DAYS_PER_BOOKINGS_CALL, MAX_PROPERTIES_PER_CALL} from '../../contract/limits.js'
import {walkItems, walkPages} from '../pagination.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'
import {type BookingFields, readBooking} from '../../contract/booking-fields.js'

export interface BookingsQuery {
  /** At most 100; omitted pages through every booking of the Connection Scope. */
  propertyIds?: string[]
  /** Stay range, YYYY-MM-DD. Leave out when polling, or bookings whose dates leave the range are missed. */
  from?: string
  to?: string
  /** Pass `next_updated_since` of the last page of the previous walk. */
  updatedSince?: string
  limit?: number
}

export class BookingsResource {
  constructor(private readonly transport: Transport) {}

  /** Pages carry `next_updated_since`: keep the last page's for the next incremental walk. */
  pages(query: BookingsQuery = {}): AsyncIterable<BookingRecordsPage> {
    return walkPages(async (cursor) => {
      const answer = await this.transport.send({
        method: 'GET',
        path: '/bookings',
        query: {
          'property_id[]': query.propertyIds,
          from: query.from,
          to: query.to,
          updated_since: query.updatedSince,
          cursor,
          limit: query.limit,
        },
      })
      return parseAnswer('BookingRecordsPageSchema', answer.body, 'GET /bookings')
    })
  }

  /**
   * Every booking of the query, each once ("upsert by booking id"): a booking that changes while
   * the listing is paged comes again ahead of the cursor, and one whose stay crosses a split of a
   * long range or of many Properties (docs/contract-gaps.md row 14) is met by two calls. Listed in
   * its newest version, in the service's order (records that do not say when they changed last).
   */
  list(query: BookingsQuery = {}): AsyncIterable<BookingRecord> {
    const ranges = splitStayRange(query.from, query.to)
    const propertyGroups = chunk(query.propertyIds, MAX_PROPERTIES_PER_CALL)
    return this.merged(propertyGroups.flatMap((propertyIds) => ranges.map((range) => ({...query, ...range, propertyIds}))))
  }

  private async *merged(queries: BookingsQuery[]): AsyncGenerator<BookingRecord> {
    const byId = new Map<string, BookingRecord>()
    for (const query of queries) {
      for await (const booking of walkItems(this.pages(query))) {
        const known = byId.get(booking.id)
        if (known && isNewer(readBooking(known), readBooking(booking))) continue
        // Deleted first so that the newest sighting takes its place in listing order.
        byId.delete(booking.id)
        byId.set(booking.id, booking)
      }
    }
    // In the service's order (the change time, then id: docs/contract-gaps.md row 11); records that
    // do not say when they changed come last, in the order they came (the sort is stable).
    const time = (booking: BookingRecord) => {
      const at = readBooking(booking).updated_at
      return at === null ? Infinity : Date.parse(at)
    }
    const merged = [...byId.values()].map((booking) => ({booking, at: time(booking)}))
    merged.sort((a, b) => (a.at !== b.at ? (a.at < b.at ? -1 : 1) : a.at === Infinity ? 0 : a.booking.id < b.booking.id ? -1 : 1))
    yield* merged.map(({booking}) => booking)
  }

  async lockCodes(bookingId: string): Promise<LockCodeRecord[]> {
    const answer = await this.transport.send({method: 'GET', path: `/bookings/${segment(bookingId)}/lock-codes`})
    return (await parseAnswer('LockCodesRecordSchema', answer.body, 'GET /bookings/{booking_id}/lock-codes')).data
  }
}

/** Whether `known` is a later version than `seen`: by their change times when both have one, else the later sighting wins. */
function isNewer(known: Pick<BookingFields, 'updated_at'>, seen: Pick<BookingFields, 'updated_at'>): boolean {
  const a = known.updated_at
  const b = seen.updated_at
  return a !== null && b !== null && Date.parse(a) > Date.parse(b)
}

const DAY_MS = 86_400_000
const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)

/**
 * `from`..`to` (both inclusive) as ranges of at most MAX_DAYS_PER_BOOKINGS_CALL nights. A range
 * given only on one side, or not a pair of dates, is passed as it is (the service judges it).
 */
export function splitStayRange(from: string | undefined, to: string | undefined): Array<{from?: string; to?: string}> {
  if (from === undefined || to === undefined) return [{from, to}]
  const first = dayOf(from)
  const last = dayOf(to)
  if (!Number.isInteger(first) || !Number.isInteger(last) || last - first + 1 <= MAX_DAYS_PER_BOOKINGS_CALL) return [{from, to}]
  const ranges: Array<{from: string; to: string}> = []
  for (let start = first; start <= last; start += MAX_DAYS_PER_BOOKINGS_CALL) {
    ranges.push({from: dateOf(start), to: dateOf(Math.min(last, start + MAX_DAYS_PER_BOOKINGS_CALL - 1))})
  }
  return ranges
}

function chunk<T>(items: readonly T[] | undefined, size: number): Array<T[] | undefined> {
  if (items === undefined || items.length <= size) return [items ? [...items] : undefined]
  const groups: T[][] = []
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size))
  return groups
}
