/**
 * `pms webhooks listen --reconcile DURATION`: the contract says events can be missed, and that
 * polling GET /bookings and GET /message-threads with `updated_since` reconciles. Every DURATION the
 * listener reads both from its reconcile point and stores in the inbox an event for each change
 * that no stored event announced, so that --forward-to, --exec and --out hear of it like of a
 * delivered one.
 *
 * An event made here has the contract's envelope, `pms_reconciled: true`, and an id derived from
 * the object and its change (a hash of type, object id and change time or message id): two
 * reconciles, or two listeners, make the same id, which the inbox stores once. The service's own
 * event for the same change has another id; so a change is also skipped when the inbox holds an
 * event about that object created at or after the change.
 *
 * The point is the service's: `next_updated_since` of the last page, stored only once the events
 * found are stored, so a reconcile that fails is made again from the same point at the next tick.
 */
import {createHash} from 'node:crypto'
import type {BookingRecord} from '../contract/bookings.js'
import type {Message, MessageThread} from '../contract/messages.js'
import type {Inbox, NewEvent} from './inbox.js'

/** The reads a reconcile needs: the client's resources, each an async iteration of pages. */
export interface ReconcileSource {
  bookings: {pages(query: {updatedSince?: string; limit?: number}): AsyncIterable<{data: BookingRecord[]; next_updated_since: string}>}
  messageThreads: {pages(query: {updatedSince?: string; limit?: number}): AsyncIterable<{data: MessageThread[]; next_updated_since: string}>}
  messages: {list(bookingId: string, query?: {limit?: number}): AsyncIterable<Message>}
}

export interface ReconcileOptions {
  inbox: Inbox
  source: ReconcileSource
  /** Names the account in the store and in the events (`connection_id`, `account_id`): the API names neither. */
  account: string
  /** Where a first reconcile starts (ISO time): --reconcile-from, else now. */
  firstPoint: () => string
  /** Signs an event made here as the service would, with the listener's signing secret. */
  sign: (id: string, timestamp: number, body: string) => string
  /** Nothing to do with events (no --forward-to, --exec, --out): stored as done. */
  done: boolean
}

export interface ReconcileOutcome {
  /** False: another listener of the shared inbox was reconciling; nothing was read. */
  ran: boolean
  made: Array<{id: string; type: string}>
  reads: number
}

/** The header that tells a target an event was made by the reconcile of pms, not sent by the service. */
const RECONCILED_HEADER = 'pms-reconciled'

/** A UUID (version 5 layout) of `name`: the same change always makes the same event id. */
export function changeId(name: string): string {
  const hash = createHash('sha1').update('pms webhooks reconcile\u0000').update(name).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

interface Change {
  type: string
  /** The `data.id` of the event: the booking's id, or the message's. */
  objectId: string
  /** When the change happened, by the service's clock (ISO). */
  at: string
  data: Record<string, unknown>
}

/** Which booking event a record's state calls for, seen changed since `since`. */
export function bookingChange(record: BookingRecord, since: string): Change | undefined {
  const at = typeof record.updated_at === 'string' ? record.updated_at : typeof record.created_at === 'string' ? record.created_at : undefined
  if (at === undefined) return undefined
  const created = typeof record.created_at === 'string' && Date.parse(record.created_at) >= Date.parse(since)
  const type = record.status === 'cancelled' && !created ? 'booking.cancelled' : created ? 'booking.created' : 'booking.updated'
  return {type, objectId: record.id, at, data: {object: 'booking', id: record.id}}
}

function messageChange(message: Message, thread: MessageThread): Change | undefined {
  const data = {id: message.id, booking_id: thread.booking_id, property_id: thread.property_id}
  if (message.direction === 'inbound') return {type: 'message.received', objectId: message.id, at: message.created_at, data}
  // message.sent is for messages sent: one still pending, or rejected, was not.
  if (message.direction === 'outbound' && message.delivery_status === 'sent') return {type: 'message.sent', objectId: message.id, at: message.created_at, data}
  return undefined
}

const BOOKINGS_KEY = 'bookings'
const THREADS_KEY = 'message-threads'

/** One reconcile of one account: both listings from their points, the events stored, then the points moved. */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileOutcome> {
  const outcome: ReconcileOutcome = {ran: false, made: [], reads: 0}
  const {inbox, source, account} = options
  outcome.ran = await inbox.reconcileTurn(account, async () => {
    const bookingsKey = `${account} ${BOOKINGS_KEY}`
    const threadsKey = `${account} ${THREADS_KEY}`
    const bookingsSince = (await inbox.reconcilePoint(bookingsKey)) ?? options.firstPoint()
    const threadsSince = (await inbox.reconcilePoint(threadsKey)) ?? options.firstPoint()
    const changes: Change[] = []
    let bookingsNext = bookingsSince
    for await (const page of source.bookings.pages({updatedSince: bookingsSince, limit: 500})) {
      outcome.reads++
      for (const record of page.data) {
        const change = bookingChange(record, bookingsSince)
        if (change) changes.push(change)
      }
      bookingsNext = page.next_updated_since
    }
    let threadsNext = threadsSince
    const threads = new Map<string, MessageThread>()
    for await (const page of source.messageThreads.pages({updatedSince: threadsSince, limit: 500})) {
      outcome.reads++
      for (const thread of page.data) threads.set(thread.booking_id, thread)
      threadsNext = page.next_updated_since
    }
    const since = Date.parse(threadsSince)
    for (const thread of threads.values()) {
      // A thread back only for a read state change holds no new message: its latest message tells, without a read.
      if (Date.parse(thread.latest_message.created_at) < since) continue
      let page = 0
      for await (const message of source.messages.list(thread.booking_id, {limit: 500})) {
        if (page++ % 500 === 0) outcome.reads++
        if (Date.parse(message.created_at) < since) continue
        const change = messageChange(message, thread)
        if (change) changes.push(change)
      }
    }
    const announced = await inbox.announced([...new Set(changes.map((change) => change.objectId))])
    const events: NewEvent[] = []
    for (const change of changes) {
      const known = announced.get(change.objectId)
      if (known !== undefined && known >= Date.parse(change.at)) continue
      events.push(eventOf(change, options))
    }
    if (events.length > 0) {
      const added = await inbox.add(events)
      for (const event of events) if (added.has(event.id)) outcome.made.push({id: event.id, type: event.type})
    }
    await inbox.saveReconcilePoint(bookingsKey, bookingsNext)
    await inbox.saveReconcilePoint(threadsKey, threadsNext)
  })
  return outcome
}

function eventOf(change: Change, options: ReconcileOptions): NewEvent {
  const id = changeId(`${change.type}\u0000${change.objectId}\u0000${change.at}`)
  const createdAt = new Date(Date.parse(change.at)).toISOString()
  const body = JSON.stringify({id, type: change.type, created_at: createdAt, connection_id: options.account, account_id: options.account, data: change.data, pms_reconciled: true})
  const timestamp = Math.floor(Date.now() / 1000)
  return {
    id,
    type: change.type,
    body: Buffer.from(body),
    headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': options.sign(id, timestamp, body), [RECONCILED_HEADER]: '1'},
    done: options.done,
  }
}

/** "30s", "15m", "1h", "90" (seconds): milliseconds, or undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h)?$/.exec(text.trim())
  if (!match) return undefined
  const value = Number(match[1])
  const unit = match[2] ?? 's'
  const ms = value * {ms: 1, s: 1000, m: 60_000, h: 3_600_000}[unit]!
  return ms > 0 ? ms : undefined
}
