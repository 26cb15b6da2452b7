import {ApiError, type BookingsQuery, type PmsClient} from '../client/index.js'
import {assertUuid} from '../client/ids.js'
import type {BookingRecord, LockCodeRecord} from '../contract/bookings.js'

export async function listBookings(client: PmsClient, query: BookingsQuery): Promise<BookingRecord[]> {
  for (const id of query.propertyIds ?? []) assertUuid(id, 'Property', 'copy the id from the first column of pms properties list')
  const bookings: BookingRecord[] = []
  for await (const booking of client.bookings.list(query)) bookings.push(booking)
  return bookings
}

export async function listLockCodes(client: PmsClient, bookingId: string): Promise<LockCodeRecord[]> {
  assertUuid(bookingId, 'booking', 'copy the id from the first column of pms bookings list')
  try {
    return await client.bookings.lockCodes(bookingId)
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'not_found') throw error
    throw error.retold({message: `Booking ${bookingId} has no lock codes to read: it is not in the Connection Scope, or it has no stay dates`, suggestion: 'check the id with pms bookings list: a booking without stay dates has no lock codes, and one outside the Connection Scope looks missing'})
  }
}
