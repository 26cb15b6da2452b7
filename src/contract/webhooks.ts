import {z} from 'zod'
import {EVENT_TYPES} from './error-codes.js'
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
