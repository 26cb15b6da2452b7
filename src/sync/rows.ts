import {readBooking, type BookingFields} from '../contract/booking-fields.js'
import type {BookingRecord} from '../contract/bookings.js'

/**
 * A booking as one flat row: the columns of the SQLite `bookings` table and of the CSV snapshot.
 * `profile` tags the row with the login it came through (one profile per account), so that
 * `--all-profiles` can keep several accounts in one sink; `removed_at` is set by a `--full` run
 * once the booking has left the listing (the contract sends no event for that).
 */
export interface BookingRow extends BookingFields {
  profile: string
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

/** Columns hold what the record gives in the shape pms knows, else null: docs/bookings.md. */
export function bookingRow(profile: string, booking: BookingRecord, syncedAt: string): BookingRow {
  return {profile, ...readBooking(booking), removed_at: null, synced_at: syncedAt}
}

/** The key of a row in every sink: one booking per profile. */
export function rowKey(profile: string, id: string): string {
  return `${profile}\u0000${id}`
}
