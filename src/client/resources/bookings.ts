import {BookingsPageSchema, LockCodesAnswerSchema, type Booking, type BookingsPage, type LockCode} from '../../contract/bookings.js'
import {MAX_DAYS_PER_BOOKINGS_CALL, MAX_PROPERTIES_PER_CALL} from '../../contract/limits.js'
import {walkItems, walkPages} from '../pagination.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'

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
  pages(query: BookingsQuery = {}): AsyncIterable<BookingsPage> {
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
      return parseAnswer(BookingsPageSchema, answer.body, 'GET /bookings')
    })
  }

  /**
   * Every booking of the query. A stay range longer than one call takes (docs/contract-gaps.md row
   * 14) or more Properties than one call names is split into calls that each fit; a booking met by
   * two of them (its stay crosses a split) is listed once, in its newest version, in listing order.
   */
  list(query: BookingsQuery = {}): AsyncIterable<Booking> {
    const ranges = splitStayRange(query.from, query.to)
    const propertyGroups = chunk(query.propertyIds, MAX_PROPERTIES_PER_CALL)
    if (ranges.length === 1 && propertyGroups.length === 1) return walkItems(this.pages(query))
    return this.merged(propertyGroups.flatMap((propertyIds) => ranges.map((range) => ({...query, ...range, propertyIds}))))
  }

  private async *merged(queries: BookingsQuery[]): AsyncGenerator<Booking> {
    const byId = new Map<string, Booking>()
    for (const query of queries) {
      for await (const booking of walkItems(this.pages(query))) {
        const known = byId.get(booking.id)
        if (!known || known.updated_at < booking.updated_at) byId.set(booking.id, booking)
      }
    }
    yield* [...byId.values()].sort((a, b) => (a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1))
  }

  async lockCodes(bookingId: string): Promise<LockCode[]> {
    const answer = await this.transport.send({method: 'GET', path: `/bookings/${segment(bookingId)}/lock-codes`})
    return parseAnswer(LockCodesAnswerSchema, answer.body, 'GET /bookings/{booking_id}/lock-codes').data
  }
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
