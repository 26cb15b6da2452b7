import type {FastifyInstance} from 'fastify'
import {afterEach, describe, expect, it} from 'vitest'
import {errorCode} from '../harness.js'
import {allMessages, apiPost, conversationSandbox, messageEvents, trigger, walkThreads, type ThreadOut} from './support.js'

let app: FastifyInstance
afterEach(async () => {
  await app?.close()
})

const threadOf = async (token: string, bookingId: string) => (await walkThreads(app, token, 'limit=500')).threads.find((thread) => thread.booking_id === bookingId) as ThreadOut

describe('Message Thread read state', () => {
  it('close marks every message read; repeated, it answers the same and changes nothing', async () => {
    // contract (read-state table): "open | POST close | booking has messages | closed | every message marked read;
    // unread_count 0" and "close or reopen repeated | same state | unchanged | same answer"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const open = await threadOf(sandbox.token, bookingId)
    expect(open).toMatchObject({is_closed: false})
    expect(open.unread_count).toBeGreaterThan(0)
    const closed = await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/close`)
    expect(closed.statusCode).toBe(200)
    expect(closed.json()).toEqual({booking_id: bookingId, is_closed: true, unread_count: 0})
    const after = await threadOf(sandbox.token, bookingId)
    expect(after).toMatchObject({is_closed: true, unread_count: 0})
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(open.updated_at))
    const again = await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/close`)
    expect(again.json()).toEqual(closed.json())
    expect((await threadOf(sandbox.token, bookingId)).updated_at).toBe(after.updated_at)
    // contract: "No App Event is sent for close or reopen"
    expect(await messageEvents(app)).toEqual([])
  })

  it('reopen marks every message unread; repeated, it answers the same', async () => {
    // contract (read-state table): "closed | POST reopen | booking has messages | open | every message marked unread"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const count = (await allMessages(app, sandbox.token, bookingId)).length
    await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/close`)
    const reopened = await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/reopen`)
    expect(reopened.json()).toEqual({booking_id: bookingId, is_closed: false, unread_count: count})
    expect(await threadOf(sandbox.token, bookingId)).toMatchObject({is_closed: false, unread_count: count})
    expect((await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/reopen`)).json()).toEqual(reopened.json())
  })

  it('a booking without messages answers is_closed true and unread_count 0 and changes nothing', async () => {
    // contract (read-state table): "any | close or reopen | booking has no messages | answers is_closed true and unread_count 0, no change"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.without_messages
    for (const action of ['close', 'reopen', 'close']) {
      const response = await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/${action}`)
      expect(response.json()).toEqual({booking_id: bookingId, is_closed: true, unread_count: 0})
    }
    expect(await threadOf(sandbox.token, bookingId)).toBeUndefined()
  })

  it('a new guest message reopens a closed conversation and raises message.received', async () => {
    // contract: "is_closed ... a conversation is closed once its latest message is read; a new guest message reopens it";
    // Events: message.received "a guest wrote on a booking of the Property Access, on any channel"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    await apiPost(app, sandbox.token, `/bookings/${bookingId}/message-thread/close`)
    const made = await trigger(app, {trigger: 'guest_message', booking_id: bookingId, text: 'One more question', channel: 'sms'})
    expect(made.statusCode).toBe(201)
    const body = made.json() as {events: Array<{id: string; type: string}>; message_id: string; booking_id: string}
    expect(body.booking_id).toBe(bookingId)
    expect(body.events).toEqual([{id: expect.any(String), type: 'message.received'}])
    const thread = await threadOf(sandbox.token, bookingId)
    expect(thread).toMatchObject({is_closed: false, unread_count: 1, latest_message: {id: body.message_id, preview: 'One more question', author: {type: 'guest'}}})
    const [event] = await messageEvents(app)
    expect(event).toMatchObject({id: body.events[0]?.id, type: 'message.received', data: {id: body.message_id, booking_id: bookingId, property_id: thread.property_id}})
  })

  it('close and reopen need messages.write only, count against the write limit, and answer 404 outside the scope', async () => {
    // contract: "Counts against the write rate limit." "Booking outside scope answers 404 `not_found`."
    const sandbox = await conversationSandbox({permissions: ['messages.write'], rateLimits: true})
    app = sandbox.app
    const other = sandbox.cases.account_without_email_sender_or_sms_billing.booking_id
    expect(errorCode(await apiPost(app, sandbox.token, `/bookings/${other}/message-thread/close`))).toBe('not_found')
    for (let i = 1; i < 10; i++) expect((await apiPost(app, sandbox.token, `/bookings/${sandbox.cases.thread}/message-thread/${i % 2 ? 'close' : 'reopen'}`)).statusCode).toBe(200)
    const refused = await apiPost(app, sandbox.token, `/bookings/${sandbox.cases.thread}/message-thread/close`)
    expect(refused.statusCode).toBe(429)
    expect(errorCode(refused)).toBe('rate_limited')
  })
})

