/**
 * The fields of a booking and of a lock code that pms shows and keeps in columns, read liberally
 * from the records the service sent (kept whole): a field missing, null or of another shape is
 * null. The shapes are the contract's schemas (BOOKING_FIELD_SCHEMAS in bookings.ts) compiled into
 * plain readers, so reading a booking loads no zod.
 */
import type {BookingRecord, LockCodeRecord} from './bookings.js'
import {INVALID, READERS} from './compiled-readers.js'

/** The fields of a booking that pms shows and keeps in columns; null where the record has none of that shape. */
export interface BookingFields {
  id: string
  property_id: string | null
  status: string | null
  check_in: string | null
  check_out: string | null
  adults: number | null
  children: number | null
  infants: number | null
  channel_code: string | null
  channel_name: string | null
  channel_reference: string | null
  guest_name: string | null
  guest_email: string | null
  guest_phone: string | null
  currency: string | null
  total: number | null
  paid: number | null
  created_at: string | null
  updated_at: string | null
}

/**
 * Reads a booking liberally (STYLE 15): a field missing, null or of another shape is null, never an
 * error, so that a service that names things otherwise still syncs and lists every booking.
 */
export function readBooking(record: BookingRecord): BookingFields {
  const occupancy = objectOf(record.occupancy)
  const channel = objectOf(record.sales_channel)
  // The contract names no guest field: `guest` is the shape pms knows, `main_guest` one a service
  // may use instead (with `full_name`, `email_address`, `phone_number`), read when `guest` is absent.
  const guest = objectOf(record.guest ?? record.main_guest)
  const price = objectOf(record.price)
  return {
    id: record.id,
    property_id: textOf(record.property_id),
    status: textOf(record.status),
    check_in: ofShape<string>(READERS.BookingDay, record.check_in),
    check_out: ofShape<string>(READERS.BookingDay, record.check_out),
    adults: ofShape<number>(READERS.BookingCount, occupancy.adults),
    children: ofShape<number>(READERS.BookingCount, occupancy.children),
    infants: ofShape<number>(READERS.BookingCount, occupancy.infants),
    channel_code: textOf(channel.code),
    channel_name: textOf(channel.name),
    channel_reference: textOf(record.channel_reference),
    guest_name: textOf(guest.name ?? guest.full_name),
    guest_email: textOf(guest.email ?? guest.email_address),
    guest_phone: textOf(guest.phone ?? guest.phone_number),
    currency: textOf(price.currency),
    total: ofShape<number>(READERS.BookingAmount, price.total),
    paid: ofShape<number>(READERS.BookingAmount, price.paid),
    created_at: ofShape<string>(READERS.BookingInstant, record.created_at),
    updated_at: ofShape<string>(READERS.BookingInstant, record.updated_at),
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** The value as its field's schema reads it, null where the schema would refuse it. */
function ofShape<T>(read: (input: unknown) => unknown, value: unknown): T | null {
  const result = read(value)
  return result === INVALID ? null : (result as T)
}

export interface LockCodeFields {
  lock: string | null
  type: string | null
  code: string | null
  /** `static` for a key box's code, else the entry's status when it has one. */
  status: string | null
  valid_from: string | null
  valid_until: string | null
}

/** Reads a lock-code entry liberally: the contract's four names, and the sandbox's others when present. */
export function readLockCode(entry: LockCodeRecord): LockCodeFields {
  const staticCode = textOf(entry.static_code)
  const lockCode = textOf(entry.lock_code)
  return {
    lock: textOf(entry.lock_name) ?? textOf(entry.lock_id),
    type: textOf(entry.lock_type),
    code: staticCode ?? lockCode,
    status: staticCode !== null && lockCode === null ? 'static' : textOf(entry.status),
    valid_from: textOf(entry.valid_from),
    valid_until: textOf(entry.valid_until),
  }
}
