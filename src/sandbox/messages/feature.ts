/**
 * Conversations as a sandbox feature: Message Threads, messages, attachments, sending (JSON or
 * multipart with photos), close and reopen, message App Events and the message triggers.
 */
import {Readable} from 'node:stream'
import fastifyMultipart from '@fastify/multipart'
import {API_PREFIX, MAX_REQUEST_BODY_BYTES, MESSAGES_PAGE_SIZE, THREADS_PAGE_SIZE, type Permission} from '../../contract/limits.js'
import {propertyGuide} from '../api/guide.js'
import type {SandboxContext} from '../context.js'
import type {SandboxEvent} from '../events.js'
import type {SandboxFeature} from '../feature.js'
import {ApiFailure, notFound, validationFailed, type ApiServer} from '../http.js'
import {decodeCursor, encodeCursor, parseInstant, parseLimit, propertyIdsInScope} from '../query.js'
import {deriveRandom} from '../random.js'
import {effectivePermissions, propertiesInScope, propertyInScope} from '../scope.js'
import type {ConnectionRecord} from '../state.js'
import {bookingDirectory, hasChannelMessaging, type ConversationBooking} from './bookings.js'
import {messageEvents} from './events.js'
import {sniffImageType} from './images.js'
import {seedConversations} from './seed.js'
import {parseSendRequest, uploadedPhoto} from './send.js'
import {expandShortcodes, type ShortcodeSources} from './shortcodes.js'
import {Conversations, type ConversationsState, type StoredMessage} from './store.js'
import {messageTriggers} from './triggers.js'
import {appUrlOf, messageView, threadStateView, threadView} from './views.js'

const SEND_PATH = '/bookings/:id/messages'
const SEND_URL = API_PREFIX + SEND_PATH

/** How often (real time) due Scheduled Messages are sent and their events raised. */
const TICK_MS = 250

const PLATFORM_BLOCKS = {
  no_messaging: 'The Sales Channel of this booking has no messaging; nothing was sent.',
  no_conversation: 'No conversation exists on the Sales Channel for this booking yet; nothing was sent.',
  disconnected: 'The host must restore the connection to the Sales Channel; nothing was sent.',
} as const

