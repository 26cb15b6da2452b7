import {z} from 'zod'
import {EVENT_TYPES, type EventType, type Permission} from './error-codes.js'
import {component, isoDateTime, openEnum, uuid} from './registry.js'

/**
 * `data` says what changed and where, never the data. Booking events: `{object: "booking", id}`;
 * message events: `{id: <message_id>, booking_id, property_id}`; docs/contract-gaps.md row 13 for
 * `app_connection.*` (`{object: "app_connection", id}`) and `restriction_batch.completed`
 * (`{object: "restriction_batch", id, status}`). The contract shows no `data` of those types, so
 * even `id` is optional.
 */
export const WebhookEventDataSchema = component(
  'WebhookEventData',
  'What changed and where.',
  z.looseObject({
    object: z.string().optional(),
    id: z.string().optional(),
    booking_id: z.string().optional(),
    property_id: z.string().optional(),
    status: z.string().optional(),
  }),
)
export type WebhookEventData = z.infer<typeof WebhookEventDataSchema>

export const WebhookPayloadSchema = component(
  'WebhookPayload',
  'Body of an App Event, signed with the Standard Webhooks scheme (headers webhook-id, webhook-timestamp, webhook-signature).',
  z.looseObject({
    id: uuid().describe('Equals the webhook-id header; deduplicate on it.'),
    type: openEnum(EVENT_TYPES).describe(`Known values: ${EVENT_TYPES.join(', ')}.`),
    created_at: isoDateTime(),
    connection_id: z.string(),
    account_id: z.string(),
    data: WebhookEventDataSchema,
  }),
)
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>

/**
 * What a receiver requires of a signed body before it stores and passes it on: the envelope's `id`,
 * `type` and `created_at`. Everything else (the account and connection, `data` of any shape, types
 * not known yet) is kept as it came, so that a service naming things otherwise never loses an event
 * that was signed correctly.
 */
export const WebhookEnvelopeSchema = component(
  'WebhookEnvelope',
  'What a receiver requires of a signed App Event: id, type and created_at; every other field is kept as sent.',
  z.looseObject({
    id: z.string().min(1),
    type: z.string().min(1),
    created_at: z.string().min(1),
  }),
)
export type WebhookEnvelope = z.infer<typeof WebhookEnvelopeSchema>

/**
 * The "Needs" column of the Events table: the Permission a connection must hold to hear the event.
 * Booking and message events also need the event's Property in the Property Access.
 */
export const EVENT_PERMISSIONS: Readonly<Partial<Record<EventType, Permission>>> = {
  'booking.created': 'bookings.read',
  'booking.updated': 'bookings.read',
  'booking.cancelled': 'bookings.read',
  'message.received': 'messages.read',
  'message.sent': 'messages.read',
}
