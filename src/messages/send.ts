/**
 * The messages feature's entry for a reply of a profile: `pms messages reply` and the MCP tool
 * `send_reply` come here with the text chosen and a UI, and get the typed report back. The reply
 * is checked, its photos read, then sent once through the profile's reply journal (the key
 * written before the first send), and, with photos, the conversation read again for what became
 * of each.
 */
import type {PmsClient} from '../client/index.js'
import type {Message} from '../contract/messages.js'
import type {RunSettings} from '../run/context.js'
import {photoArrivals, type PhotoArrival} from './arrivals.js'
import type {Channel} from './compose.js'
import type {ReplyUi, UnsettledAttempt} from './reply.js'
import type {SmsCount} from './sms.js'

export interface ReplyOfProfile {
  bookingId: string
  channel: Channel
  text: string
  /** Email only. */
  subject?: string
  /** Files of photos (platform only). */
  photoPaths?: string[]
  /** Send again although an earlier attempt may have reached the guest. */
  resend?: boolean
}

export interface ReplyReport {
  booking_id: string
  message: Message
  resumed: boolean
  idempotency_key: string
  sms?: SmsCount
  /** Each photo as the conversation shows it after the send (left out when the read failed). */
  photos?: PhotoArrival[]
}

/** The face's side of a send: its words, and its answers where the send needs one. */
export interface ReplyRunUi extends Omit<ReplyUi, 'confirmUnsettled'> {
  /** The command (or call) that sends the same reply again, named in the advice of a failure. */
  command: () => string
  /** Shown an earlier attempt the key can no longer settle (the client at hand to read more); true sends again. */
  confirmUnsettled(unsettled: UnsettledAttempt, client: PmsClient): Promise<boolean>
  /** The service could not say whether the reply left (delivery_failed): what the face shows then, before the error. */
  deliveryUnknown?(client: PmsClient): Promise<void>
}

export async function sendReplyOfProfile(ctx: RunSettings, reply: ReplyOfProfile, ui: ReplyRunUi): Promise<ReplyReport> {
  const [{checkReply, loadPhotos}, {countSms}, {sendReply}, {createClient}, {AttemptJournal, attemptsPath}, {ApiError}, {conversation}] = await Promise.all([
    import('./compose.js'),
    import('./sms.js'),
    import('./reply.js'),
    import('../run/session.js'),
    import('../attempts/journal.js'),
    import('../client/errors.js'),
    import('./service.js'),
  ])
  const photoPaths = reply.photoPaths ?? []
  const request = checkReply({channel: reply.channel, text: reply.text, subject: reply.subject, photoPaths})
  const photos = await loadPhotos(photoPaths)
  const sms = reply.channel === 'sms' ? countSms(reply.text) : undefined
  const client = await createClient(ctx)
  try {
    const profile = ctx.profile ?? 'default'
    const journal = await AttemptJournal.open(attemptsPath(ctx.configDir, profile, 'messages'), ctx.clock.now(), {
      holdUnresolved: true,
      onUnsaved: (reason) => ui.note(`Warning: ${reason}; if this run stops before the answer comes, the next run cannot tell and may send the reply again.\n`),
    })
    try {
      const result = await sendReply(
        client,
        journal,
        {bookingId: reply.bookingId, request, photos, connectionKey: `${client.baseUrl}#${profile}`, command: ui.command, resend: reply.resend},
        {note: ui.note, askResend: ui.askResend, confirmRepeat: ui.confirmRepeat, confirmUnsettled: (unsettled) => ui.confirmUnsettled(unsettled, client)},
        () => ctx.clock.now(),
      )
      // One read after a send with photos: what became of each (a failed read leaves the report out).
      const messages = photos.length === 0 ? undefined : await conversation(client, reply.bookingId).catch(() => undefined)
      const arrivals = messages ? photoArrivals(messages, result.message.id, photos.map((p) => p.fileName)) : undefined
      return {booking_id: reply.bookingId, ...result, ...(sms ? {sms} : {}), ...(arrivals ? {photos: arrivals} : {})}
    } catch (error) {
      if (error instanceof ApiError && error.code === 'delivery_failed') await ui.deliveryUnknown?.(client)
      throw error
    }
  } finally {
    await client.close()
  }
}
