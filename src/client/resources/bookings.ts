import {BookingsPageSchema, LockCodesAnswerSchema, type Booking, type BookingsPage, type LockCode} from '../../contract/bookings.js'
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

  list(query: BookingsQuery = {}): AsyncIterable<Booking> {
    return walkItems(this.pages(query))
  }

  async lockCodes(bookingId: string): Promise<LockCode[]> {
    const answer = await this.transport.send({method: 'GET', path: `/bookings/${segment(bookingId)}/lock-codes`})
    return parseAnswer(LockCodesAnswerSchema, answer.body, 'GET /bookings/{booking_id}/lock-codes').data
  }
}