describe('message triggers (POST /_sandbox/events)', () => {
  it('host, assistant and automation messages raise message.sent without an author; message_read raises nothing', async () => {
    // contract: message.sent "an outbound message to a guest was sent, by anyone (host, assistant, automation, another App,
    // this App); carries no author; never sent for edits, reads or delivery status changes"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    for (const [name, type] of [['host_message', 'host'], ['assistant_message', 'assistant'], ['automation_message', 'automation']] as const) {
      const made = await trigger(app, {trigger: name, booking_id: bookingId, channel: 'email'})
      expect(made.statusCode).toBe(201)
      const body = made.json() as {events: Array<{type: string}>; message_id: string}
      expect(body.events.map((event) => event.type)).toEqual(['message.sent'])
      const message = (await allMessages(app, sandbox.token, bookingId)).at(-1)
      expect(message).toMatchObject({id: body.message_id, author: {type}, direction: 'outbound', channel: 'email', delivery_status: 'sent'})
    }
    for (const event of await messageEvents(app)) expect(Object.keys(event.data).sort()).toEqual(['booking_id', 'id', 'property_id'])
    await trigger(app, {trigger: 'guest_message', booking_id: bookingId})
    const read = await trigger(app, {trigger: 'message_read', booking_id: bookingId})
    expect(read.json()).toEqual({trigger: 'message_read', events: [], booking_id: bookingId, is_closed: true, unread_count: 0})
    expect(await threadOf(sandbox.token, bookingId)).toMatchObject({is_closed: true, unread_count: 0})
  })

  it('a guest photo arrives as a downloadable attachment', async () => {
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const made = (await trigger(app, {trigger: 'guest_message', photo: true})).json() as {message_id: string; booking_id: string}
    expect(made.booking_id).toBe(sandbox.cases.thread)
    const message = (await allMessages(app, sandbox.token, made.booking_id)).find((candidate) => candidate.id === made.message_id)
    expect(message?.attachments).toHaveLength(1)
    const url = new URL(message?.attachments[0]?.url as string)
    const download = await app.inject({method: 'GET', url: url.pathname, headers: {authorization: `Bearer ${sandbox.token}`}})
    expect(download.statusCode).toBe(200)
    expect(download.headers['content-type']).toBe('image/png')
  })

  it('message events reach only connections holding messages.read with the Property in their access', async () => {
    // contract: "message events only those holding `messages.read` under the same Property Access"
    const sandbox = await conversationSandbox({permissions: ['messages.write']})
    app = sandbox.app
    const made = await trigger(app, {trigger: 'guest_message', booking_id: sandbox.cases.thread})
    expect(made.json()).toMatchObject({events: []})
    expect(await messageEvents(app)).toEqual([])
  })

  it('bodies are validated: 422 validation_failed; an unknown booking is 404 not_found', async () => {
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const unknown = await trigger(app, {trigger: 'guest_message', booking_id: '00000000-0000-4000-8000-000000000000'})
    expect(unknown.statusCode).toBe(404)
    expect(errorCode(unknown)).toBe('not_found')
    for (const body of [
      {trigger: 'guest_message', booking_id: 42},
      {trigger: 'guest_message', channel: 'fax'},
      {trigger: 'guest_message', text: ''},
      {trigger: 'guest_message', photo: 'yes'},
      {trigger: 'guest_message', photo: true, channel: 'sms'},
      {trigger: 'host_message', photo: true},
      {trigger: 'message_read', text: 'x'},
      {trigger: 'no_such_trigger'},
    ]) {
      const response = await trigger(app, body)
      expect(response.statusCode, JSON.stringify(body)).toBe(422)
      expect(errorCode(response)).toBe('validation_failed')
    }
  })
})
