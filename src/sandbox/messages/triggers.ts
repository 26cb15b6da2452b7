/**
 * Triggers of POST /_sandbox/events that make conversations move as a guest, the host, the
 * assistant or the automation of the service would: `guest_message`, `host_message`,
 * `assistant_message`, `automation_message` and `message_read` (docs/sandbox.md).
 */
import {characterCount} from '../../contract/characters.js'
import {MESSAGE_TEXT_MAX_LENGTH} from '../../contract/limits.js'
import {MESSAGE_CHANNELS} from '../../contract/messages.js'
import type {SandboxContext} from '../context.js'
import type {SandboxEvent} from '../events.js'
import type {TriggerResult} from '../feature.js'
import {notFound, validationFailed, type ValidationIssue} from '../http.js'
import type {BookingDirectory} from './bookings.js'
import {solidPng} from './images.js'
import type {AuthorType, Channel, Conversations, NewMessage, StoredMessage} from './store.js'

interface TriggerParts {
  ctx: SandboxContext
  bookings: BookingDirectory
  conversations: Conversations
  record(message: NewMessage): {message: StoredMessage; events: SandboxEvent[]}
}

const DEFAULT_TEXT: Record<Exclude<AuthorType, 'app'>, string> = {
  guest: 'Hello! Could you tell me where to park?',
  host: 'Hi! Parking is free in the courtyard.',
  assistant: 'Hello! Parking is free in the courtyard; the gate opens with your door code.',
  automation: 'Your stay starts tomorrow: here is how to find us.',
}

interface TriggerBody {
  booking_id: string
  text: string | undefined
  channel: Channel
  photo: boolean
}

function parseBody(body: unknown, parts: TriggerParts, fields: ReadonlyArray<keyof TriggerBody>): TriggerBody {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  const issues: ValidationIssue[] = []
  const fallback = parts.conversations.state.cases.thread
  const bookingId = input.booking_id ?? fallback
  if (typeof bookingId !== 'string') issues.push({path: 'booking_id', message: 'must be the id of a booking of the sandbox'})
  const text = input.text
  if (fields.includes('text') && text !== undefined && (typeof text !== 'string' || text.length === 0 || characterCount(text) > MESSAGE_TEXT_MAX_LENGTH)) {
    issues.push({path: 'text', message: `must be a string of 1 to ${MESSAGE_TEXT_MAX_LENGTH} characters`, maximum: MESSAGE_TEXT_MAX_LENGTH})
  }
  const channel = input.channel ?? 'platform'
  if (fields.includes('channel') && !(MESSAGE_CHANNELS as readonly unknown[]).includes(channel)) issues.push({path: 'channel', message: `must be one of ${MESSAGE_CHANNELS.join(', ')}`})
  const photo = input.photo ?? false
  if (fields.includes('photo') && typeof photo !== 'boolean') issues.push({path: 'photo', message: 'must be a boolean'})
  if (fields.includes('photo') && photo === true && channel !== 'platform') issues.push({path: 'photo', message: 'photos come on the platform channel only'})
  for (const key of Object.keys(input)) {
    if (!(fields as readonly string[]).includes(key)) issues.push({path: key, message: `unknown field ${key}`})
  }
  if (issues.length > 0) throw validationFailed(issues, 'The trigger body is invalid.')
  if (parts.bookings.get(bookingId as string) === undefined) throw notFound(`No booking ${String(bookingId)}.`)
  return {booking_id: bookingId as string, text: text as string | undefined, channel: channel as Channel, photo: photo === true}
}

export function messageTriggers(parts: TriggerParts): Record<string, (body: unknown) => TriggerResult> {
  const {ctx, conversations} = parts
  const message = (type: Exclude<AuthorType, 'app'>) => (body: unknown): TriggerResult => {
    const fields = type === 'guest' ? (['booking_id', 'text', 'channel', 'photo'] as const) : (['booking_id', 'text', 'channel'] as const)
    const input = parseBody(body, parts, fields)
    const attachments = input.photo
      ? [{index: 0, type: 'image', file_name: 'guest-photo.png', content_type: 'image/png', file: {kind: 'held' as const, file_id: conversations.storeFile(solidPng(8, 8, [90, 140, 220])), content_type: 'image/png'}}]
      : []
    const inbound = type === 'guest'
    const {message: made, events} = parts.record({
      booking_id: input.booking_id,
      direction: inbound ? 'inbound' : 'outbound',
      author: {type},
      channel: input.channel,
      text: input.text ?? DEFAULT_TEXT[type],
      subject: input.channel === 'email' && !inbound ? 'About your stay' : null,
      attachments,
      delivery_status: inbound ? 'received' : 'sent',
      at: ctx.clock.now(),
    })
    return {events, message_id: made.id, booking_id: input.booking_id}
  }
  return {
    guest_message: message('guest'),
    host_message: message('host'),
    assistant_message: message('assistant'),
    automation_message: message('automation'),
    // the host reads the conversation in the service: every message read; no App Event (read-state table)
    message_read(body) {
      const input = parseBody(body, parts, ['booking_id'])
      conversations.close(input.booking_id, ctx.clock.now())
      return {events: [], booking_id: input.booking_id, ...conversations.readState(input.booking_id)}
    },
  }
}
