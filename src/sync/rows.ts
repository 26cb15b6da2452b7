import type {Booking} from '../contract/bookings.js'

/**
 * A booking as one flat row: the columns of the SQLite `bookings` table and of the CSV snapshot.
 * `profile` tags the row with the login it came through (one profile per account), so that
 * `--all-profiles` can keep several accounts in one sink; `removed_at` is set by a `--full` run
 * once the booking has left the listing (the contract sends no event for that).
 */
export interface BookingRow {
  profile: string
  id: string
  property_id: string
  status: string
  check_in: string | null
  check_out: string | null
  adults: number
  children: number
  infants: number
  channel_code: string
  channel_name: string
  channel_reference: string | null
  guest_name: string | null
  /** Null without guests.read, or when the service holds none. */
  guest_email: string | null
  guest_phone: string | null
  /** Null without prices.read. */
  currency: string | null
  total: number | null
  paid: number | null
  created_at: string
  updated_at: string
  removed_at: string | null
  synced_at: string
}

export const BOOKING_ROW_COLUMNS = [
  'profile',
  'id',
  'property_id',
  'status',
  'check_in',
  'check_out',
  'adults',
  'children',
  'infants',
  'channel_code',
  'channel_name',
  'channel_reference',
  'guest_name',
  'guest_email',
  'guest_phone',
  'currency',
  'total',
  'paid',
  'created_at',
  'updated_at',
  'removed_at',
  'synced_at',
] as const satisfies readonly (keyof BookingRow)[]

export function bookingRow(profile: string, booking: Booking, syncedAt: string): BookingRow {
  return {
    profile,
    id: booking.id,
    property_id: booking.property_id,
    status: booking.status,
    check_in: booking.check_in,
    check_out: booking.check_out,
    adults: booking.occupancy.adults,
    children: booking.occupancy.children,
    infants: booking.occupancy.infants,
    channel_code: booking.sales_channel.code,
    channel_name: booking.sales_channel.name,
    channel_reference: booking.channel_reference,
    guest_name: booking.guest.name,
    guest_email: booking.guest.email ?? null,
    guest_phone: booking.guest.phone ?? null,
    currency: booking.price?.currency ?? null,
    total: booking.price?.total ?? null,
    paid: booking.price?.paid ?? null,
    created_at: booking.created_at,
    updated_at: booking.updated_at,
    removed_at: null,
    synced_at: syncedAt,
  }
}

/** The key of a row in every sink: one booking per profile. */
export function rowKey(profile: string, id: string): string {
  return `${profile}\u0000${id}`
}
