import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {FastifyInstance} from 'fastify'
import {afterEach, describe, expect, it} from 'vitest'
import {solidPng} from '../../../../src/sandbox/messages/images.js'
import {advance, connect, errorCode, makeSandbox, operator} from '../harness.js'
import {allMessages, apiGet, apiPost, conversationSandbox, multipart, postMultipart, messageEvents, seededCases, type MessageOut} from './support.js'

let app: FastifyInstance
afterEach(async () => {
  await app?.close()
})

const png = (colour: number) => solidPng(3, 2, [colour, 0, 0])

describe('POST /bookings/{booking_id}/messages', () => {
  it('sends on the platform and answers 201 with the Message attributed to the App; message.sent carries no author', async () => {
    // contract: "Sends right away and answers once sent with 201 and a Message. The message is attributed to the App"
    // and Events: message.sent "carries no author"; "`data` also carries `booking_id` and `property_id`"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const response = await apiPost(app, sandbox.token, `/bookings/${bookingId}/messages`, {channel: 'platform', text: 'Bikes are welcome in the hall.'})
    expect(response.statusCode).toBe(201)
    const message = response.json() as MessageOut
    expect(message).toMatchObject({
      direction: 'outbound',
      author: {type: 'app', app_name: app.sandbox.ctx.world.app.name},
      channel: 'platform',
      text: 'Bikes are welcome in the hall.',
      subject: null,
      attachments: [],
      delivery_status: 'sent',
    })
    const conversation = await allMessages(app, sandbox.token, bookingId)
    expect(conversation[conversation.length - 1]).toEqual(message)
    // a reply of the host side reads the conversation (docs/contract-gaps.md)
    const thread = ((await apiGet(app, sandbox.token, '/message-threads?limit=1')).json() as {data: Array<{property_id: string}>}).data[0]
    expect(thread).toMatchObject({booking_id: bookingId, is_closed: true, unread_count: 0, latest_message: {id: message.id, author: {type: 'app'}}})
    const events = (await messageEvents(app)).filter((event) => event.type === 'message.sent')
    expect(events).toHaveLength(1)
    expect(events[0]?.data).toEqual({id: message.id, booking_id: bookingId, property_id: thread?.property_id})
  })

  it('an email takes the subject given, else the name of the Property', async () => {
    // contract: "`subject` ... email only; ... without it the email takes the name of the Property"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const withSubject = await apiPost(app, sandbox.token, `/bookings/${bookingId}/messages`, {channel: 'email', text: 'See you soon.', subject: 'Your stay'})
    expect(withSubject.json()).toMatchObject({channel: 'email', subject: 'Your stay'})
    const without = await apiPost(app, sandbox.token, `/bookings/${bookingId}/messages`, {channel: 'email', text: 'See you soon.'})
    const {world} = app.sandbox.ctx
    const propertyId = (await apiGet(app, sandbox.token, '/message-threads?limit=1')).json().data[0].property_id as string
    expect(without.json()).toMatchObject({subject: world.properties.find((property) => property.id === propertyId)?.name})
    const sms = await apiPost(app, sandbox.token, `/bookings/${bookingId}/messages`, {channel: 'sms', text: 'See you soon.'})
    expect(sms.json()).toMatchObject({channel: 'sms', subject: null, delivery_status: 'sent'})
  })

  it('multipart photos reach the guest as separate messages after the text; the answer is the text message', async () => {
    // contract: "send the same fields as `multipart/form-data` with up to 5 parts named `photos` ... The text and each
    // photo reach the guest as separate messages; the answer is the text message." "Photo messages sent with a text follow it"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const photos = [png(10), png(20)]
    const response = await postMultipart(app, sandbox.token, `/bookings/${bookingId}/messages`, multipart({channel: 'platform', text: 'Here is the key box.'}, photos.map((bytes, index) => ({name: `box-${index}.png`, type: 'image/png', bytes}))))
    expect(response.statusCode).toBe(201)
    const text = response.json() as MessageOut
    expect(text).toMatchObject({text: 'Here is the key box.', attachments: [], author: {type: 'app'}})
    const conversation = await allMessages(app, sandbox.token, bookingId)
    const tail = conversation.slice(-3)
    expect(tail[0]).toEqual(text)
    for (const [order, message] of tail.slice(1).entries()) {
      expect(message).toMatchObject({author: {type: 'app'}, channel: 'platform', delivery_status: 'sent', attachments: [{index: 0, type: 'image', file_name: `box-${order}.png`, content_type: 'image/png'}]})
      const url = new URL(message.attachments[0]?.url as string)
      const download = await app.inject({method: 'GET', url: url.pathname, headers: {authorization: `Bearer ${sandbox.token}`}})
      expect(download.headers['content-type']).toBe('image/png')
      expect(download.rawPayload.equals(photos[order] as Buffer)).toBe(true)
    }
    expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toHaveLength(3)
  })

  it('a photo the channel refuses is rejected while the text still answers 201', async () => {
    // contract: "Once the text has reached the guest the request answers 201 even if a photo was refused"
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const bookingId = sandbox.cases.thread
    const response = await postMultipart(app, sandbox.token, `/bookings/${bookingId}/messages`, multipart({channel: 'platform', text: 'Photo attached.'}, [{type: 'image/jpeg', bytes: Buffer.from('not really a jpeg')}]))
    expect(response.statusCode).toBe(201)
    const conversation = await allMessages(app, sandbox.token, bookingId)
    expect(conversation[conversation.length - 1]).toMatchObject({delivery_status: 'rejected'})
    expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toHaveLength(1)
  })

  describe('refusals known before sending answer 422 and send nothing', () => {
    // contract: "Refusals known before sending answer 422 and send nothing: `channel_unavailable`, `missing_guest_contact`,
    // `sms_billing_unavailable`, `validation_failed`, `idempotency_key_reused`."
    const expectNothingSent = async (sandbox: Awaited<ReturnType<typeof conversationSandbox>>, bookingId: string, before: number) => {
      expect(await allMessages(app, sandbox.token, bookingId)).toHaveLength(before)
      expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toEqual([])
    }

    it('channel_unavailable: no messaging on the Sales Channel, no conversation there yet, connection to restore', async () => {
      // contract: "On `platform`: the Sales Channel has no messaging for the booking, no conversation exists there yet, or the host must restore the connection to it."
      const sandbox = await conversationSandbox()
      app = sandbox.app
      for (const bookingId of [sandbox.cases.platform_no_messaging, sandbox.cases.platform_no_conversation, sandbox.cases.platform_disconnected]) {
        const before = (await allMessages(app, sandbox.token, bookingId)).length
        const response = await apiPost(app, sandbox.token, `/bookings/${bookingId}/messages`, {channel: 'platform', text: 'Hello'})
        expect(response.statusCode).toBe(422)
        expect(errorCode(response)).toBe('channel_unavailable')
        await expectNothingSent(sandbox, bookingId, before)
      }
    })

    it('channel_unavailable for email without a sending address, sms_billing_unavailable when SMS cannot be billed', async () => {
      // contract: "On `email`: the account has no sending address." "`sms_billing_unavailable` | the subscription cannot be billed for SMS; nothing sent, nothing billed"
      const base = makeSandbox({rateLimits: false})
      app = base
      const {account_id: accountId, booking_id: bookingId} = (await seededCases(base)).account_without_email_sender_or_sms_billing
      const token = (await connect(base, {account_id: accountId})).access_token
      const before = (await allMessages(base, token, bookingId)).length
      const email = await apiPost(base, token, `/bookings/${bookingId}/messages`, {channel: 'email', text: 'Hello'})
      expect(errorCode(email)).toBe('channel_unavailable')
      const sms = await apiPost(base, token, `/bookings/${bookingId}/messages`, {channel: 'sms', text: 'Hello'})
      expect(sms.statusCode).toBe(422)
      expect(errorCode(sms)).toBe('sms_billing_unavailable')
      expect(await allMessages(base, token, bookingId)).toHaveLength(before)
      expect((await apiPost(base, token, `/bookings/${bookingId}/messages`, {channel: 'platform', text: 'Hello'})).statusCode).toBe(201)
    })

    it('missing_guest_contact: no email address for email, no phone number for sms', async () => {
      // contract: "`missing_guest_contact` | guest has no email address (for `email`) or phone number (for `sms`); nothing sent"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      for (const [channel, bookingId] of [['email', sandbox.cases.no_guest_email], ['sms', sandbox.cases.no_guest_phone]] as const) {
        const before = (await allMessages(app, sandbox.token, bookingId)).length
        const response = await apiPost(app, sandbox.token, `/bookings/${bookingId}/messages`, {channel, text: 'Hello'})
        expect(errorCode(response)).toBe('missing_guest_contact')
        await expectNothingSent(sandbox, bookingId, before)
      }
    })

    it('validation_failed: photos on email or sms, text over 10000 characters, subject over 255, more than 5 photos, not an image, no text', async () => {
      // contract: "on `platform` only; `email` and `sms` with photos answer `validation_failed`. The text remains required."
      // "at most 10000 characters"; "email only; at most 255 characters"; "up to 5 parts named `photos` (JPEG, PNG, WebP or AVIF"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const bookingId = sandbox.cases.thread
      const url = `/bookings/${bookingId}/messages`
      const before = (await allMessages(app, sandbox.token, bookingId)).length
      const photo = {type: 'image/png', bytes: png(1)}
      const refusals = [
        await postMultipart(app, sandbox.token, url, multipart({channel: 'email', text: 'Hi'}, [photo])),
        await postMultipart(app, sandbox.token, url, multipart({channel: 'sms', text: 'Hi'}, [photo])),
        await postMultipart(app, sandbox.token, url, multipart({channel: 'platform', text: 'Hi'}, Array.from({length: 6}, () => photo))),
        await postMultipart(app, sandbox.token, url, multipart({channel: 'platform', text: 'Hi'}, [{type: 'text/plain', bytes: Buffer.from('hello')}])),
        await postMultipart(app, sandbox.token, url, multipart({channel: 'platform'}, [photo])),
        await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'x'.repeat(10_001)}),
        await apiPost(app, sandbox.token, url, {channel: 'email', text: 'Hi', subject: 's'.repeat(256)}),
        await apiPost(app, sandbox.token, url, {channel: 'fax', text: 'Hi'}),
        await apiPost(app, sandbox.token, url, {channel: 'platform', text: ''}),
      ]
      for (const response of refusals) {
        expect(response.statusCode, response.body).toBe(422)
        expect(errorCode(response)).toBe('validation_failed')
      }
      const maximum = (index: number) => (refusals[index]?.json() as {error: {details: {issues: Array<{maximum?: number}>}}}).error.details.issues.find((issue) => issue.maximum)?.maximum
      expect(maximum(2)).toBe(5)
      expect(maximum(5)).toBe(10_000)
      expect(maximum(6)).toBe(255)
      expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'x'.repeat(10_000)})).statusCode).toBe(201)
      expect(await allMessages(app, sandbox.token, bookingId)).toHaveLength(before + 1)
    })

    it('characters are code points, as the client counts them (docs/contract-gaps.md C1): emoji count one each, a combining accent one more', async () => {
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const url = `/bookings/${sandbox.cases.thread}/messages`
      const emoji = '😀'.repeat(10_000)
      expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: emoji})).statusCode).toBe(201)
      const over = await apiPost(app, sandbox.token, url, {channel: 'platform', text: `${emoji}😀`})
      expect(over.statusCode).toBe(422)
      expect((over.json() as {error: {details: {issues: Array<{path: string; maximum?: number}>}}}).error.details.issues).toEqual([expect.objectContaining({path: 'text', maximum: 10_000})])
      const accented = 'e\u0301'.repeat(5_000)
      expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: accented})).statusCode).toBe(201)
      expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: `${accented}e\u0301`})).statusCode).toBe(422)
      expect((await apiPost(app, sandbox.token, url, {channel: 'email', text: 'Hi', subject: '🏖'.repeat(255)})).statusCode).not.toBe(422)
      expect((await apiPost(app, sandbox.token, url, {channel: 'email', text: 'Hi', subject: '🏖'.repeat(256)})).statusCode).toBe(422)
    })
  })

  it('a multipart call over about 4.5 MB is refused with a 413 that is not the JSON error shape', async () => {
    // contract: "A whole call stays under about 4.5 MB: the hosting platform refuses larger bodies with a 413 that is not the JSON error shape."
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const big = {type: 'image/png', bytes: Buffer.concat([png(1), Buffer.alloc(1_600_000)])}
    const before = (await allMessages(app, sandbox.token, sandbox.cases.thread)).length
    for (const photos of [[big, big, big], [{...big, bytes: Buffer.alloc(4_600_000)}]]) {
      const response = await postMultipart(app, sandbox.token, `/bookings/${sandbox.cases.thread}/messages`, multipart({channel: 'platform', text: 'Big'}, photos))
      expect(response.statusCode).toBe(413)
      expect(response.headers['content-type']).toMatch(/^text\/plain/)
    }
    expect(await allMessages(app, sandbox.token, sandbox.cases.thread)).toHaveLength(before)
  })

  it('multipart is taken by this endpoint only: elsewhere it is refused as before', async () => {
    const sandbox = await conversationSandbox()
    app = sandbox.app
    const body = multipart({entries: '[]'})
    const batch = await postMultipart(app, sandbox.token, '/restriction-batches', body)
    expect(batch.statusCode).toBe(422)
    expect(batch.json()).toMatchObject({error: {code: 'validation_failed', details: {issues: [{path: 'content-type'}]}}})
    const oauth = await app.inject({method: 'POST', url: '/api/oauth/token', headers: {'content-type': body.contentType}, payload: body.payload})
    expect(oauth.statusCode).toBe(400)
    expect(oauth.json()).toMatchObject({error: 'invalid_request'})
  })

  describe('shortcodes', () => {
    it('expand with the matching read Permission, custom values of the Guide included', async () => {
      // contract: "shortcodes inside require the matching read permission ... nested custom values included"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const response = await apiPost(app, sandbox.token, `/bookings/${sandbox.cases.thread}/messages`, {channel: 'email', text: 'Hi {{guest_first_name}}! {{arrival_note}}', subject: 'Welcome to {{property_name}}'})
      expect(response.statusCode).toBe(201)
      const message = response.json() as MessageOut
      expect(message.text).toMatch(/^Hi [A-Z][a-zé]+! Your door code is \d+\.$/)
      expect(message.subject).toMatch(/^Welcome to .+/)
      expect(message.subject).not.toContain('{{')
    })

    it('a shortcode needing a missing Permission refuses the send with forbidden_permission, nested ones too', async () => {
      // contract: "a missing permission refuses the send with `forbidden_permission`"; "`bookings.read` (plus `prices.read` for amounts)"
      const sandbox = await conversationSandbox({permissions: ['messages.read', 'messages.write', 'bookings.read', 'property_guide.read']})
      app = sandbox.app
      const url = `/bookings/${sandbox.cases.thread}/messages`
      const before = (await allMessages(app, sandbox.token, sandbox.cases.thread)).length
      for (const [text, permission] of [
        ['Hi {{guest_name}}', 'guests.read'],
        ['You owe {{balance_due}}', 'prices.read'],
        ['{{arrival_note}}', 'lock_codes.read'],
        ['Welcome to {{property_name}}', 'properties.read'],
      ] as const) {
        const response = await apiPost(app, sandbox.token, url, {channel: 'platform', text})
        expect(response.statusCode, text).toBe(403)
        expect(response.json()).toMatchObject({error: {code: 'forbidden_permission', details: {permission}}})
      }
      const subject = await apiPost(app, sandbox.token, url, {channel: 'email', text: 'Hi', subject: 'For {{guest_name}}'})
      expect(errorCode(subject)).toBe('forbidden_permission')
      expect(await allMessages(app, sandbox.token, sandbox.cases.thread)).toHaveLength(before)
      const allowed = await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'Arrival {{check_in}}, Wi-Fi {{wifi_name}}, {{not_a_shortcode}}'})
      expect(allowed.statusCode).toBe(201)
      expect((allowed.json() as MessageOut).text).toMatch(/^Arrival (\d{4}-\d\d-\d\d)?, Wi-Fi .*, \{\{not_a_shortcode\}\}$/)
    })

    it('portal credentials and payment links are never expanded for an App', async () => {
      // contract: "portal credentials and invoice or payment links cannot be expanded by Apps"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const response = await apiPost(app, sandbox.token, `/bookings/${sandbox.cases.thread}/messages`, {channel: 'platform', text: 'Pay here: {{payment_link}}'})
      expect(response.statusCode).toBe(422)
      expect(errorCode(response)).toBe('validation_failed')
    })
  })

  describe('idempotency (send rule 5)', () => {
    it('the same key answers the same message and sends nothing new; another body answers idempotency_key_reused', async () => {
      // contract: "the same key within 24 hours on the same App Connection answers what the first request did (the same
      // message or the same refusal) and sends nothing new; a different body answers `idempotency_key_reused`"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const url = `/bookings/${sandbox.cases.thread}/messages`
      const before = (await allMessages(app, sandbox.token, sandbox.cases.thread)).length
      const first = await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'Once'}, {'idempotency-key': 'send-1'})
      const again = await apiPost(app, sandbox.token, url, {text: 'Once', channel: 'platform'}, {'idempotency-key': 'send-1'})
      expect(again.statusCode).toBe(201)
      expect(again.json()).toEqual(first.json())
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(await allMessages(app, sandbox.token, sandbox.cases.thread)).toHaveLength(before + 1)
      const other = await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'Twice'}, {'idempotency-key': 'send-1'})
      expect(other.statusCode).toBe(422)
      expect(errorCode(other)).toBe('idempotency_key_reused')
      expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toHaveLength(1)
    })

    it('a refused send replayed with the same key answers the same refusal and sends nothing, even once the send would pass', async () => {
      // contract: send rule 5, "answers what the first request did (the same message or the same refusal) and sends nothing new"
      // The refusal must be stored under the key for this endpoint (unlike a route that does not replay refusals).
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const url = `/bookings/${sandbox.cases.thread}/messages`
      const before = (await allMessages(app, sandbox.token, sandbox.cases.thread)).length
      const every = app.sandbox.ctx.world.app.permissions.map((entry) => entry.permission)
      await operator(app, {action: 'set_permissions', permissions: every.filter((permission) => permission !== 'guests.read')})
      const body = {channel: 'platform', text: 'Hi {{guest_first_name}}'}
      const refused = await apiPost(app, sandbox.token, url, body, {'idempotency-key': 'refused-1'})
      expect(refused.statusCode).toBe(403)
      await operator(app, {action: 'set_permissions', permissions: every})
      const replay = await apiPost(app, sandbox.token, url, body, {'idempotency-key': 'refused-1'})
      expect(replay.statusCode).toBe(403)
      expect(replay.json()).toEqual(refused.json())
      expect(replay.headers['idempotent-replayed']).toBe('true')
      expect(await allMessages(app, sandbox.token, sandbox.cases.thread)).toHaveLength(before)
      // a new attempt (a new key) is sent
      expect((await apiPost(app, sandbox.token, url, body, {'idempotency-key': 'refused-2'})).statusCode).toBe(201)
    })

    it('multipart photos are part of the body the key is checked against', async () => {
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const url = `/bookings/${sandbox.cases.thread}/messages`
      const send = (colour: number) => postMultipart(app, sandbox.token, url, multipart({channel: 'platform', text: 'Photo'}, [{type: 'image/png', bytes: png(colour)}]), {'idempotency-key': 'photo-1'})
      const first = await send(1)
      expect(first.statusCode).toBe(201)
      expect((await send(1)).json()).toEqual(first.json())
      expect(errorCode(await send(2))).toBe('idempotency_key_reused')
    })
  })

  describe('delivery_failed', () => {
    it('not_sent: nothing left, nothing in the conversation, safe to send again', async () => {
      // contract: "A failed send answers 502 `delivery_failed` with `details.delivery_outcome` = `not_sent` (safe to send again)"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      const url = `/bookings/${sandbox.cases.thread}/messages`
      const before = (await allMessages(app, sandbox.token, sandbox.cases.thread)).length
      await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {send_failure: 1, send_failure_outcome: 'not_sent'}})
      const failed = await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'Hello'}, {'idempotency-key': 'fail-1'})
      expect(failed.statusCode).toBe(502)
      expect(failed.json()).toMatchObject({error: {code: 'delivery_failed', details: {delivery_outcome: 'not_sent'}}})
      expect(await allMessages(app, sandbox.token, sandbox.cases.thread)).toHaveLength(before)
      await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {}})
      // rule 5: the same key "answers what the first request did ... and sends nothing new"; sending
      // again is a new attempt under a new key
      const replayed = await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'Hello'}, {'idempotency-key': 'fail-1'})
      expect(replayed.statusCode).toBe(502)
      expect(replayed.json()).toMatchObject({error: {code: 'delivery_failed', details: {delivery_outcome: 'not_sent'}}})
      expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toHaveLength(0)
      expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'Hello'}, {'idempotency-key': 'fail-2'})).statusCode).toBe(201)
      expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toHaveLength(1)
    })

    it('unknown: the message sits pending in the conversation, then is rejected after a minute; no message.sent', async () => {
      // contract: "`unknown` (read the conversation first)"; "`pending` (outbound not confirmed sent: in flight or fate unknown)"
      const sandbox = await conversationSandbox()
      app = sandbox.app
      await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {send_failure: 1, send_failure_outcome: 'unknown'}})
      const failed = await apiPost(app, sandbox.token, `/bookings/${sandbox.cases.thread}/messages`, {channel: 'platform', text: 'Maybe'})
      expect(failed.statusCode).toBe(502)
      expect(failed.json()).toMatchObject({error: {code: 'delivery_failed', details: {delivery_outcome: 'unknown'}}})
      const last = async () => (await allMessages(app, sandbox.token, sandbox.cases.thread)).at(-1)
      expect(await last()).toMatchObject({text: 'Maybe', author: {type: 'app'}, delivery_status: 'pending'})
      advance(app, 61)
      expect(await last()).toMatchObject({text: 'Maybe', delivery_status: 'rejected'})
      expect((await messageEvents(app)).filter((event) => event.type === 'message.sent')).toEqual([])
      expect((await app.inject({method: 'GET', url: '/_sandbox/faults'})).json()).toMatchObject({send_failure: 1, send_failure_outcome: 'unknown'})
      expect((await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {send_failure_outcome: 'lost'}})).statusCode).toBe(422)
    })
  })

  it('counts against the send limit of 30 per 60 seconds, apart from reads', async () => {
    // contract (Limits): "Messages sent to guests (POST messages) per App Connection | 30 per 60 seconds"
    const sandbox = await conversationSandbox({rateLimits: true})
    app = sandbox.app
    const url = `/bookings/${sandbox.cases.thread}/messages`
    for (let i = 0; i < 30; i++) expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: `n${i}`})).statusCode).toBe(201)
    const refused = await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'one more'})
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toMatch(/^\d+$/)
    expect((await apiGet(app, sandbox.token, '/message-threads?limit=1')).statusCode).toBe(200)
    advance(app, 61)
    expect((await apiPost(app, sandbox.token, url, {channel: 'platform', text: 'later'})).statusCode).toBe(201)
  })

  it('needs messages.write, not messages.read; a booking outside the scope answers 404', async () => {
    // contract: "Permissions are independent"; send rule 7: "A booking outside the Connection Scope answers 404 `not_found`."
    const readOnly = await conversationSandbox({permissions: ['messages.read']})
    app = readOnly.app
    expect(errorCode(await apiPost(app, readOnly.token, `/bookings/${readOnly.cases.thread}/messages`, {channel: 'platform', text: 'Hi'}))).toBe('forbidden_permission')
    await app.close()
    const writeOnly = await conversationSandbox({permissions: ['messages.write']})
    app = writeOnly.app
    expect((await apiPost(app, writeOnly.token, `/bookings/${writeOnly.cases.thread}/messages`, {channel: 'platform', text: 'Hi'})).statusCode).toBe(201)
    const other = writeOnly.cases.account_without_email_sender_or_sms_billing.booking_id
    expect(errorCode(await apiPost(app, writeOnly.token, `/bookings/${other}/messages`, {channel: 'platform', text: 'Hi'}))).toBe('not_found')
  })

  it('sent messages and their photos survive a restart with --state', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-conversations-')), 'state.json')
    app = makeSandbox({rateLimits: false, statePath})
    const cases = await seededCases(app)
    const token = (await connect(app)).access_token
    const sent = await postMultipart(app, token, `/bookings/${cases.thread}/messages`, multipart({channel: 'platform', text: 'Kept'}, [{type: 'image/png', bytes: png(7)}]))
    expect(sent.statusCode).toBe(201)
    const before = await allMessages(app, token, cases.thread)
    await app.close()
    app = makeSandbox({rateLimits: false, statePath})
    const after = await allMessages(app, token, cases.thread)
    expect(after).toEqual(before)
    const photo = new URL(after.at(-1)?.attachments[0]?.url as string)
    const download = await app.inject({method: 'GET', url: photo.pathname, headers: {authorization: `Bearer ${token}`}})
    expect(download.rawPayload.equals(png(7))).toBe(true)
    expect(await seededCases(app)).toEqual(cases)
  })
})
