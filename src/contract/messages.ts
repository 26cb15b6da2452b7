import {z} from 'zod'
import {SalesChannelRefSchema} from './common.js'
import {stringOfAtMost} from './characters.js'
import {EMAIL_SUBJECT_MAX_LENGTH, MESSAGE_TEXT_MAX_LENGTH} from './limits.js'
import {component, count, isoDateTime, nullableString, openEnum, uuid} from './registry.js'

export const AUTHOR_TYPES = ['guest', 'host', 'assistant', 'automation', 'app'] as const
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

const known = (values: readonly string[]) => `Known values: ${values.join(', ')}. Version 1 may add values.`

export const MessageAuthorSchema = component(
  'MessageAuthor',
  'Who wrote a message; never a guest contact nor the name of a team member.',
  z.looseObject({
    type: openEnum(AUTHOR_TYPES).describe(
      `${known(AUTHOR_TYPES)} guest: inbound; host: the host or a team member; assistant: the assistant of the service; automation: a Scheduled Message; app: an App.`,
    ),
    app_name: z.string().optional().describe('Present when type is `app`.'),
  }),
)
export type MessageAuthor = z.infer<typeof MessageAuthorSchema>

export const MessageAttachmentSchema = component(
  'MessageAttachment',
  'A downloadable file of a message; files that cannot be downloaded are left out, so indexes may skip.',
  z.looseObject({
    index: count().describe('Position in the message, as in the download URL.'),
    type: openEnum(ATTACHMENT_TYPES).describe(known(ATTACHMENT_TYPES)),
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
      .describe(`${known(MESSAGE_CHANNELS)} platform: messaging of the booking's Sales Channel.`),
    text: z.string(),
    subject: nullableString().describe('Email subject.'),
    attachments: z.array(MessageAttachmentSchema),
    delivery_status: openEnum(DELIVERY_STATUSES)
      .optional()
      .describe(`${known(DELIVERY_STATUSES)} received: inbound; outbound moves pending -> sent or pending -> rejected.`),
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

export const LatestMessageSchema = component(
  'LatestMessage',
  'The latest message of a thread (a Scheduled Message not yet sent never is).',
  z.looseObject({
    id: uuid(),
    preview: z.string().describe('First 200 characters of the message text, as written.'),
    author: MessageAuthorSchema,
    created_at: isoDateTime(),
    attachments_count: count(),
  }),
)
export type LatestMessage = z.infer<typeof LatestMessageSchema>

export const MessageThreadSchema = component(
  'MessageThread',
  'The conversation of one booking.',
  z.looseObject({
    booking_id: uuid(),
    property_id: uuid(),
    sales_channel: SalesChannelRefSchema,
    latest_message: LatestMessageSchema,
    unread_count: count().describe('Messages not read in the service yet.'),
    is_closed: z.boolean().describe('Closed once its latest message is read; a new guest message reopens it.'),
    updated_at: isoDateTime().describe('Last change: message added, changed or removed, or read state change.'),
  }),
)
export type MessageThread = z.infer<typeof MessageThreadSchema>

export const MessageThreadsPageSchema = component(
  'MessageThreadsPage',
  'A page of Message Threads, latest message first. After the last page, pass `next_updated_since` as `updated_since`.',
  z.looseObject({
    data: z.array(MessageThreadSchema),
    next_cursor: z.string().nullable(),
    next_updated_since: isoDateTime(),
  }),
)
export type MessageThreadsPage = z.infer<typeof MessageThreadsPageSchema>

export const MessageThreadStateSchema = component(
  'MessageThreadState',
  'Answer of close and reopen.',
  z.looseObject({
    booking_id: uuid(),
    is_closed: z.boolean(),
    unread_count: count(),
  }),
)
export type MessageThreadState = z.infer<typeof MessageThreadStateSchema>

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
