/** Messages and threads in the contract's shapes (Message, MessageThread, MessageThreadState). */
import {firstCharacters} from '../../contract/characters.js'
import {API_PREFIX, THREAD_PREVIEW_LENGTH} from '../../contract/limits.js'
import type {ConversationBooking} from './bookings.js'
import {isListedAttachment, type Conversations, type StoredMessage, type ThreadRecord} from './store.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** `{app_url}` as the client reached it, so that attachment `url`s work from where it called. */
export function appUrlOf(headers: Record<string, string | string[] | undefined>): string {
  const host = typeof headers.host === 'string' && headers.host !== '' ? headers.host : '127.0.0.1'
  return `http://${host}`
}

export function attachmentPath(message: StoredMessage, index: number): string {
  return `${API_PREFIX}/bookings/${message.booking_id}/messages/${message.id}/attachments/${index}`
}

export function messageView(message: StoredMessage, appUrl: string) {
  return {
    id: message.id,
    direction: message.direction,
    author: message.author,
    channel: message.channel,
    text: message.text,
    subject: message.subject,
    attachments: message.attachments.filter(isListedAttachment).map((attachment) => ({
      index: attachment.index,
      type: attachment.type,
      file_name: attachment.file_name,
      content_type: attachment.content_type,
      url: appUrl + attachmentPath(message, attachment.index),
    })),
    delivery_status: message.delivery_status,
    sent_at: iso(message.sent_at),
    created_at: iso(message.created_at),
  }
}

/** The first 200 characters as written (code points, as every limit counts them: src/contract/characters.ts). */
export function preview(text: string): string {
  return firstCharacters(text, THREAD_PREVIEW_LENGTH)
}

export function threadView(conversations: Conversations, thread: ThreadRecord, latest: StoredMessage, booking: ConversationBooking) {
  return {
    booking_id: booking.id,
    property_id: booking.property_id,
    sales_channel: booking.sales_channel,
    latest_message: {
      id: latest.id,
      preview: preview(latest.text),
      author: latest.author,
      created_at: iso(latest.created_at),
      attachments_count: latest.attachments.filter(isListedAttachment).length,
    },
    ...conversations.readState(booking.id),
    updated_at: iso(thread.updated_at),
  }
}

export function threadStateView(conversations: Conversations, bookingId: string) {
  return {booking_id: bookingId, ...conversations.readState(bookingId)}
}
