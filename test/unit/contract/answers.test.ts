import {describe, expect, it} from 'vitest'
import {
  ApiErrorBodySchema,
  BatchReportSchema,
  MessageSchema,
  MessageThreadSchema,
  OAuthErrorBodySchema,
  PropertiesPageSchema,
  RestrictionBatchAcceptedSchema,
  RestrictionBatchPreviewSchema,
  TokenResponseSchema,
  WebhookPayloadSchema,
} from '../../../src/contract/index.js'
import {attachmentFileName} from '../../../src/messages/service.js'

const PROPERTY_ID = '6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01'
const BOOKING_ID = '8e2a1c4b-3d5f-4a6b-9c7d-1e2f3a4b5c6d'
const MESSAGE_ID = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d'

const property = {id: PROPERTY_ID, name: 'Harbour Loft', currency: 'EUR', timezone: 'Europe/Lisbon', pricing_modifiers: []}

const message = {
  id: MESSAGE_ID,
  direction: 'outbound',
  author: {type: 'app', app_name: 'Rates Pro'},
  channel: 'platform',
  text: 'Welcome!',
  subject: null,
  attachments: [
    {index: 0, type: 'image', file_name: 'door.jpg', content_type: 'image/jpeg', url: `https://app.example.com/api/v1/bookings/${BOOKING_ID}/messages/${MESSAGE_ID}/attachments/0`},
  ],
  delivery_status: 'sent',
  sent_at: '2026-11-22T10:00:00.000Z',
  created_at: '2026-11-22T10:00:00.000Z',
}

