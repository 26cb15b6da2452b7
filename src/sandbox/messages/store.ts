/**
 * The conversations of the sandbox: one thread per booking with messages, read states, Scheduled
 * Messages waiting for their time, outbound messages waiting for a confirmation, and the files of
 * attachments. Plain JSON-able data (kept in --state); the routes in feature.ts read and move it.
 *
 * Read state (docs/contract-gaps.md M2): each message is read or unread; `unread_count` counts
 * the unread listed messages and a thread `is_closed` when its latest message is read. A guest
 * message arrives unread (it reopens the thread); a host or App message is a reply that reads the
 * conversation; an assistant or automation message keeps the state the thread had.
 */
import {randomUUID} from 'node:crypto'

export type AuthorType = 'guest' | 'host' | 'assistant' | 'automation' | 'app'
export type Channel = 'platform' | 'email' | 'sms'
export type DeliveryStatus = 'received' | 'pending' | 'sent' | 'rejected'

export interface StoredAuthor {
  type: AuthorType
  app_name?: string
}

/** What a download of an attachment meets. */
export type FileSpec =
  | {kind: 'held'; file_id: string; content_type: string}
  /** The Sales Channel transfer breaks after the first bytes. */
  | {kind: 'breaks'; file_id: string; content_type: string}
  /** The Sales Channel no longer holds the file: 404. */
  | {kind: 'gone'}
  /** The Sales Channel cannot hand the file over now: 502 attachment_unavailable. */
  | {kind: 'unavailable'}
  /** Not a photo, or announced over 10 MB: left out of `attachments` (indexes skip) and 404. */
  | {kind: 'not_photo'}
  | {kind: 'too_large'}

export interface StoredAttachment {
  index: number
  type: string
  file_name: string | null
  /** As announced (null when unknown); the download answers with the actual type. */
  content_type: string | null
  file: FileSpec
}

export interface StoredMessage {
  id: string
  /** Order of recording, unique over the sandbox: messages and threads are paged on it. */
  seq: number
  booking_id: string
  direction: 'inbound' | 'outbound'
  author: StoredAuthor
  channel: Channel
  text: string
  subject: string | null
  attachments: StoredAttachment[]
  delivery_status: DeliveryStatus
  sent_at: number
  created_at: number
  read: boolean
  /** An unsent Scheduled Message: not listed, never the latest, sent at this instant. */
  scheduled_for?: number
  /** A `pending` outbound message becomes `rejected` when still unconfirmed at this instant. */
  confirm_by?: number
}

export interface ThreadRecord {
  booking_id: string
  /** In `seq` order; unsent Scheduled Messages included (not listed). */
  messages: StoredMessage[]
  updated_at: number
}

/** Why `platform` cannot reach the guest of a booking (contract: channel_unavailable). */
export type PlatformBlock = 'no_messaging' | 'no_conversation' | 'disconnected'

export interface AccountMessaging {
  /** The account has a sending address for email. */
  email_sender: boolean
  /** The subscription can be billed for SMS. */
  sms_billing: boolean
}

export interface ConversationsState {
  seeded_at: number
  seq: number
  threads: Record<string, ThreadRecord>
  /** Attachment bytes, base64. */
  files: Record<string, string>
  /** Bookings whose `platform` messaging is blocked beyond what their Sales Channel says. */
  platform_blocks: Record<string, PlatformBlock>
  accounts: Record<string, AccountMessaging>
  /** Where the seeded cases sit (GET /_sandbox/conversations). */
  cases: Record<string, unknown>
}

/** An unconfirmed outbound message is rejected after a minute (contract: delivery_status). */
export const CONFIRMATION_WINDOW_MS = 60_000

export interface NewMessage {
  booking_id: string
  direction: 'inbound' | 'outbound'
  author: StoredAuthor
  channel: Channel
  text: string
  subject?: string | null
  attachments?: StoredAttachment[]
  delivery_status: DeliveryStatus
  at: number
  scheduled_for?: number
}

export const isListed = (message: StoredMessage): boolean => message.scheduled_for === undefined
export const isListedAttachment = (attachment: StoredAttachment): boolean => attachment.file.kind !== 'not_photo' && attachment.file.kind !== 'too_large'

export class Conversations {
  private readonly fileCache = new Map<string, Buffer>()

  constructor(readonly state: ConversationsState) {}

  static empty(seededAt: number): Conversations {
    return new Conversations({seeded_at: seededAt, seq: 0, threads: {}, files: {}, platform_blocks: {}, accounts: {}, cases: {}})
  }

  thread(bookingId: string): ThreadRecord | undefined {
    return this.state.threads[bookingId]
  }

  listed(bookingId: string): StoredMessage[] {
    return (this.state.threads[bookingId]?.messages ?? []).filter(isListed)
  }

