import {describe, expect, it} from 'vitest'
import type {BookingRecord} from '../../../src/contract/bookings.js'
import type {Message} from '../../../src/contract/messages.js'
import type {MessageThread} from '../../../src/contract/message-threads.js'
import type {Inbox, NewEvent} from '../../../src/webhooks/inbox.js'
import {bookingChange, changeId, eventIdOf, newMessages, pointAfter, reconcile, type ReconcileSource} from '../../../src/webhooks/reconcile.js'

const BOOKING = '5b0d8a36-6f3e-4a51-9c1d-2f7e1c0a9b01'
const PROPERTY = '0e4c2f1a-3b5d-4c6e-8f70-91a2b3c4d5e6'
const SINCE = '2026-03-01T10:00:00.000Z'

function message(id: string, createdAt: string, more: Partial<Message>): Message {
  return {id, author: {type: 'guest'}, text: 'hello', subject: null, attachments: [], sent_at: createdAt, created_at: createdAt, ...more} as Message
}
const thread = {booking_id: BOOKING, property_id: PROPERTY, latest_message: {created_at: '2026-03-01T10:05:00.000Z'}} as MessageThread

describe('the event id of a change', () => {
  it('is a version-5 UUID, the same for the same change and another for any other type, object or time', () => {
    const change = {type: 'booking.updated', objectId: BOOKING, at: '2026-03-01T10:00:01.000Z'}
    const id = eventIdOf(change)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(eventIdOf({...change})).toBe(id)
    const others = [eventIdOf({...change, type: 'booking.cancelled'}), eventIdOf({...change, objectId: PROPERTY}), eventIdOf({...change, at: '2026-03-01T10:00:02.000Z'})]
    expect(new Set([id, ...others]).size).toBe(4)
    // The parts are kept apart: no two different changes can join into the same name.
    expect(changeId('a\u0000bc')).not.toBe(changeId('ab\u0000c'))
  })
})

describe('the type of a booking change, from the record state', () => {
  const record = (more: Partial<BookingRecord>) => ({id: BOOKING, status: 'confirmed', created_at: '2026-02-01T00:00:00.000Z', updated_at: '2026-03-01T10:00:01.000Z', ...more}) as BookingRecord
  it('a booking created since the point is booking.created, even when already cancelled (the service sends only that one)', () => {
    expect(bookingChange(record({created_at: '2026-03-01T10:00:00.500Z'}), SINCE)).toMatchObject({type: 'booking.created', at: '2026-03-01T10:00:01.000Z'})
    expect(bookingChange(record({created_at: '2026-03-01T10:00:00.500Z', status: 'cancelled'}), SINCE)?.type).toBe('booking.created')
  })
  it('an older booking is booking.cancelled when cancelled, else booking.updated, at its updated_at', () => {
    expect(bookingChange(record({status: 'cancelled'}), SINCE)).toMatchObject({type: 'booking.cancelled', objectId: BOOKING, at: '2026-03-01T10:00:01.000Z', data: {object: 'booking', id: BOOKING}})
    expect(bookingChange(record({}), SINCE)?.type).toBe('booking.updated')
  })
  it('a record without created_at or updated_at makes no change (no time to derive the id from)', () => {
    expect(bookingChange({id: BOOKING} as BookingRecord, SINCE)).toBeUndefined()
  })
})

describe('the new messages of a thread', () => {
  it('a guest message is message.received, a sent outbound one message.sent; pending, rejected and older messages make none', () => {
    const messages = [
      message('00000000-0000-4000-8000-000000000001', '2026-03-01T09:59:59.999Z', {direction: 'inbound'}),
      message('00000000-0000-4000-8000-000000000002', '2026-03-01T10:00:00.000Z', {direction: 'inbound'}),
      message('00000000-0000-4000-8000-000000000003', '2026-03-01T10:01:00.000Z', {direction: 'outbound', delivery_status: 'sent'}),
      message('00000000-0000-4000-8000-000000000004', '2026-03-01T10:02:00.000Z', {direction: 'outbound', delivery_status: 'pending'}),
      message('00000000-0000-4000-8000-000000000005', '2026-03-01T10:03:00.000Z', {direction: 'outbound', delivery_status: 'rejected'}),
    ]
    expect(newMessages(thread, messages, SINCE)).toEqual([
      {type: 'message.received', objectId: messages[1]!.id, at: messages[1]!.created_at, data: {id: messages[1]!.id, booking_id: BOOKING, property_id: PROPERTY}},
      {type: 'message.sent', objectId: messages[2]!.id, at: messages[2]!.created_at, data: {id: messages[2]!.id, booking_id: BOOKING, property_id: PROPERTY}},
    ])
  })
})

