/**
 * What pms messages reply shows around the send besides the text: an earlier attempt the key can
 * no longer settle (shown with the conversation, asked about on a terminal), and after a reply with
 * photos, what became of each photo.
 */
import type {PmsClient} from '../client/index.js'
import type {PhotoArrival} from '../messages/arrivals.js'
import type {UnsettledAttempt} from '../messages/reply.js'
import {bookingContext} from '../messages/service.js'
import {renderConversation} from './views/conversation.js'
import {localTime} from './views/local-time.js'
import type {RunContext} from '../run/context.js'
import {confirm} from './confirm.js'

/**
 * Shows the conversation and the earlier attempt on stderr (the conversation left out with --json),
 * then asks on a terminal; off one it answers false, and the reply is refused naming --resend.
 */
export function confirmUnsettledOn(ctx: RunContext, client: PmsClient, bookingId: string): (unsettled: UnsettledAttempt) => Promise<boolean> {
  return async (unsettled) => {
    const latest = unsettled.messages.at(-1)
    const timeZone = latest === undefined ? 'UTC' : (await bookingContext(client, bookingId, latest.created_at)).time_zone
    if (!ctx.json) ctx.io.err(renderConversation({booking_id: bookingId, time_zone: timeZone, messages: unsettled.messages}))
    ctx.io.err(describeUnsettled(unsettled, timeZone))
    if (!(ctx.io.stdinIsTTY && ctx.io.stderrIsTTY)) return false
    return confirm(ctx.io, 'Send the reply again (the guest may get it twice)?', {yes: false, cancelled: 'Cancelled; nothing was sent'})
  }
}

export function describeUnsettled(unsettled: UnsettledAttempt, timeZone: string): string {
  const when = localTime(new Date(unsettled.startedAt).toISOString(), timeZone)
  const lines = [
    unsettled.reason === 'unknown_outcome'
      ? `This reply was sent at ${when} (${timeZone}) and the service could not say whether it reached the guest (delivery_failed, unknown).`
      : `This reply was sent at ${when} (${timeZone}) and its answer never came; the service keeps the key of that send 24 hours only, so a new send may reach the guest twice.`,
  ]
  if (unsettled.identical.length === 0) lines.push('No message with the same text is in the conversation.')
  for (const message of unsettled.identical) lines.push(`The same text is in the conversation: message ${message.id}, ${message.delivery_status ?? 'status unknown'}, ${localTime(message.created_at, timeZone)}.`)
  return lines.join('\n') + '\n'
}

export function renderPhotoArrivals(photos: readonly PhotoArrival[]): string {
  return photos
    .map((p) =>
      p.arrived
        ? `Photo ${p.file}: arrived (message ${p.message_id}).`
        : p.delivery_status === 'missing'
          ? `Photo ${p.file}: NOT in the conversation; it did not reach the guest.`
          : `Photo ${p.file}: ${p.delivery_status === 'pending' ? 'not confirmed yet (pending)' : `did NOT arrive (${p.delivery_status})`}, message ${p.message_id}.`,
    )
    .join('\n')
}
