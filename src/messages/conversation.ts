/** Conversations as data: what the messages entries return, for each face to word its own way. */
import type {Message} from '../contract/messages.js'
import type {MessageThread} from '../contract/message-threads.js'
import {byCodeUnits} from '../text/order.js'

export interface ConversationView {
  booking_id: string
  time_zone: string
  property?: string
  guest?: string
  check_in?: string
  check_out?: string
  messages: Message[]
}

/** The newest first, each booking once (a thread may come twice while paging: the later copy wins). */
export function latestFirst(threads: Iterable<MessageThread>): MessageThread[] {
  const byBooking = new Map<string, MessageThread>()
  for (const thread of threads) {
    const seen = byBooking.get(thread.booking_id)
    if (!seen || thread.updated_at >= seen.updated_at) byBooking.set(thread.booking_id, thread)
  }
  return [...byBooking.values()].sort(
    (a, b) => byCodeUnits(b.latest_message.created_at, a.latest_message.created_at) || byCodeUnits(b.updated_at, a.updated_at),
  )
}
