import type {FastifyInstance} from 'fastify'
import {afterEach, describe, expect, it} from 'vitest'
import {advance, errorCode} from '../harness.js'
import {allMessages, apiGet, conversationSandbox, walkThreads, type MessageOut} from './support.js'

let app: FastifyInstance
afterEach(async () => {
  await app?.close()
})

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

describe('GET /bookings/{booking_id}/messages', () => {
  it('lists a conversation oldest first; the seeded ones carry every author type, channel and delivery status', async () => {
    // contract: "Lists the conversation oldest first."; MessageAuthor `type` one of guest, host, assistant,
    // automation, app ("`app_name` (string) is present when type is `app`"); channel platform, email, sms;
    // delivery_status received, pending, sent, rejected
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {threads} = await walkThreads(app, sandbox.token, 'limit=500')
    const messages: MessageOut[] = []
    for (const thread of threads) {
      const conversation = await allMessages(app, sandbox.token, thread.booking_id)
      const created = conversation.map((message) => Date.parse(message.created_at))
      expect(created).toEqual([...created].sort((a, b) => a - b))
      expect(conversation[conversation.length - 1]?.id).toBe(thread.latest_message.id)
      messages.push(...conversation)
    }
    expect(new Set(messages.map((message) => message.author.type))).toEqual(new Set(['guest', 'host', 'assistant', 'automation', 'app']))
    for (const message of messages) {
      expect('app_name' in message.author).toBe(message.author.type === 'app')
      expect(message.direction).toBe(message.author.type === 'guest' ? 'inbound' : 'outbound')
      expect(message.delivery_status === 'received').toBe(message.direction === 'inbound')
      expect(message.subject === null || message.channel === 'email').toBe(true)
    }
    expect(new Set(messages.map((message) => message.channel))).toEqual(new Set(['platform', 'email', 'sms']))
    expect(new Set(messages.map((message) => message.delivery_status))).toEqual(new Set(['received', 'pending', 'sent', 'rejected']))
  })

  it('pages with cursor and limit 1 to 500; a booking without messages answers an empty list', async () => {
    // contract: "Query `cursor`, `limit` (min 1, max 500, default 100)." and "A booking without messages answers an empty list."
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const whole = await allMessages(app, sandbox.token, bookingId)
    expect(whole.length).toBeGreaterThan(2)
    const paged: MessageOut[] = []
    let cursor: string | null = null
    do {
      const response = await apiGet(app, sandbox.token, `/bookings/${bookingId}/messages?limit=1${cursor ? `&cursor=${cursor}` : ''}`)
      const body = response.json() as {data: MessageOut[]; next_cursor: string | null}
      expect(body.data).toHaveLength(1)
      paged.push(...body.data)
      cursor = body.next_cursor
    } while (cursor)
    expect(paged).toEqual(whole)
    for (const limit of ['0', '501']) expect(errorCode(await apiGet(app, sandbox.token, `/bookings/${bookingId}/messages?limit=${limit}`))).toBe('validation_failed')
    const empty = await apiGet(app, sandbox.token, `/bookings/${sandbox.cases.without_messages}/messages`)
    expect(empty.json()).toEqual({data: [], next_cursor: null})
  })

  it('a booking of another account answers 404 not_found, like a missing one', async () => {
    // contract: "A booking outside the Connection Scope answers 404 `not_found`, like a missing one."
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const other = sandbox.cases.account_without_email_sender_or_sms_billing.booking_id
    for (const id of [other, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await apiGet(app, sandbox.token, `/bookings/${id}/messages`)
      expect(response.statusCode).toBe(404)
      expect(errorCode(response)).toBe('not_found')
    }
  })

  it('attachments that cannot be downloaded are left out, so indexes skip', async () => {
    // contract: "files that cannot be downloaded are left out so indexes may skip"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {booking_id: bookingId, message_id: messageId} = sandbox.cases.attachments
    const message = (await allMessages(app, sandbox.token, bookingId)).find((candidate) => candidate.id === messageId) as MessageOut
    expect(message.attachments.map((attachment) => attachment.index)).toEqual([0, 2, 4, 5, 6])
    expect(message.attachments[0]).toEqual({
      index: 0,
      type: 'image',
      file_name: 'lamp.png',
      content_type: 'image/png',
      url: `http://localhost:80/api/v1/bookings/${bookingId}/messages/${messageId}/attachments/0`,
    })
    expect(message.attachments[1]).toMatchObject({index: 2, file_name: null, content_type: null})
  })

  it('an outbound message left pending is rejected once unconfirmed for a minute', async () => {
    // contract: "`rejected` (outbound did not reach the guest: ... the send failed or stayed unconfirmed for a minute)"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const {booking_id: bookingId, message_id: messageId} = sandbox.cases.pending
    const status = async (token: string) => (await allMessages(app, token, bookingId)).find((message) => message.id === messageId)?.delivery_status
    expect(await status(sandbox.token)).toBe('pending')
    advance(app, 61)
    expect(await status(sandbox.token)).toBe('rejected')
  })
})

describe('GET /bookings/{booking_id}/messages/{message_id}/attachments/{index} over a socket', () => {
  let appUrl: string
  const listen = async (instance: FastifyInstance) => {
    await instance.listen({host: '127.0.0.1', port: 0})
    const address = instance.server.address()
    appUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  }
  /** A listening sandbox and the seeded message with attachments. */
  const start = async (options: Parameters<typeof conversationSandbox>[0] = {}) => {
    const sandbox = await conversationSandbox(options)
    app = sandbox.app
    await listen(app)
    const {booking_id: bookingId, message_id: messageId, indexes} = sandbox.cases.attachments
    return {...sandbox, bookingId, messageId, indexes}
  }
  const download = (token: string, path: string) => fetch(`${appUrl}${path}`, {headers: {authorization: `Bearer ${token}`}})
  const path = (bookingId: string, messageId: string, index: number | string) => `/api/v1/bookings/${bookingId}/messages/${messageId}/attachments/${index}`

  it('streams the photo without Content-Length, with its actual Content-Type, at the url given', async () => {
    // contract: "Answer 200: the file with its `Content-Type`." "The file is streamed without `Content-Length`";
    // "`content_type` (string or null; MIME type when known, the download answers with the actual one)"
    const {bookingId, messageId, ...sandbox} = await start()
    const listed = await (await download(sandbox.token, `/api/v1/bookings/${bookingId}/messages`)).json() as {data: MessageOut[]}
    const url = listed.data.find((message) => message.id === messageId)?.attachments[0]?.url as string
    expect(url).toBe(`${appUrl}${path(bookingId, messageId, 0)}`)
    for (const index of [0, 2]) {
      const response = await download(sandbox.token, path(bookingId, messageId, index))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('image/png')
      expect(response.headers.get('content-length')).toBeNull()
      expect(response.headers.get('transfer-encoding')).toBe('chunked')
      const bytes = Buffer.from(await response.arrayBuffer())
      expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true)
      expect(bytes.subarray(-8, -4).toString('latin1')).toBe('IEND')
    }
  })

  it('answers 404 for a message of another booking, an unknown index, a file not held any more, not a photo, or announced over 10 MB', async () => {
    // contract: "A booking outside the Connection Scope, a message of another booking, an unknown index, a file the
    // Sales Channel no longer holds, a file that is not a photo or a file announced larger than 10 MB answers 404 `not_found`."
    const {bookingId, messageId, indexes, ...sandbox} = await start()
    const other = sandbox.cases.account_without_email_sender_or_sms_billing.booking_id
    const cases = [
      path(sandbox.cases.thread, messageId, 0),
      path(other, messageId, 0),
      path(bookingId, messageId, 9),
      path(bookingId, messageId, 'first'),
      path(bookingId, '00000000-0000-4000-8000-000000000000', 0),
      path(bookingId, messageId, indexes.no_longer_held as number),
      path(bookingId, messageId, indexes.not_photo as number),
      path(bookingId, messageId, indexes.too_large as number),
    ]
    for (const url of cases) {
      const response = await download(sandbox.token, url)
      expect(response.status, url).toBe(404)
      expect(((await response.json()) as {error: {code: string}}).error.code).toBe('not_found')
    }
  })

  it('answers 502 attachment_unavailable when the channel cannot hand the file over, seeded or under the fault', async () => {
    // contract: "502 `attachment_unavailable` means the channel cannot hand over the file now."
    const {bookingId, messageId, indexes, ...sandbox} = await start()
    const seeded = await download(sandbox.token, path(bookingId, messageId, indexes.unavailable as number))
    expect(seeded.status).toBe(502)
    expect(await seeded.json()).toMatchObject({error: {code: 'attachment_unavailable'}})
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {attachment_unavailable: 1}})
    const underFault = await download(sandbox.token, path(bookingId, messageId, 0))
    expect(underFault.status).toBe(502)
    expect(await underFault.json()).toMatchObject({error: {code: 'attachment_unavailable'}})
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {}})
    expect((await download(sandbox.token, path(bookingId, messageId, 0))).status).toBe(200)
  })

  it('a transfer that breaks ends the connection before the body is complete', async () => {
    // contract: "a Sales Channel transfer that breaks, ends the connection before the body is complete (treat as failed and retry later)"
    const {bookingId, messageId, indexes, ...sandbox} = await start()
    const response = await download(sandbox.token, path(bookingId, messageId, indexes.breaks as number))
    expect(response.status).toBe(200)
    await expect(response.arrayBuffer()).rejects.toThrow()
  })

  it('a download counts against the read limit', async () => {
    // contract (Limits): "attachment downloads count as reads"
    const {bookingId, messageId, ...sandbox} = await start({rateLimits: true})
    for (let i = 0; i < 60; i++) expect((await download(sandbox.token, path(bookingId, messageId, 0))).status).toBe(200)
    const refused = await download(sandbox.token, path(bookingId, messageId, 0))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    const read = await download(sandbox.token, '/api/v1/message-threads')
    expect(read.status).toBe(429)
  })
})
