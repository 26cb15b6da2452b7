import type {MessageThread} from '../../contract/message-threads.js'
import {authorName, previewLine} from './conversation.js'
import {ApiError} from '../../client/errors.js'
import type {PmsClient} from '../../client/index.js'
import {MAX_PROPERTIES_PER_CALL} from '../../contract/limits.js'
import {renderTable, utcMinute, type Column} from '../output.js'
import {plural} from '../../text/words.js'
import {readBooking} from '../../contract/booking-fields.js'

/** What a person reads of a thread: its latest message keeps this much before other columns are left out. */
const LATEST_MIN = 30

export const threadColumns: Column<MessageThread>[] = [
  {header: 'booking_id', value: (t) => t.booking_id, id: true},
  {header: 'property_id', value: (t) => t.property_id, id: true, drop: 1},
  {header: 'sales_channel', value: (t) => t.sales_channel.name, drop: 4},
  {header: 'from', value: (t) => authorName(t.latest_message.author)},
  {header: 'latest', value: (t) => previewLine(t.latest_message.preview, 200) + (t.latest_message.attachments_count > 0 ? ` [${plural(t.latest_message.attachments_count, 'file')}]` : ''), wrap: true, min: LATEST_MIN},
  {header: 'unread', value: (t) => t.unread_count, align: 'right'},
  {header: 'closed', value: (t) => (t.is_closed ? 'yes' : 'no'), drop: 2},
  {header: 'updated', value: (t) => utcMinute(t.updated_at), drop: 3},
]

/** What an inbox row says beside the thread: the guest, the Property and the stay. */
export interface InboxFacts {
  properties: Map<string, string>
  bookings: Map<string, {guest: string | null; check_in: string | null; check_out: string | null}>
}

/**
 * The Property names and the bookings of the threads' Properties, best effort: a Permission the
 * App lacks (bookings.read, properties.read) leaves those cells empty rather than stop the inbox.
 */
export async function inboxFacts(client: PmsClient, threads: readonly MessageThread[]): Promise<InboxFacts> {
  const facts: InboxFacts = {properties: new Map(), bookings: new Map()}
  try {
    for await (const property of client.properties.list()) facts.properties.set(property.id, property.name)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
  }
  const propertyIds = [...new Set(threads.map((t) => t.property_id))].slice(0, MAX_PROPERTIES_PER_CALL)
  try {
    if (propertyIds.length > 0) {
      for await (const record of client.bookings.list({propertyIds})) {
        const b = readBooking(record)
        facts.bookings.set(b.id, {guest: b.guest_name, check_in: b.check_in, check_out: b.check_out})
      }
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
  }
  return facts
}

/** `2026-11-21 → 12-05`: the stay, always with its year (a stay can be next year's); the check-out's only when it differs. */
export function stayText(booking: {check_in: string | null; check_out: string | null} | undefined): string {
  if (!booking?.check_in || !booking.check_out) return ''
  const sameYear = booking.check_in.slice(0, 4) === booking.check_out.slice(0, 4)
  return `${booking.check_in} → ${sameYear ? booking.check_out.slice(5) : booking.check_out}`
}

const inboxColumns = (facts: InboxFacts): Column<MessageThread>[] => [
  {header: 'guest', value: (t) => facts.bookings.get(t.booking_id)?.guest ?? '', wrap: true},
  // Left out before the latest message is cut under LATEST_MIN: the conversation names it.
  {header: 'Property', value: (t) => facts.properties.get(t.property_id) ?? t.property_id.slice(0, 8), wrap: true, drop: 1},
  {header: 'stay', value: (t) => stayText(facts.bookings.get(t.booking_id))},
  {header: 'channel', value: (t) => t.sales_channel.name},
  {header: 'unread', value: (t) => t.unread_count, align: 'right'},
  {header: 'latest', value: (t) => `${authorName(t.latest_message.author)}: ${previewLine(t.latest_message.preview, 200)}`, wrap: true, min: LATEST_MIN},
]

/** The chosen inbox row as the answered question shows it: the guest, or the booking when the guest is not known, and the stay. */
export function inboxChoice(thread: MessageThread, facts: InboxFacts | undefined): string {
  const booking = facts?.bookings.get(thread.booking_id)
  return [booking?.guest ?? `booking ${thread.booking_id}`, stayText(booking)].filter(Boolean).join(', ')
}

/** Inbox rows aligned as a table fitted to `width` (who, where, when, then the latest message), and their heading. */
export function inboxRows(threads: readonly MessageThread[], facts: InboxFacts, width: number): {heading: string; lines: string[]} {
  // Below 120 columns the channel gives its room to the message: the conversation shows it.
  const columns = inboxColumns(facts).filter((c) => width >= 120 || c.header !== 'channel')
  const lines = renderTable({stdoutIsTTY: true, color: false, columns: width}, columns, threads, {wide: false}).trimEnd().split('\n')
  return {heading: lines[0]!, lines: lines.slice(1, threads.length + 1)}
}
