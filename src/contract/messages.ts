import {z} from 'zod'
import {stringOfAtMost} from './characters.js'
import {EMAIL_SUBJECT_MAX_LENGTH, MESSAGE_TEXT_MAX_LENGTH} from './limits.js'
import {component, count, isoDateTime, knownValues, nullableString, openEnum, uuid} from './registry.js'
import {MessageAuthorSchema} from './message-threads.js'

export const MESSAGE_CHANNELS = ['platform', 'email', 'sms'] as const
export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const
export const DELIVERY_STATUSES = ['received', 'pending', 'sent', 'rejected'] as const
export const ATTACHMENT_TYPES = ['image'] as const

/**
 * docs/contract-gaps.md row 6: the moves of delivery_status. `received` (inbound), `sent` and
 * `rejected` are final; the client never infers a move, it shows what it reads.
 */
export const DELIVERY_STATUS_TRANSITIONS: Readonly<Record<(typeof DELIVERY_STATUSES)[number], readonly string[]>> = {
  received: [],
  pending: ['sent', 'rejected'],
  sent: [],
  rejected: [],
}

export const MessageAttachmentSchema = component(
  'MessageAttachment',
  'A downloadable file of a message; files that cannot be downloaded are left out, so indexes may skip.',
  z.looseObject({
    index: count().describe('Position in the message, as in the download URL.'),
    type: openEnum(ATTACHMENT_TYPES).describe(knownValues(ATTACHMENT_TYPES)),
    // Neither is marked required by the contract: a record without them is read as one without a name or type.
    file_name: nullableString().optional(),
    content_type: nullableString().optional().describe('MIME type when known; the download answers with the actual one.'),
    url: z.string().meta({format: 'uri'}).describe('Download URL, called with the access token of the App Connection.'),
  }),
)
export type MessageAttachment = z.infer<typeof MessageAttachmentSchema>

/** `direction`, `channel` and `delivery_status` are not marked required by the contract, so they may be absent. */
export const MessageSchema = component(
  'Message',
  'One message of a conversation.',
  z.looseObject({
    id: uuid(),
    direction: openEnum(MESSAGE_DIRECTIONS).optional().describe('`inbound` (from the guest) or `outbound` (to the guest).'),
    author: MessageAuthorSchema,
    channel: openEnum(MESSAGE_CHANNELS)
      .optional()
      .describe(`${knownValues(MESSAGE_CHANNELS)} platform: messaging of the booking's Sales Channel.`),
    text: z.string(),
    subject: nullableString().describe('Email subject.'),
    attachments: z.array(MessageAttachmentSchema),
    delivery_status: openEnum(DELIVERY_STATUSES)
      .optional()
      .describe(`${knownValues(DELIVERY_STATUSES)} received: inbound; outbound moves pending -> sent or pending -> rejected.`),
    sent_at: isoDateTime(),
    created_at: isoDateTime().describe('When the service recorded the message; the list is sorted on it.'),
  }),
)
export type Message = z.infer<typeof MessageSchema>

export const MessagesPageSchema = component(
  'MessagesPage',
  'A page of a conversation, oldest first.',
  z.looseObject({
    data: z.array(MessageSchema),
    next_cursor: z.string().nullable(),
  }),
)
export type MessagesPage = z.infer<typeof MessagesPageSchema>

export const SendMessageRequestSchema = component(
  'SendMessageRequest',
  'A message to the guest (JSON, or multipart/form-data with up to 5 `photos` parts on `platform`).',
  z
    .object({
      channel: z.enum(MESSAGE_CHANNELS),
      text: stringOfAtMost(MESSAGE_TEXT_MAX_LENGTH, {min: 1}).describe('Shortcodes inside need the matching read Permission.'),
      subject: stringOfAtMost(EMAIL_SUBJECT_MAX_LENGTH)
        .optional()
        .describe('Email only; without it the email takes the name of the Property.'),
    })
    .refine((request) => request.subject === undefined || request.channel === 'email', {
      message: 'subject is for the email channel only',
      path: ['subject'],
    }),
)
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>
