/** A booking as GET /bookings shows it to one App Connection (docs/contract-gaps.md row 3). */
import type {Permission} from '../../contract/limits.js'
import type {BookingRecord} from '../state.js'

export interface BookingVisibility {
  /** guests.read: guest email and phone. */
  guests: boolean
  /** prices.read: amounts. */
  prices: boolean
}

export function visibilityOf(permissions: ReadonlySet<Permission>): BookingVisibility {
  return {guests: permissions.has('guests.read'), prices: permissions.has('prices.read')}
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Without guests.read the guest carries only `name`; without prices.read there is no `price`:
 * absent, not null, so that "not allowed" and "not known" differ.
 */
export function bookingView(booking: BookingRecord, visibility: BookingVisibility) {
  const {guest} = booking
  return {
    id: booking.id,
    property_id: booking.property_id,
    status: booking.status,
    check_in: booking.check_in,
    check_out: booking.check_out,
    occupancy: {...booking.occupancy},
    sales_channel: {...booking.sales_channel},
    channel_reference: booking.channel_reference,
    guest: visibility.guests ? {name: guest.name, email: guest.email, phone: guest.phone} : {name: guest.name},
    ...(visibility.prices ? {price: {...booking.price}} : {}),
    created_at: iso(booking.created_at),
    updated_at: iso(booking.updated_at),
  }
}

/** What a connection reads of a booking, `updated_at` aside: booking.updated is raised only when this changes. */
export function visibleContent(booking: BookingRecord, visibility: BookingVisibility): string {
  const {updated_at: _, ...rest} = bookingView(booking, visibility)
  return JSON.stringify(rest)
}

/**
 * The JSON of a booking per visibility, kept between calls: paging 100,000 bookings by 500 is the
 * hot path of sync clients and their benchmarks. Records are replaced on every change, never edited
 * in place, so an entry never goes stale.
 */
const viewJson = new WeakMap<BookingRecord, Array<string | undefined>>()

export function bookingJson(booking: BookingRecord, visibility: BookingVisibility): string {
  const slot = (visibility.guests ? 1 : 0) + (visibility.prices ? 2 : 0)
  let cached = viewJson.get(booking)
  if (cached === undefined) viewJson.set(booking, (cached = []))
  return (cached[slot] ??= JSON.stringify(bookingView(booking, visibility)))
}
