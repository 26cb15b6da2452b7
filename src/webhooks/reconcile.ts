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
import type {Message} from '../contract/messages.js'
import type {MessageThread} from '../contract/message-threads.js'
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
  account: ReconcileAccount
  /** --reconcile-from: where the first reconcile of a new store starts (ISO time). */
  from?: string
  /** This machine's now (ISO): only where a new store's first listing begins, to learn the service's now. */
  localNow: () => string
  /** Signs an event made here as the service would, with the listener's signing secret. */
  sign: (id: string, timestamp: number, body: string) => string
  /** Nothing to do with events (no --forward-to, --exec, --out): stored as done. */
  done: boolean
}

/** Whose listings a reconcile reads, and how its events and points name it. */
export interface ReconcileAccount {
  /** Keys the account's reconcile points and its turn in the store. */
  key: string
  /** `account_id` and `connection_id` of the events made until the service's are learned from a delivered event. */
  accountId: string
  connectionId: string
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

/** The events the messages of `thread` call for: those written at or after `since` (the thread's point). */
export function newMessages(thread: MessageThread, messages: Message[], since: string): Change[] {
  const from = Date.parse(since)
  const changes: Change[] = []
  for (const message of messages) {
    if (Date.parse(message.created_at) < from) continue
    const data = {id: message.id, booking_id: thread.booking_id, property_id: thread.property_id}
    if (message.direction === 'inbound') changes.push({type: 'message.received', objectId: message.id, at: message.created_at, data})
    // message.sent is for messages sent: one still pending, or rejected, was not.
    else if (message.direction === 'outbound' && message.delivery_status === 'sent') changes.push({type: 'message.sent', objectId: message.id, at: message.created_at, data})
  }
  return changes
}

/**
 * Where a listing's next reconcile starts: `next_updated_since` of the last page read, or, when no
 * page was read, where this one started. The contract makes only the last page's value the point.
 */
export function pointAfter(since: string, pages: Array<{next_updated_since: string}>): string {
  return pages.at(-1)?.next_updated_since ?? since
}

/** The id of the event a change makes: the same change, whoever finds it and however often, makes the same id. */
export function eventIdOf(change: Pick<Change, 'type' | 'objectId' | 'at'>): string {
  return changeId(`${change.type}\u0000${change.objectId}\u0000${change.at}`)
}

const BOOKINGS_KEY = 'bookings'
const THREADS_KEY = 'message-threads'

/** One reconcile of one account: both listings from their points, the events stored, then the points moved. */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileOutcome> {
  const outcome: ReconcileOutcome = {ran: false, made: [], reads: 0}
  const {inbox, source, account} = options
  outcome.ran = await inbox.reconcileTurn(account.key, async () => {
    const bookingsKey = `${account.key} ${BOOKINGS_KEY}`
    const threadsKey = `${account.key} ${THREADS_KEY}`
    const storedBookings = await inbox.reconcilePoint(bookingsKey)
    const storedThreads = await inbox.reconcilePoint(threadsKey)
    // A new store without --reconcile-from starts at the service's now: the first listing is read
    // from this machine's now only to learn the service's (its next_updated_since), and makes no event.
    const fresh = storedBookings === null && storedThreads === null && options.from === undefined
    const bookingsSince = storedBookings ?? options.from ?? options.localNow()
    const threadsSince = storedThreads ?? options.from ?? options.localNow()
    const changes: Change[] = []
    // The objects seen, to learn the account from an event the service delivered about one of them.
    const seen = new Set<string>()
    const bookingPages: Array<{next_updated_since: string}> = []
    for await (const page of source.bookings.pages({updatedSince: bookingsSince, limit: 500})) {
      outcome.reads++
      bookingPages.push(page)
      for (const record of page.data) seen.add(record.id)
      if (fresh) continue
      for (const record of page.data) {
        const change = bookingChange(record, bookingsSince)
        if (change) changes.push(change)
      }
    }
    const threadPages: Array<{next_updated_since: string}> = []
    const threads = new Map<string, MessageThread>()
    for await (const page of source.messageThreads.pages({updatedSince: threadsSince, limit: 500})) {
      outcome.reads++
      threadPages.push(page)
      for (const thread of page.data) seen.add(thread.booking_id)
      if (fresh) continue
      for (const thread of page.data) threads.set(thread.booking_id, thread)
    }
    const since = Date.parse(threadsSince)
    for (const thread of threads.values()) {
      // A thread back only for a read state change holds no new message: its latest message tells, without a read.
      if (Date.parse(thread.latest_message.created_at) < since) continue
      const messages: Message[] = []
      for await (const message of source.messages.list(thread.booking_id, {limit: 500})) {
        if (messages.length % 500 === 0) outcome.reads++
        messages.push(message)
      }
      changes.push(...newMessages(thread, messages, threadsSince))
    }
    for (const change of changes) seen.add(change.objectId)
    const named = await accountNamed(inbox, account, seen)
    const announced = await inbox.announced([...new Set(changes.map((change) => change.objectId))])
    const events: NewEvent[] = []
    for (const change of changes) {
      const known = announced.get(change.objectId)
      if (known !== undefined && known >= Date.parse(change.at)) continue
      events.push(eventOf(change, named, options))
    }
    if (events.length > 0) {
      const added = await inbox.add(events)
      for (const event of events) if (added.has(event.id)) outcome.made.push({id: event.id, type: event.type})
    }
    await inbox.saveReconcilePoint(bookingsKey, pointAfter(bookingsSince, bookingPages))
    await inbox.saveReconcilePoint(threadsKey, pointAfter(threadsSince, threadPages))
  })
  return outcome
}

/**
 * The `account_id` and `connection_id` of the account's events: the API answers neither, so they are
 * learned from an event the service delivered (kept in the store once found) about an object this
 * account's listings show; until one is, the names the listener was given.
 */
async function accountNamed(inbox: Inbox, account: ReconcileAccount, seen: Set<string>): Promise<{accountId: string; connectionId: string}> {
  const key = `${account.key} account`
  const stored = await inbox.reconcilePoint(key)
  if (stored !== null) return JSON.parse(stored) as {accountId: string; connectionId: string}
  const found = seen.size === 0 ? undefined : await inbox.deliveredAccount([...seen])
  if (found === undefined) return {accountId: account.accountId, connectionId: account.connectionId}
  await inbox.saveReconcilePoint(key, JSON.stringify(found))
  return found
}

function eventOf(change: Change, named: {accountId: string; connectionId: string}, options: Pick<ReconcileOptions, 'sign' | 'done'>): NewEvent {
  const id = eventIdOf(change)
  const createdAt = new Date(Date.parse(change.at)).toISOString()
  const body = JSON.stringify({id, type: change.type, created_at: createdAt, connection_id: named.connectionId, account_id: named.accountId, data: change.data, pms_reconciled: true})
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
