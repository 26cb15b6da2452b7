/**
 * The bookings conversations hang on, seen through the few facts messaging needs. Conversations
 * read bookings only through `BookingDirectory`, a live view of the bookings feature
 * (`bookingsOf(world)`): a booking changed there is seen changed here, a removed one is gone (its
 * thread leaves the listing and its endpoints answer 404).
 */
import {bookingsOf} from '../bookings/feature.js'
import type {SandboxContext} from '../context.js'
import type {BookingRecord} from '../state.js'

export interface ConversationBooking {
  id: string
  property_id: string
  account_id: string
  status: string
  /** `direct`, `website`, `other` or the channel shortcode. */
  sales_channel: {code: string; name: string}
  channel_reference: string | null
  check_in: string | null
  check_out: string | null
  guest_name: string | null
  /** Contact details the service holds (null when none): `email` and `sms` need them. */
  guest_email: string | null
  guest_phone: string | null
  price: {currency: string; total: number; paid: number} | null
}

export interface BookingDirectory {
  get(id: string): ConversationBooking | undefined
  /** Every booking, in the listing order of GET /bookings. */
  all(): readonly ConversationBooking[]
}

/** `direct` and `other` bookings have no messaging on a Sales Channel: `platform` cannot reach their guest. */
const CHANNELS_WITHOUT_MESSAGING = new Set(['direct', 'other'])

export const hasChannelMessaging = (booking: ConversationBooking): boolean => !CHANNELS_WITHOUT_MESSAGING.has(booking.sales_channel.code)

export function bookingDirectory(ctx: SandboxContext): BookingDirectory {
  const {world} = ctx
  const source = bookingsOf(world)
  if (source === undefined) throw new Error('The conversations feature needs the bookings feature registered before it (features.ts).')
  // Records are replaced on every change, never edited in place: a view per record stays right.
  const views = new WeakMap<BookingRecord, ConversationBooking | null>()
  const view = (record: BookingRecord): ConversationBooking | undefined => {
    let cached = views.get(record)
    if (cached === undefined) {
      const accountId = world.properties.find((property) => property.id === record.property_id)?.account_id
      cached =
        accountId === undefined
          ? null
          : {
              id: record.id,
              property_id: record.property_id,
              account_id: accountId,
              status: record.status,
              sales_channel: record.sales_channel,
              channel_reference: record.channel_reference,
              check_in: record.check_in,
              check_out: record.check_out,
              guest_name: record.guest.name,
              guest_email: record.guest.email,
              guest_phone: record.guest.phone,
              price: record.price,
            }
      views.set(record, cached)
    }
    return cached ?? undefined
  }
  return {
    get(id) {
      const record = source.find(id)
      return record === undefined ? undefined : view(record)
    },
    all: () => source.list().flatMap((record) => view(record) ?? []),
  }
}