describe('the point after a listing', () => {
  it('is next_updated_since of the last page, or where it started when no page was read', () => {
    expect(pointAfter(SINCE, [{next_updated_since: '2026-03-01T10:01:00.000Z'}, {next_updated_since: '2026-03-01T10:02:00.000Z'}])).toBe('2026-03-01T10:02:00.000Z')
    expect(pointAfter(SINCE, [])).toBe(SINCE)
  })
})

/** An inbox holding only what reconcile uses: points and added events. */
function memoryInbox(delivered?: {accountId: string; connectionId: string}): Inbox & {points: Map<string, string>; events: NewEvent[]} {
  const points = new Map<string, string>()
  const events: NewEvent[] = []
  return {
    points,
    events,
    kind: 'sqlite',
    location: 'memory',
    reconcileTurn: async (_key: string, task: () => Promise<void>) => (await task(), true),
    reconcilePoint: async (key: string) => points.get(key) ?? null,
    saveReconcilePoint: async (key: string, point: string) => void points.set(key, point),
    announced: async () => new Map(),
    deliveredAccount: async () => delivered,
    add: async (added: NewEvent[]) => (events.push(...added), new Set(added.map((event) => event.id))),
  } as unknown as Inbox & {points: Map<string, string>; events: NewEvent[]}
}

describe('a reconcile', () => {
  const serviceNow = '2026-03-01T12:00:00.000Z'
  const asked: string[] = []
  const source: ReconcileSource = {
    bookings: {
      async *pages(query) {
        asked.push(`bookings ${query.updatedSince}`)
        yield {data: [{id: BOOKING, status: 'confirmed', created_at: '2026-03-01T11:59:00.000Z', updated_at: '2026-03-01T11:59:00.000Z'} as BookingRecord], next_updated_since: serviceNow}
      },
    },
    messageThreads: {
      async *pages(query) {
        asked.push(`threads ${query.updatedSince}`)
        yield {data: [], next_updated_since: serviceNow}
      },
    },
    messages: {
      // eslint-disable-next-line require-yield
      async *list() {
        throw new Error('no thread: no message read')
      },
    },
  }
  const account = {key: 'pms:default', accountId: 'acct', connectionId: 'conn'}
  const options = {source, account, localNow: () => '2026-03-01T11:58:00.000Z', sign: () => 'v1,x', done: false}

  it('of a new store starts at the service\'s now (next_updated_since), not this machine\'s, and makes no event', async () => {
    asked.length = 0
    const inbox = memoryInbox()
    const outcome = await reconcile({...options, inbox})
    expect(outcome).toMatchObject({ran: true, made: [], reads: 2})
    expect(asked).toEqual(['bookings 2026-03-01T11:58:00.000Z', 'threads 2026-03-01T11:58:00.000Z'])
    expect([...inbox.points.values()]).toEqual([serviceNow, serviceNow])
  })

  it('from a stored point or --reconcile-from makes an event per change, with the account it was given', async () => {
    const inbox = memoryInbox()
    const outcome = await reconcile({...options, inbox, from: '2026-03-01T11:00:00.000Z'})
    expect(outcome.made.map((event) => event.type)).toEqual(['booking.created'])
    const body = JSON.parse(inbox.events[0]!.body.toString()) as Record<string, unknown>
    expect(body).toMatchObject({type: 'booking.created', account_id: 'acct', connection_id: 'conn', pms_reconciled: true, data: {object: 'booking', id: BOOKING}})
    expect(inbox.events[0]!.headers['pms-reconciled']).toBe('1')
    expect([...inbox.points.values()]).toEqual([serviceNow, serviceNow])
  })

  it('names the account of a delivered event about an object it read, and keeps it for the next reconciles', async () => {
    const inbox = memoryInbox({accountId: 'acc_real', connectionId: 'con_real'})
    await reconcile({...options, inbox, from: '2026-03-01T11:00:00.000Z'})
    expect(JSON.parse(inbox.events[0]!.body.toString())).toMatchObject({account_id: 'acc_real', connection_id: 'con_real'})
    expect(inbox.points.get('pms:default account')).toBe(JSON.stringify({accountId: 'acc_real', connectionId: 'con_real'}))
  })
})
