/**
 * The Message Threads of the contract (a booking's conversation as the list of threads shows it),
 * and the author of a message, which a thread's latest message names too. Apart from the messages
 * themselves (messages.ts), so that a list of threads builds only these schemas.
 */
import {z} from 'zod'
import {SalesChannelRefSchema} from './common.js'
import {component, count, isoDateTime, knownValues, openEnum, uuid} from './registry.js'

export const AUTHOR_TYPES = ['guest', 'host', 'assistant', 'automation', 'app'] as const

export const MessageAuthorSchema = component(
  'MessageAuthor',
  'Who wrote a message; never a guest contact nor the name of a team member.',
  z.looseObject({
    type: openEnum(AUTHOR_TYPES).describe(
      `${knownValues(AUTHOR_TYPES)} guest: inbound; host: the host or a team member; assistant: the assistant of the service; automation: a Scheduled Message; app: an App.`,
    ),
    app_name: z.string().optional().describe('Present when type is `app`.'),
  }),
)
export type MessageAuthor = z.infer<typeof MessageAuthorSchema>

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

