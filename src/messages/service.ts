/** The calls behind pms messages: each reads or writes through the client and answers plain data. */
import {join} from 'node:path'
import {PmsError, UsageError} from '../errors.js'
import {ApiError} from '../client/errors.js'
import type {PmsClient} from '../client/index.js'
import type {Message, MessageAttachment} from '../contract/messages.js'
import type {MessageThread, MessageThreadState} from '../contract/message-threads.js'
import {shellCommand} from '../text/shell.js'
import {FileExistsError, streamToFile} from './download.js'
import {latestFirst, type ConversationView} from './conversation.js'
import {assertUuid} from '../client/ids.js'
import {readBooking} from '../contract/booking-fields.js'

/**
 * Booking and message ids are uuids: anything else is refused before it costs a call. A message id
 * is checked with the (already checked) booking it belongs to, so that the advice names it.
 */
export function assertId(id: string, what: 'booking' | {messageOf: string}): void {
  assertUuid(id, what === 'booking' ? 'booking' : 'message', what === 'booking' ? 'copy the booking id from pms messages threads' : `copy the message id from ${readCommand(what.messageOf)}`)
}

/** The command that shows a booking's conversation, message ids and attachment indexes. */
function readCommand(bookingId: string): string {
  return shellCommand(['pms', 'messages', 'read', bookingId])
}

export interface ThreadsQuery {
  unread: boolean
  propertyIds?: string[]
  since?: string
  limit?: number
}

export async function listThreads(client: PmsClient, query: ThreadsQuery): Promise<MessageThread[]> {
  const all: MessageThread[] = []
  for await (const thread of client.messageThreads.list({propertyIds: query.propertyIds, updatedSince: query.since})) all.push(thread)
  const threads = latestFirst(all).filter((t) => !query.unread || t.unread_count > 0)
  return query.limit === undefined ? threads : threads.slice(0, query.limit)
}

export async function conversation(client: PmsClient, bookingId: string): Promise<Message[]> {
  assertId(bookingId, 'booking')
  const messages: Message[] = []
  try {
    for await (const message of client.messages.list(bookingId, {limit: 500})) messages.push(message)
  } catch (error) {
    throw bookingNotFound(error, bookingId)
  }
  return messages
}

/** What the heading of a conversation says about its booking, as far as the reads allow. */
export interface BookingContext {
  time_zone: string
  property?: string
  guest?: string
  check_in?: string
  check_out?: string
}

/**
 * The Property's time zone and name, in a bounded number of reads: no endpoint maps a booking to
 * its Property, but the booking's thread names it, and the thread changed when its latest message
 * came. So one page of the threads changed since then (`updated_since`, 500 a page, latest first:
 * the booking's thread is on it unless more than 500 threads changed since), one GET of the
 * Property, and one page of that Property's bookings for the guest and the stay. Three reads at
 * most; what is not found that way, or a read refused (a Permission the App lacks), is left out,
 * and times are then shown in UTC, which the heading says.
 */
