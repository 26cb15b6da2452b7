import type {MessageThread, MessageThreadsPage, MessageThreadState} from '../../contract/message-threads.js'
import {walkItems, walkPages} from '../pagination.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'

export interface MessageThreadsQuery {
  /** At most 100, each in the Connection Scope; omitted lists the whole scope. */
  propertyIds?: string[]
  /** Pass `next_updated_since` of the last page of the previous listing. */
  updatedSince?: string
  /** 1 to 500, default 100. */
  limit?: number
}

export class MessageThreadsResource {
  constructor(private readonly transport: Transport) {}

  pages(query: MessageThreadsQuery = {}): AsyncIterable<MessageThreadsPage> {
    return walkPages(async (cursor) => {
      const answer = await this.transport.send({
        method: 'GET',
        path: '/message-threads',
        query: {'property_id[]': query.propertyIds, updated_since: query.updatedSince, cursor, limit: query.limit},
      })
      return parseAnswer('MessageThreadsPageSchema', answer.body, 'GET /message-threads')
    })
  }

  /** Threads may come twice within a walk: upsert by booking_id. */
  list(query: MessageThreadsQuery = {}): AsyncIterable<MessageThread> {
    return walkItems(this.pages(query))
  }

  /** Marks every message of the booking read. Counts against the write limit. */
  close(bookingId: string): Promise<MessageThreadState> {
    return this.changeState(bookingId, 'close')
  }

  /** Marks every message of the booking unread. Counts against the write limit. */
  reopen(bookingId: string): Promise<MessageThreadState> {
    return this.changeState(bookingId, 'reopen')
  }

  private async changeState(bookingId: string, action: 'close' | 'reopen'): Promise<MessageThreadState> {
    // Idempotent (contract): a lost answer or a 5xx is retried like a read.
    const answer = await this.transport.send({method: 'POST', path: `/bookings/${segment(bookingId)}/message-thread/${action}`, kind: 'idempotent'})
    return parseAnswer('MessageThreadStateSchema', answer.body, `POST /bookings/{booking_id}/message-thread/${action}`)
  }
}