describe('versioning rule 3: answers parse tolerantly', () => {
  it('unknown fields never break parsing and are kept, at every level', () => {
    const parsed = PropertiesPageSchema.parse({
      data: [{...property, floor_area: 42, pricing_modifiers: [{sales_channel: 'website', name: 'Website', percent: 5, since: '2026'}]}],
      next_cursor: null,
      total: 1,
    })
    expect(parsed).toMatchObject({total: 1, data: [{floor_area: 42, pricing_modifiers: [{since: '2026'}]}]})
  })

  it('unknown enum values of a message pass through as strings (channel, delivery_status, author type, attachment type, direction)', () => {
    const parsed = MessageSchema.parse({
      ...message,
      direction: 'internal',
      channel: 'whatsapp',
      delivery_status: 'read',
      author: {type: 'co_host'},
      attachments: [{...message.attachments[0], type: 'video'}],
    })
    expect(parsed.channel).toBe('whatsapp')
    expect(parsed.delivery_status).toBe('read')
    expect(parsed.author.type).toBe('co_host')
    expect(parsed.attachments[0]?.type).toBe('video')
    expect(parsed.direction).toBe('internal')
  })

  it('a message still needs its required fields: a missing text is refused', () => {
    const {text: _text, ...withoutText} = message
    expect(MessageSchema.safeParse(withoutText).success).toBe(false)
  })

  it('direction, channel and delivery_status may be absent: the contract does not mark them required', () => {
    const {direction: _d, channel: _c, delivery_status: _s, ...bare} = message
    expect(MessageSchema.safeParse(bare).success).toBe(true)
  })

  it('an attachment without file_name and content_type parses (the contract marks neither required) and is saved under a name of its own', () => {
    const {file_name: _name, content_type: _type, ...nameless} = message.attachments[0]!
    const parsed = MessageSchema.parse({...message, attachments: [nameless]})
    expect(parsed.attachments[0]).toMatchObject({index: 0, type: 'image'})
    expect(attachmentFileName(MESSAGE_ID, parsed.attachments[0]!)).toBe('1a2b3c4d-0')
  })

  it('unknown batch statuses parse in the accepted answer and the report', () => {
    expect(RestrictionBatchAcceptedSchema.parse({id: BOOKING_ID, status: 'throttled'}).status).toBe('throttled')
    const report = BatchReportSchema.parse({
      id: BOOKING_ID,
      status: 'archived',
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:00.000Z',
      completed_at: null,
      changes: {submitted: 1, pending: 1, applied: 0, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0, deferred: 0},
      properties: [],
    })
    expect(report.status).toBe('archived')
    expect(report.changes).toMatchObject({deferred: 0})
  })

  it('unknown field names and refusal reasons in a preview parse', () => {
    const preview = RestrictionBatchPreviewSchema.parse({
      dry_run: true,
      properties: [
        {
          property_id: PROPERTY_ID,
          changes: {submitted: 1, changed: 0, unchanged: 0, refused: 1},
          changed: [],
          refused_fields: [{field: 'max_stay', reason: 'season_locked', from: '2026-12-01', to: '2026-12-02'}],
        },
      ],
    })
    expect(preview.properties[0]?.refused_fields[0]).toMatchObject({field: 'max_stay', reason: 'season_locked'})
  })

  it('an unknown error code parses with its message and details kept', () => {
    const body = ApiErrorBodySchema.parse({
      error: {code: 'quota_exhausted', message: 'Try tomorrow', details: {quota: 'daily', issues: [{path: 'x', message: 'y'}]}, hint: 'new'},
    })
    expect(body.error.code).toBe('quota_exhausted')
    expect(body.error.details).toMatchObject({quota: 'daily'})
    expect(body.error).toMatchObject({hint: 'new'})
  })

  it('the error details of the contract parse: issues with maximum, property_ids, retry_after_seconds, delivery_outcome', () => {
    const body = ApiErrorBodySchema.parse({
      error: {
        code: 'validation_failed',
        message: 'invalid',
        details: {issues: [{path: 'property_id[]', message: 'too many', maximum: 100}], property_ids: [PROPERTY_ID], retry_after_seconds: 12, delivery_outcome: 'not_sent'},
      },
    })
    expect(body.error.details?.issues?.[0]?.maximum).toBe(100)
    expect(body.error.details?.retry_after_seconds).toBe(12)
  })

  it('an error body without code is not the contract shape and is refused', () => {
    expect(ApiErrorBodySchema.safeParse({error: {message: 'x'}}).success).toBe(false)
    expect(ApiErrorBodySchema.safeParse({message: 'x'}).success).toBe(false)
  })

  it('unknown OAuth error values and extra token fields parse', () => {
    expect(OAuthErrorBodySchema.parse({error: 'slow_down', error_description: 'wait'}).error).toBe('slow_down')
    expect(OAuthErrorBodySchema.parse({error: 'invalid_grant'}).error).toBe('invalid_grant')
    const token = TokenResponseSchema.parse({access_token: 'a', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r', scope: 'properties.read'})
    expect(token).toMatchObject({scope: 'properties.read'})
  })

  it('unknown event types and data fields of a webhook payload parse', () => {
    const payload = WebhookPayloadSchema.parse({
      id: MESSAGE_ID,
      type: 'review.created',
      created_at: '2026-11-22T10:00:00.000Z',
      connection_id: 'c',
      account_id: 'a',
      data: {object: 'review', id: 'r1', rating: 5},
    })
    expect(payload.type).toBe('review.created')
    expect(payload.data).toMatchObject({rating: 5})
  })

  it('instants with an offset parse as well as UTC ones', () => {
    const thread = MessageThreadSchema.parse({
      booking_id: BOOKING_ID,
      property_id: PROPERTY_ID,
      sales_channel: {code: 'airbnb', name: 'Airbnb'},
      latest_message: {id: MESSAGE_ID, preview: 'Hi', author: {type: 'guest'}, created_at: '2026-11-22T11:00:00+01:00', attachments_count: 0},
      unread_count: 1,
      is_closed: false,
      updated_at: '2026-11-22T10:00:00Z',
    })
    expect(thread.latest_message.created_at).toBe('2026-11-22T11:00:00+01:00')
  })

  it('a negative unread_count is refused (the contract says integer >= 0)', () => {
    expect(
      MessageThreadSchema.safeParse({
        booking_id: BOOKING_ID,
        property_id: PROPERTY_ID,
        sales_channel: {code: 'airbnb', name: 'Airbnb'},
        latest_message: {id: MESSAGE_ID, preview: 'Hi', author: {type: 'guest'}, created_at: '2026-11-22T10:00:00Z', attachments_count: 0},
        unread_count: -1,
        is_closed: false,
        updated_at: '2026-11-22T10:00:00Z',
      }).success,
    ).toBe(false)
  })
})
