/**
 * A reply to a guest that reaches the guest once, with the sender of `pms messages reply`: the
 * Idempotency-Key names this attempt and is written to the reply journal before the first send;
 * lost answers and 5xx are sent again under it; a later call with the same booking, channel, text,
 * subject and photos that finds the attempt unanswered sends again under the same key, so the
 * service answers the message it already sent instead of sending a second one.
 */
import type {AttemptJournal} from '../attempts/journal.js'
import type {PmsClient} from '../client/index.js'
import type {Photo} from '../client/resources/messages.js'
import {checkReply, type Channel} from '../messages/compose.js'
import {sendReply as send, type ReplyResult, type UnsettledAttempt} from '../messages/reply.js'

export interface Reply {
  bookingId: string
  channel: Channel
  text: string
  /** Email only. */
  subject?: string
  /** Platform channel only; JPEG, PNG, GIF or WebP. */
  photos?: Photo[]
}

export interface ReplyOptions {
  /** The reply journal of this connection (`replyJournal(file)`); without one, a crash forgets the attempt. */
  journal: AttemptJournal
  /** Names the connection in the journal (default: the client's base URL). */
  connectionKey?: string
  /** What pms would say on stderr (resuming an earlier attempt). */
  log?: (line: string) => void
  /**
   * Asked when an earlier send of the same reply may have reached the guest and its key can no
   * longer tell (the service answered `unknown`, or no answer came and the key is older than 24
   * hours), with the conversation as it stands. Answer true to send it again. Default: never; the
   * call then fails with code `resend_unconfirmed`.
   */
  confirmResend?: (earlier: UnsettledAttempt) => Promise<boolean>
}

export type {ReplyResult, UnsettledAttempt}

/** Sends `reply` once. Throws a PmsError whose `exitCode` is 75 when the outcome is unknown: call again with the same reply. */
export async function sendReply(client: PmsClient, reply: Reply, options: ReplyOptions): Promise<ReplyResult> {
  const request = checkReply({channel: reply.channel, text: reply.text, subject: reply.subject, photoPaths: (reply.photos ?? []).map((photo) => photo.fileName)})
  const log = options.log ?? (() => undefined)
  return send(
    client,
    options.journal,
    {
      bookingId: reply.bookingId,
      request,
      photos: reply.photos ?? [],
      connectionKey: options.connectionKey ?? client.baseUrl,
      command: () => 'call sendReply again with the same reply',
    },
    {
      note: (text) => log(text.trimEnd()),
      confirmUnsettled: options.confirmResend ?? (async () => false),
      // A program that sends the same text twice means it, or has a loop to fix: said, then sent.
      confirmRepeat: async ({sentAt}) => {
        log(`The same reply went to this guest ${Math.max(1, Math.round((Date.now() - sentAt) / 1000))} s ago; sending it again under a new key`)
        return true
      },
    },
    Date.now,
  )
}
