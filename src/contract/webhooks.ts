import {z} from 'zod'
import {EVENT_TYPES, type EventType, type Permission} from './error-codes.js'
import {component, isoDateTime, openEnum, uuid} from './registry.js'

/**
 * `data` says what changed and where, never the data. Booking events: `{object: "booking", id}`;
 * message events: `{id: <message_id>, booking_id, property_id}`; docs/contract-gaps.md row 13 for
 * `app_connection.*` (`{object: "app_connection", id}`) and `restriction_batch.completed`
 * (`{object: "restriction_batch", id, status}`).
 */
export const WebhookEventDataSchema = component(
  'WebhookEventData',
  'What changed and where.',
  z.looseObject({
    object: z.string().optional(),
    id: z.string(),
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