  latest(thread: ThreadRecord): StoredMessage | undefined {
    for (let i = thread.messages.length - 1; i >= 0; i--) {
      const message = thread.messages[i] as StoredMessage
      if (isListed(message)) return message
    }
    return undefined
  }

  readState(bookingId: string): {is_closed: boolean; unread_count: number} {
    const listed = this.listed(bookingId)
    const latest = listed[listed.length - 1]
    // A booking without messages answers closed with nothing unread (read-state table).
    if (latest === undefined) return {is_closed: true, unread_count: 0}
    return {is_closed: latest.read, unread_count: listed.filter((message) => !message.read).length}
  }

  storeFile(bytes: Buffer): string {
    const id = randomUUID()
    this.state.files[id] = bytes.toString('base64')
    this.fileCache.set(id, bytes)
    return id
  }

  file(id: string): Buffer | undefined {
    const cached = this.fileCache.get(id)
    if (cached) return cached
    const stored = this.state.files[id]
    if (stored === undefined) return undefined
    const bytes = Buffer.from(stored, 'base64')
    this.fileCache.set(id, bytes)
    return bytes
  }

  /** Records a message (or a Scheduled Message waiting for its time) and moves the read state. */
  add(input: NewMessage): StoredMessage {
    const thread = (this.state.threads[input.booking_id] ??= {booking_id: input.booking_id, messages: [], updated_at: input.at})
    const message: StoredMessage = {
      id: randomUUID(),
      seq: ++this.state.seq,
      booking_id: input.booking_id,
      direction: input.direction,
      author: input.author,
      channel: input.channel,
      text: input.text,
      subject: input.subject ?? null,
      attachments: input.attachments ?? [],
      delivery_status: input.delivery_status,
      sent_at: input.scheduled_for ?? input.at,
      created_at: input.scheduled_for ?? input.at,
      read: false,
    }
    if (input.delivery_status === 'pending') message.confirm_by = input.at + CONFIRMATION_WINDOW_MS
    if (input.scheduled_for !== undefined) {
      message.scheduled_for = input.scheduled_for
      thread.messages.push(message)
      return message
    }
    this.applyReadState(thread, message)
    thread.messages.push(message)
    thread.updated_at = Math.max(thread.updated_at, input.at)
    return message
  }

  private applyReadState(thread: ThreadRecord, message: StoredMessage): void {
    const {type} = message.author
    if (type === 'guest') message.read = false
    else if (type === 'host' || type === 'app') {
      for (const other of thread.messages) if (isListed(other)) other.read = true
      message.read = true
    } else message.read = this.latest(thread)?.read ?? true
  }

  /**
   * Moves what time moves: due Scheduled Messages are sent (recorded now, so that they follow
   * everything already listed), unconfirmed messages past their minute are rejected. Answers the
   * messages sent, for their events.
   */
  advance(now: number): StoredMessage[] {
    const sent: StoredMessage[] = []
    for (const thread of Object.values(this.state.threads)) {
      let changed = false
      for (const message of thread.messages) {
        if (message.confirm_by !== undefined && message.confirm_by <= now && isListed(message)) {
          delete message.confirm_by
          if (message.delivery_status === 'pending') message.delivery_status = 'rejected'
          changed = true
        }
      }
      const due = thread.messages.filter((message) => message.scheduled_for !== undefined && message.scheduled_for <= now)
      for (const message of due) {
        delete message.scheduled_for
        message.seq = ++this.state.seq
        message.sent_at = now
        message.created_at = now
        thread.messages.splice(thread.messages.indexOf(message), 1)
        this.applyReadState(thread, message)
        thread.messages.push(message)
        sent.push(message)
        changed = true
      }
      if (changed) thread.updated_at = Math.max(thread.updated_at, now)
    }
    return sent
  }

  /** POST close: every message read. A booking without messages, or a closed thread, does not change. */
  close(bookingId: string, now: number): void {
    const listed = this.listed(bookingId)
    if (listed.every((message) => message.read)) return
    for (const message of listed) message.read = true
    this.touch(bookingId, now)
  }

  /** POST reopen: every message unread. A booking without messages, or an open thread, does not change. */
  reopen(bookingId: string, now: number): void {
    if (!this.readState(bookingId).is_closed) return
    const listed = this.listed(bookingId)
    if (listed.length === 0) return
    for (const message of listed) message.read = false
    this.touch(bookingId, now)
  }

  private touch(bookingId: string, now: number): void {
    const thread = this.state.threads[bookingId]
    if (thread) thread.updated_at = Math.max(thread.updated_at, now)
  }

  toJSON(): ConversationsState {
    return this.state
  }
}
