import type {FastifyInstance} from 'fastify'
import {afterEach, describe, expect, it} from 'vitest'
import {advance, connect, errorCode} from '../harness.js'
import {allMessages, apiGet, apiPost, conversationSandbox, trigger, walkThreads, type ThreadOut} from './support.js'

let app: FastifyInstance
afterEach(async () => {
  await app?.close()
})

const order = (thread: ThreadOut) => Date.parse(thread.latest_message.created_at)

describe('GET /message-threads', () => {
  it('lists the threads of the Connection Scope latest message first, each once per walk', async () => {
    // contract: "Lists Message Threads of the Connection Scope, latest message first, paged."
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {threads, pages} = await walkThreads(app, sandbox.token, 'limit=7')
    expect(pages).toBeGreaterThan(3)
    const times = threads.map(order)
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(new Set(threads.map((thread) => thread.booking_id)).size).toBe(threads.length)
    const ownProperties = new Set(app.sandbox.ctx.world.properties.filter((p) => p.account_id === app.sandbox.ctx.world.accounts[0]?.id).map((p) => p.id))
    expect(threads.every((thread) => ownProperties.has(thread.property_id))).toBe(true)
    const one = await walkThreads(app, sandbox.token, 'limit=500')
    expect(one.pages).toBe(1)
    expect(one.threads.map((thread) => thread.booking_id)).toEqual(threads.map((thread) => thread.booking_id))
  })

  it('a preview is the first 200 characters of the latest message text, as written', async () => {
    // contract: "preview (string, first 200 characters of the message text, as written)"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {threads} = await walkThreads(app, sandbox.token, 'limit=500')
    const thread = threads.find((candidate) => candidate.booking_id === sandbox.cases.long_preview) as ThreadOut
    const [message] = await allMessages(app, sandbox.token, sandbox.cases.long_preview)
    expect(message?.text.length).toBeGreaterThan(200)
    expect(thread.latest_message.preview).toBe(message?.text.slice(0, 200))
    expect(thread.latest_message).toMatchObject({id: message?.id, author: {type: 'guest'}, attachments_count: 0})
    const withPhotos = threads.find((candidate) => candidate.booking_id === sandbox.cases.attachments.booking_id) as ThreadOut
    // files that cannot be downloaded are left out of attachments, and so of the count
    expect(withPhotos.latest_message.attachments_count).toBe(5)
  })

  it('limit is 1 to 500, default 100', async () => {
    // contract (Limits): "message threads and messages 1 to 500 (default 100)"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const page = await apiGet(app, sandbox.token, '/message-threads')
    expect((page.json() as {data: unknown[]}).data).toHaveLength(100)
    for (const limit of ['0', 'x', '-1']) expect(errorCode(await apiGet(app, sandbox.token, `/message-threads?limit=${limit}`))).toBe('validation_failed')
    const tooBig = await apiGet(app, sandbox.token, '/message-threads?limit=501')
    expect(tooBig.statusCode).toBe(422)
    expect(tooBig.json()).toMatchObject({error: {code: 'validation_failed', details: {issues: [{path: 'limit', maximum: 500}]}}})
    expect((await apiGet(app, sandbox.token, '/message-threads?limit=500')).statusCode).toBe(200)
    expect(errorCode(await apiGet(app, sandbox.token, '/message-threads?cursor=nonsense'))).toBe('validation_failed')
  })

  it('property_id[] narrows the list; more than 100 is validation_failed, one outside the scope is property_out_of_scope', async () => {
    // contract: "`property_id[]` (uuid, repeated, at most 100, each in the Connection Scope; omitted lists the whole scope)"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {world} = app.sandbox.ctx
    const {threads} = await walkThreads(app, sandbox.token, 'limit=500')
    const wanted = [...new Set(threads.map((thread) => thread.property_id))].slice(0, 3)
    const narrowed = await walkThreads(app, sandbox.token, wanted.map((id) => `property_id[]=${id}`).join('&'))
    expect(narrowed.threads.length).toBeGreaterThan(0)
    expect(narrowed.threads.every((thread) => wanted.includes(thread.property_id))).toBe(true)
    expect(narrowed.threads).toHaveLength(threads.filter((thread) => wanted.includes(thread.property_id)).length)

    const many = world.properties.slice(0, 101).map((property) => `property_id[]=${property.id}`).join('&')
    const tooMany = await apiGet(app, sandbox.token, `/message-threads?${many}`)
    expect(tooMany.json()).toMatchObject({error: {code: 'validation_failed', details: {issues: [{maximum: 100}]}}})
    const foreign = world.properties.find((property) => property.account_id === world.accounts[1]?.id)?.id as string
    const outside = await apiGet(app, sandbox.token, `/message-threads?property_id[]=${wanted[0]}&property_id[]=${foreign}`)
    expect(outside.statusCode).toBe(422)
    expect(outside.json()).toMatchObject({error: {code: 'property_out_of_scope', details: {property_ids: [foreign]}}})
  })

  it('a connection limited to some Properties sees only their threads, and other bookings answer 404', async () => {
    // contract: "A booking outside the Connection Scope answers 404 `not_found`, like a missing one."
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {threads} = await walkThreads(app, sandbox.token, 'limit=500')
    const [kept, other] = [threads[0] as ThreadOut, threads.find((thread) => thread.property_id !== threads[0]?.property_id) as ThreadOut]
    const limited = await connect(app, {property_ids: [kept.property_id]})
    const seen = await walkThreads(app, limited.access_token)
    expect(seen.threads.map((thread) => thread.property_id)).toEqual(seen.threads.map(() => kept.property_id))
    for (const url of [`/bookings/${other.booking_id}/messages`, `/bookings/00000000-0000-4000-8000-000000000000/messages`]) {
      expect(errorCode(await apiGet(app, limited.access_token, url))).toBe('not_found')
    }
  })

  it('next_updated_since passed as updated_since returns every thread changed since the listing began, even while it was paged', async () => {
    // contract: "`next_updated_since` (date-time; after the last page is read, pass it as `updated_since` to receive
    // every thread changed since the listing began)"; "A new message, a message read or unread, or a
    // closed/reopened conversation brings the thread back. A thread whose latest message changes while paging
    // may move ahead of the cursor (the next poll returns it)"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {threads: before} = await walkThreads(app, sandbox.token, 'limit=500')
    const changed = new Set<string>()
    const visited: string[] = []
    const walk = await walkThreads(app, sandbox.token, 'limit=10', async (page) => {
      // a writer between pages: a guest writes on a thread already returned and on one not reached
      // yet, a conversation is closed, and a booking without messages gets its first one
      const seenSoFar = before.slice(0, page * 10)
      const ahead = before[before.length - page] as ThreadOut
      const behind = seenSoFar[seenSoFar.length - 1] as ThreadOut
      visited.push(behind.booking_id)
      for (const bookingId of [ahead.booking_id, behind.booking_id]) {
        await trigger(app, {trigger: 'guest_message', booking_id: bookingId, text: `page ${page}`})
        changed.add(bookingId)
      }
      if (page === 2) {
        const open = before.find((thread) => !thread.is_closed && !changed.has(thread.booking_id)) as ThreadOut
        await apiPost(app, sandbox.token, `/bookings/${open.booking_id}/message-thread/close`)
        changed.add(open.booking_id)
        await trigger(app, {trigger: 'guest_message', booking_id: sandbox.cases.without_messages})
        changed.add(sandbox.cases.without_messages)
      }
    })
    advance(app, 1)
    const poll = await walkThreads(app, sandbox.token, `updated_since=${encodeURIComponent(walk.nextUpdatedSince)}`)
    const polled = new Set(poll.threads.map((thread) => thread.booking_id))
    for (const bookingId of changed) expect(polled.has(bookingId), bookingId).toBe(true)
    // what the walk missed, the poll brings: together they cover every thread
    const union = new Set([...walk.threads.map((thread) => thread.booking_id), ...polled])
    for (const thread of before) expect(union.has(thread.booking_id)).toBe(true)
    expect(poll.threads.every((thread) => Date.parse(thread.updated_at) >= Date.parse(walk.nextUpdatedSince))).toBe(true)

    // nothing changed since: the next poll is empty
    const quiet = await walkThreads(app, sandbox.token, `updated_since=${encodeURIComponent(poll.nextUpdatedSince)}`)
    expect(quiet.threads).toEqual([])
    expect(errorCode(await apiGet(app, sandbox.token, '/message-threads?updated_since=yesterday'))).toBe('validation_failed')
  })

  it('an unsent Scheduled Message is never the latest message nor listed; once sent it is, and message.sent is raised', async () => {
    // contract: "A Scheduled Message not yet sent is never the latest message." and "Scheduled Messages not yet sent are not listed."
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {scheduled, scheduled_only: only} = sandbox.cases
    let token = sandbox.token
    const latestOf = async (bookingId: string) => (await walkThreads(app, token, 'limit=500')).threads.find((thread) => thread.booking_id === bookingId)
    expect((await latestOf(scheduled.booking_id))?.latest_message.id).not.toBe(scheduled.message_id)
    expect((await allMessages(app, token, scheduled.booking_id)).map((message) => message.id)).not.toContain(scheduled.message_id)
    expect(await latestOf(only.booking_id)).toBeUndefined()
    expect(await allMessages(app, token, only.booking_id)).toEqual([])

    advance(app, 2 * 60 * 60 + 1)
    token = (await connect(app)).access_token
    const thread = await latestOf(scheduled.booking_id)
    expect(thread?.latest_message).toMatchObject({id: scheduled.message_id, author: {type: 'automation'}})
    const messages = await allMessages(app, token, scheduled.booking_id)
    expect(messages[messages.length - 1]).toMatchObject({id: scheduled.message_id, direction: 'outbound', delivery_status: 'sent'})
    expect((await latestOf(only.booking_id))?.latest_message.author).toEqual({type: 'automation'})
    const events = (await app.inject({method: 'GET', url: '/_sandbox/events'})).json() as {data: Array<{type: string; data: Record<string, unknown>}>}
    expect(events.data.filter((event) => event.type === 'message.sent').map((event) => event.data.id)).toContain(scheduled.message_id)
  })

  it('a booking removed from the service takes its thread out of the listing and its messages answer 404', async () => {
    // contract: "A booking removed from the service ... leaves the listing"; a Message Thread is "the conversation of one booking"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    expect((await walkThreads(app, sandbox.token, 'limit=500')).threads.map((thread) => thread.booking_id)).toContain(bookingId)
    const written = (await trigger(app, {trigger: 'guest_message', booking_id: bookingId})).json() as {events: Array<{id: string}>}
    const event = app.sandbox.ctx.events.log.find((candidate) => candidate.id === written.events[0]?.id)
    expect(event?.property_id).toBe((event?.data as {property_id: string}).property_id)
    expect(event?.gone?.()).toBe(false)
    const removed = await trigger(app, {trigger: 'booking_removed', booking_id: bookingId})
    expect(removed.statusCode).toBe(201)
    expect((await walkThreads(app, sandbox.token, 'limit=500')).threads.map((thread) => thread.booking_id)).not.toContain(bookingId)
    expect(errorCode(await apiGet(app, sandbox.token, `/bookings/${bookingId}/messages`))).toBe('not_found')
    // contract (Delivery, rule 4): "so is a message event whose message no longer exists" (dropped, not retried)
    expect(event?.gone?.()).toBe(true)
  })

  it('messages.read is needed to list threads, whatever else the connection holds', async () => {
    // contract: "Permissions are independent (for example `messages.write` does not imply `messages.read`)."
    const sandbox = await conversationSandbox({permissions: ['messages.write', 'bookings.read']})
    app = sandbox.app
    for (const url of ['/message-threads', `/bookings/${sandbox.cases.thread}/messages`]) {
      const response = await apiGet(app, sandbox.token, url)
      expect(response.statusCode).toBe(403)
      expect(errorCode(response)).toBe('forbidden_permission')
    }
  })
})