export function registerConversations(ctx: SandboxContext, api: ApiServer, saved: unknown) {
  const state = saved as ConversationsState | undefined
  const seededAt = state?.seeded_at ?? ctx.clock.now()
  const bookings = bookingDirectory(ctx)
  const conversations = state ? new Conversations(state) : seedConversations(ctx.world, bookings, seededAt)
  const {world} = ctx

  /** Sends what is due and raises its events; called on every request and by a timer. */
  const advance = (now = ctx.clock.now()) => {
    for (const message of conversations.advance(now)) {
      const booking = bookings.get(message.booking_id)
      if (booking) messageEvents(ctx, message, booking, goneWith(booking))
    }
  }

  /** A message lives as long as its booking: removed from the service, its messages are gone. */
  const goneWith = (booking: ConversationBooking) => () => bookings.get(booking.id) === undefined

  const bookingInScope = (connection: ConnectionRecord, id: string | undefined): ConversationBooking => {
    const booking = id === undefined ? undefined : bookings.get(id)
    if (!booking || !propertyInScope(world, connection, booking.property_id)) throw notFound('No such booking in the Connection Scope.')
    return booking
  }

  // multipart/form-data for POST messages with photos; parts land in the body as plain values
  api.app.register(fastifyMultipart, {
    attachFieldsToBody: 'keyValues',
    limits: {fileSize: MAX_REQUEST_BODY_BYTES, files: 100},
    async onFile(part) {
      const request = this as unknown as {pmsMultipartBytes?: number}
      let bytes: Buffer
      try {
        bytes = await part.toBuffer()
      } catch {
        throw bodyTooLarge()
      }
      request.pmsMultipartBytes = (request.pmsMultipartBytes ?? 0) + bytes.length
      if (request.pmsMultipartBytes > MAX_REQUEST_BODY_BYTES) throw bodyTooLarge()
      ;(part as unknown as {value: unknown}).value = uploadedPhoto(part.filename, part.mimetype, bytes)
    },
  })

  // only POST messages takes multipart; every other endpoint keeps refusing it as before
  api.app.addHook('preParsing', async (request) => {
    const url = request.routeOptions.url
    if (url !== undefined && url !== SEND_URL && /^multipart\//i.test(request.headers['content-type'] ?? '')) throw unsupportedMediaType()
  })

  api.route({
    method: 'GET',
    url: '/message-threads',
    permission: 'messages.read',
    limitClass: 'read',
    handler({connection, query, now}) {
      advance()
      const limit = parseLimit(query.limit, THREADS_PAGE_SIZE)
      const ids = propertyIdsInScope(query, world, connection)
      const since = parseInstant(query.updated_since, 'updated_since')
      const cursor = decodeCursor(query.cursor, 't1', 3)?.map(Number)
      if (cursor?.some((part) => !Number.isSafeInteger(part))) throw validationFailed([{path: 'cursor', message: 'is not a cursor returned by this endpoint'}])
      // The walk keeps the instant of its first page: every change from then on is at or after it.
      const walkStart = cursor?.[0] ?? now
      const scope = new Set(ids ?? propertiesInScope(world, connection).map((property) => property.id))
      const rows: Array<{key: [number, number]; view: () => unknown}> = []
      for (const thread of Object.values(conversations.state.threads)) {
        const booking = bookings.get(thread.booking_id)
        if (!booking || !scope.has(booking.property_id)) continue
        if (since !== undefined && thread.updated_at < since) continue
        const latest = conversations.latest(thread)
        if (!latest) continue
        const key: [number, number] = [latest.created_at, latest.seq]
        // latest message first: only what sorts after the cursor's position
        if (cursor && !(key[0] < (cursor[1] as number) || (key[0] === cursor[1] && key[1] < (cursor[2] as number)))) continue
        rows.push({key, view: () => threadView(conversations, thread, latest, booking)})
      }
      rows.sort((a, b) => b.key[0] - a.key[0] || b.key[1] - a.key[1])
      const page = rows.slice(0, limit)
      const last = page[page.length - 1]
      return {
        status: 200,
        body: {
          data: page.map((row) => row.view()),
          next_cursor: rows.length > limit && last ? encodeCursor('t1', [walkStart, ...last.key]) : null,
          next_updated_since: new Date(walkStart).toISOString(),
        },
      }
    },
  })

  api.route({
    method: 'GET',
    url: '/bookings/:id/messages',
    permission: 'messages.read',
    limitClass: 'read',
    handler({connection, params, query, headers}) {
      advance()
      const booking = bookingInScope(connection, params.id)
      const limit = parseLimit(query.limit, MESSAGES_PAGE_SIZE)
      const after = Number(decodeCursor(query.cursor, 'm1', 1)?.[0] ?? 0)
      if (!Number.isSafeInteger(after)) throw validationFailed([{path: 'cursor', message: 'is not a cursor returned by this endpoint'}])
      // oldest first; messages are only ever appended, so a position is a sequence number
      const rest = conversations.listed(booking.id).filter((message) => message.seq > after)
      const page = rest.slice(0, limit)
      const last = page[page.length - 1]
      const appUrl = appUrlOf(headers)
      return {
        status: 200,
        body: {data: page.map((message) => messageView(message, appUrl)), next_cursor: rest.length > limit && last ? encodeCursor('m1', [last.seq]) : null},
      }
    },
  })

  api.route({
    method: 'GET',
    url: '/bookings/:id/messages/:message_id/attachments/:index',
    permission: 'messages.read',
    limitClass: 'read',
    handler({connection, params}) {
      advance()
      const booking = bookingInScope(connection, params.id)
      const message = conversations.listed(booking.id).find((candidate) => candidate.id === params.message_id)
      if (!message) throw notFound('No such message in this booking.')
      const index = /^\d+$/.test(params.index ?? '') ? Number(params.index) : -1
      const attachment = message.attachments.find((candidate) => candidate.index === index)
      if (!attachment) throw notFound('No attachment at this index.')
      const {file} = attachment
      if (file.kind === 'not_photo' || file.kind === 'too_large' || file.kind === 'gone') throw notFound(NOT_DOWNLOADABLE[file.kind])
      const unavailable = () => new ApiFailure(502, 'attachment_unavailable', 'The Sales Channel cannot hand over the attachment now; retry with back-off.')
      if (file.kind === 'unavailable') throw unavailable()
      if (ctx.faults.attachment_unavailable > 0 && api.faultRandom.next() < ctx.faults.attachment_unavailable) throw unavailable()
      const bytes = conversations.file(file.file_id)
      if (!bytes) throw notFound(NOT_DOWNLOADABLE.gone)
      const headers = {'content-type': file.content_type, 'cache-control': 'no-store'}
      switch (ctx.faults.attachment_body) {
        case 'oversize':
          return {status: 200, headers, body: oversizeStream(bytes)}
        case 'short':
          return {status: 200, headers: {...headers, 'content-length': String(bytes.length + 1024)}, body: breakingStream(bytes, bytes.length)}
        case 'unframed':
          return {status: 200, headers, body: bytes.subarray(0, Math.max(1, bytes.length >> 1)), unframed: true}
        default:
          // streamed, so without Content-Length, as the service does
          return {status: 200, headers, body: file.kind === 'breaks' ? breakingStream(bytes) : Readable.from([bytes])}
      }
    },
  })

  const shortcodeSources = (booking: ConversationBooking): ShortcodeSources => {
    const property = world.properties.find((candidate) => candidate.id === booking.property_id)
    if (!property) throw notFound('No such booking in the Connection Scope.')
    return {
      booking,
      propertyName: property.name,
      currency: property.currency,
      guide: propertyGuide(world.seed, property),
      doorCode: String(deriveRandom(world.seed, `door:${booking.id}`).int(1000, 999_999)),
    }
  }

  const expand = (text: string, path: string, granted: Set<Permission>, sources: ShortcodeSources): string => {
    const outcome = expandShortcodes(text, granted, sources)
    if (outcome.ok) return outcome.text
    if (outcome.reason === 'not_for_apps') {
      throw validationFailed([{path, message: `the shortcode {{${outcome.shortcode}}} cannot be expanded by Apps`}], 'The message is invalid; nothing was sent.')
    }
    throw new ApiFailure(403, 'forbidden_permission', `The shortcode {{${outcome.shortcode}}} needs the Permission ${outcome.permission}; nothing was sent.`, {
      permission: outcome.permission,
    })
  }

  /** Refusals known before sending (send rule 3): channel_unavailable, missing_guest_contact, sms_billing_unavailable. */
  const checkChannel = (booking: ConversationBooking, channel: string) => {
    const messaging = conversations.state.accounts[booking.account_id] ?? {email_sender: true, sms_billing: true}
    if (channel === 'platform') {
      const block = conversations.state.platform_blocks[booking.id] ?? (hasChannelMessaging(booking) ? undefined : 'no_messaging')
      if (block) throw new ApiFailure(422, 'channel_unavailable', PLATFORM_BLOCKS[block])
    } else if (channel === 'email') {
      if (!messaging.email_sender) throw new ApiFailure(422, 'channel_unavailable', 'The account has no sending address for email; nothing was sent.')
      if (!booking.guest_email) throw new ApiFailure(422, 'missing_guest_contact', 'The guest has no email address; nothing was sent.')
    } else if (channel === 'sms') {
      if (!messaging.sms_billing) throw new ApiFailure(422, 'sms_billing_unavailable', 'The subscription cannot be billed for SMS; nothing was sent, nothing billed.')
      if (!booking.guest_phone) throw new ApiFailure(422, 'missing_guest_contact', 'The guest has no phone number; nothing was sent.')
    }
  }

  api.route({
    method: 'POST',
    url: SEND_PATH,
    permission: 'messages.write',
    limitClass: 'send',
    // Send rule 5: the same key answers what the first request did, the same message or the same
    // refusal (4xx answers are stored under the key and replayed); a 5xx is not stored.
    idempotent: {replayRefusals: true},
    handler({connection, params, body, headers}) {
      advance()
      const booking = bookingInScope(connection, params.id)
      const request = parseSendRequest(body)
      const granted = effectivePermissions(world, connection)
      const sources = shortcodeSources(booking)
      const text = expand(request.text, 'text', granted, sources)
      const subject = request.subject === undefined ? undefined : expand(request.subject, 'subject', granted, sources)
      checkChannel(booking, request.channel)
      const author = {type: 'app' as const, app_name: world.app.name}
      // recorded at the instant of writing (not the start of the request), so that a listing walk
      // that began meanwhile finds the change at or after its next_updated_since
      const outbound = {booking_id: booking.id, direction: 'outbound' as const, author, channel: request.channel, text, at: ctx.clock.now()}
      const emailSubject = request.channel === 'email' ? (subject ?? sources.propertyName) : null
      if (ctx.faults.send_failure > 0 && api.faultRandom.next() < ctx.faults.send_failure) {
        const outcome = ctx.faults.send_failure_outcome
        // fate unknown: the message is in the conversation, pending, until it is rejected a minute later
        if (outcome === 'unknown') conversations.add({...outbound, subject: emailSubject, delivery_status: 'pending'})
        throw new ApiFailure(502, 'delivery_failed', outcome === 'unknown' ? 'The message may or may not have reached the guest; read the conversation first.' : 'The message was not sent; it is safe to send it again.', {
          delivery_outcome: outcome,
        })
      }
      const message = conversations.add({...outbound, subject: emailSubject, delivery_status: 'sent'})
      messageEvents(ctx, message, booking, goneWith(booking))
      // each photo reaches the guest as its own message after the text; a photo the channel
      // refuses (not the image it claims to be) is rejected, and the answer is still 201
      for (const photo of request.photos) {
        const actual = sniffImageType(photo.bytes)
        const photoMessage = conversations.add({
          ...outbound,
          text: '',
          delivery_status: actual ? 'sent' : 'rejected',
          attachments: [
            {index: 0, type: 'image', file_name: photo.file_name, content_type: photo.content_type, file: {kind: 'held', file_id: conversations.storeFile(photo.bytes), content_type: actual ?? photo.content_type}},
          ],
        })
        messageEvents(ctx, photoMessage, booking, goneWith(booking))
      }
      return {status: 201, body: messageView(message, appUrlOf(headers))}
    },
  })

  for (const action of ['close', 'reopen'] as const) {
    api.route({
      method: 'POST',
      url: `/bookings/:id/message-thread/${action}`,
      permission: 'messages.write',
      limitClass: 'write',
      handler({connection, params}) {
        advance()
        const booking = bookingInScope(connection, params.id)
        conversations[action](booking.id, ctx.clock.now())
        return {status: 200, body: threadStateView(conversations, booking.id)}
      },
    })
  }

  // admin: where the seeded conversation cases sit (docs/sandbox.md)
  api.declarePath('GET', '/_sandbox/conversations')
  api.app.get('/_sandbox/conversations', async () => ({cases: conversations.state.cases, accounts: conversations.state.accounts}))

  const timer = setInterval(() => advance(), TICK_MS)
  timer.unref()

  const record = (message: Parameters<Conversations['add']>[0]): {message: StoredMessage; events: SandboxEvent[]} => {
    advance(message.at)
    const stored = conversations.add(message)
    const booking = bookings.get(message.booking_id) as ConversationBooking
    return {message: stored, events: messageEvents(ctx, stored, booking, goneWith(booking))}
  }
  return {
    conversations,
    hooks: {
      triggers: messageTriggers({ctx, bookings, conversations, record}),
      save: (): ConversationsState => conversations.toJSON(),
      close: () => clearInterval(timer),
    },
  }
}

const NOT_DOWNLOADABLE = {
  not_photo: 'This file is not a photo: it cannot be downloaded.',
  too_large: 'This file is announced larger than 10 MB: it cannot be downloaded.',
  gone: 'The Sales Channel no longer holds this file.',
} as const

/** The fault the hosting platform answers itself: a plain 413, not the API's JSON shape (renderApiError). */
function bodyTooLarge(): Error {
  return Object.assign(new Error('Request body is too large'), {code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413})
}

/** What fastify answers for a body type a route does not parse (422 validation_failed, or invalid_request on OAuth). */
function unsupportedMediaType(): Error {
  return Object.assign(new Error('Unsupported Media Type'), {code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415})
}

/** A Sales Channel transfer that breaks: the first half of the file, then the connection ends. */
function breakingStream(bytes: Buffer, upTo = Math.max(1, bytes.length >> 1)): Readable {
  let sent = false
  return new Readable({
    read() {
      if (!sent) {
        sent = true
        this.push(bytes.subarray(0, upTo))
        return
      }
      setTimeout(() => this.destroy(new Error('Sales Channel transfer broke')), 20)
    },
  })
}

export const conversationsFeature: SandboxFeature = {
  name: 'conversations',
  register: (ctx, api, saved) => registerConversations(ctx, api, saved).hooks,
}

/** Fault `oversize`: the file, then zeros on past 10 MB, properly ended: a service that does not cut it. */
function oversizeStream(bytes: Buffer): Readable {
  const chunk = Buffer.alloc(1024 * 1024)
  return Readable.from(
    (function* () {
      yield bytes
      for (let i = 0; i < 11; i++) yield chunk
    })(),
  )
}