export async function bookingContext(client: PmsClient, bookingId: string, latestMessageAt: string): Promise<BookingContext> {
  const context: BookingContext = {time_zone: 'UTC'}
  try {
    for await (const page of client.messageThreads.pages({updatedSince: latestMessageAt, limit: 500})) {
      const thread = page.data.find((candidate) => candidate.booking_id === bookingId)
      if (!thread) break
      const property = await client.properties.get(thread.property_id)
      Object.assign(context, {time_zone: property.timezone, property: property.name})
      for await (const bookings of client.bookings.pages({propertyIds: [thread.property_id], limit: 500})) {
        const found = bookings.data.map(readBooking).find((booking) => booking.id === bookingId)
        if (found) Object.assign(context, {guest: found.guest_name ?? undefined, check_in: found.check_in ?? undefined, check_out: found.check_out ?? undefined})
        break
      }
      break
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
  }
  return context
}

export async function readConversation(client: PmsClient, bookingId: string): Promise<ConversationView> {
  const messages = await conversation(client, bookingId)
  const latest = messages.at(-1)
  const context = latest === undefined ? {time_zone: 'UTC'} : await bookingContext(client, bookingId, latest.created_at)
  return {booking_id: bookingId, ...context, messages}
}

export async function changeThread(client: PmsClient, bookingId: string, action: 'close' | 'reopen'): Promise<MessageThreadState> {
  assertId(bookingId, 'booking')
  try {
    return await (action === 'close' ? client.messageThreads.close(bookingId) : client.messageThreads.reopen(bookingId))
  } catch (error) {
    throw bookingNotFound(error, bookingId)
  }
}

export interface SavedAttachment {
  message_id: string
  index: number
  file: string
  bytes: number
}

/** An attachment whose file was there already: left as it is. */
export interface KeptAttachment {
  message_id: string
  index: number
  file: string
}

export interface FailedAttachment {
  message_id: string
  index: number
  code: string
  error: string
}

/**
 * The file of one attachment, by its `url`, written whole or not at all. A file of that name is
 * kept (UsageError `file_exists`) unless `replace`.
 */
export async function downloadAttachment(client: PmsClient, attachment: MessageAttachment, file: string, options: {replace?: boolean} = {}): Promise<number> {
  const download = await client.messages.attachmentAt(attachment.url)
  try {
    return await streamToFile(download.body, file, options)
  } catch (error) {
    if (error instanceof FileExistsError) throw fileExists(file)
    throw error
  }
}

function fileExists(file: string): UsageError {
  return new UsageError(`${file} exists already; nothing was downloaded`, {code: 'file_exists', suggestion: 'pass --force to replace it, or -o to name another file'})
}

export function findAttachment(messages: Message[], bookingId: string, messageId: string, index: number): MessageAttachment {
  const message = messages.find((m) => m.id === messageId)
  if (!message) {
    throw new UsageError(`Message ${messageId} is not in this booking's conversation`, {
      code: 'invalid_argument',
      suggestion: `copy the message id shown beside the attachment by ${readCommand(bookingId)}`,
    })
  }
  const attachment = message.attachments.find((a) => a.index === index)
  if (!attachment) {
    const indexes = message.attachments.map((a) => a.index).join(', ') || 'none'
    throw new UsageError(`Message ${messageId} has no attachment ${index} (its attachments: ${indexes})`, {
      code: 'invalid_argument',
      suggestion: `use an index shown in brackets by ${readCommand(bookingId)}`,
    })
  }
  return attachment
}

/**
 * Every attachment of the conversation into `dir`; a failed one is reported and leaves no file. A
 * file of the same name is kept as it is, never replaced: saving twice downloads nothing new.
 */
export async function saveAttachments(
  client: PmsClient,
  messages: Message[],
  dir: string,
): Promise<{saved: SavedAttachment[]; kept: KeptAttachment[]; failed: FailedAttachment[]}> {
  const saved: SavedAttachment[] = []
  const kept: KeptAttachment[] = []
  const failed: FailedAttachment[] = []
  for (const message of messages) {
    for (const attachment of message.attachments) {
      const file = join(dir, attachmentFileName(message.id, attachment))
      const where = {message_id: message.id, index: attachment.index, file}
      try {
        if (await exists(file)) kept.push(where)
        else saved.push({...where, bytes: await downloadAttachment(client, attachment, file)})
      } catch (error) {
        if (!(error instanceof PmsError)) throw error
        if (error.code === 'file_exists') kept.push(where)
        else failed.push({message_id: message.id, index: attachment.index, code: error.code, error: error.message})
      }
    }
  }
  return {saved, kept, failed}
}

async function exists(file: string): Promise<boolean> {
  const {stat} = await import('node:fs/promises')
  return stat(file).then(
    () => true,
    () => false,
  )
}

const EXTENSIONS: Record<string, string> = {'image/jpeg': '.jpg', 'image/png': '.png', 'image/webp': '.webp', 'image/avif': '.avif', 'image/gif': '.gif', 'image/heic': '.heic'}

/**
 * Unique per message and index; the guest's file name only as a tail stripped of path separators,
 * and an extension from the content type when the name has none (a nameless PNG opens as one).
 */
export function attachmentFileName(messageId: string, attachment: MessageAttachment): string {
  const name = (attachment.file_name ?? '').replace(/[/\\\0]/g, '_').replace(/^\.+/, '')
  const extension = /\.[A-Za-z0-9]{1,5}$/.test(name) ? '' : (EXTENSIONS[(attachment.content_type ?? '').split(';')[0]!.trim().toLowerCase()] ?? '')
  return `${messageId.slice(0, 8)}-${attachment.index}${name ? '-' + name : ''}${extension}`
}

function bookingNotFound(error: unknown, bookingId: string): unknown {
  if (!(error instanceof ApiError) || error.code !== 'not_found') return error
  return error.retold({message: `Booking ${bookingId} was not found in the Connection Scope`, suggestion: 'check the id with pms messages threads: a booking outside the Property Access looks missing too'})
}

/** --save-attachments names an existing directory: checked before any call. */
export async function assertDirectory(dir: string): Promise<void> {
  const {stat} = await import('node:fs/promises')
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  )
  if (!isDir) throw new UsageError(`--save-attachments ${dir} is not a directory`, {suggestion: `create it first (mkdir -p ${dir})`})
}

/** A download never replaces a file silently: checked before the call, and --force says otherwise. */
export async function assertNewFile(file: string, force: boolean): Promise<void> {
  if (!force && (await exists(file))) throw fileExists(file)
}
