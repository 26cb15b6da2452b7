import {z} from 'zod'
import {SalesChannelRefSchema} from './common.js'
import {component, count, isoDate, isoDateTime, knownValues, nullableString, openEnum, uuid} from './registry.js'

export const BOOKING_STATUSES = ['confirmed', 'tentative', 'cancelled'] as const

export const BookingOccupancySchema = component(
  'BookingOccupancy',
  'Guests of the stay.',
  z.looseObject({
    adults: count(),
    children: count(),
    infants: count(),
  }),
)
export type BookingOccupancy = z.infer<typeof BookingOccupancySchema>

export const BookingGuestSchema = component(
  'BookingGuest',
  '`email` and `phone` are present only with the Permission guests.read (null when the service holds none).',
  z.looseObject({
    name: nullableString(),
    email: nullableString().optional(),
    phone: nullableString().optional(),
  }),
)
export type BookingGuest = z.infer<typeof BookingGuestSchema>

export const BookingPriceSchema = component(
  'BookingPrice',
  'Amounts of the booking in `currency`; present only with the Permission prices.read.',
  z.looseObject({
    currency: z.string(),
    total: z.number(),
    paid: z.number(),
  }),
)
export type BookingPrice = z.infer<typeof BookingPriceSchema>

/**
 * docs/contract-gaps.md row 3: the shape the sandbox serves. The contract names none of these fields
 * but the booking id ("Exact field names of the booking record: not shown"), so every other one is
 * optional here, and pms reads records with BookingRecordSchema and `readBooking` below.
 */
export const BookingSchema = component(
  'Booking',
  'A booking of a Property. Cancelled bookings stay listed with their status; a booking may lack stay dates (check-out is the morning after the last night). Only `id` is named by the contract; pms reads every other field when it is present and of this shape.',
  z.looseObject({
    id: uuid(),
    property_id: uuid().optional(),
    status: openEnum(BOOKING_STATUSES)
      .describe(knownValues(BOOKING_STATUSES))
      .optional(),
    check_in: isoDate().nullable().optional(),
    check_out: isoDate().nullable().optional(),
    occupancy: BookingOccupancySchema.optional(),
    sales_channel: SalesChannelRefSchema.optional(),
    channel_reference: nullableString().describe('The booking reference on its Sales Channel.').optional(),
    guest: BookingGuestSchema.optional(),
    price: BookingPriceSchema.optional(),
    created_at: isoDateTime().optional(),
    updated_at: isoDateTime().optional(),
  }),
)
export type Booking = z.infer<typeof BookingSchema>

/**
 * What pms requires of a booking it reads: its id, the one field the contract names ("upsert by
 * booking id"). The record is kept whole, as the service sent it; `readBooking` takes out what
 * pms shows and stores in columns.
 */
export const BookingRecordSchema = component(
  'BookingRecord',
  'What pms requires of a booking it reads: its id, the one field the contract names. Every other field is read when present and of the shape of Booking, and kept whole.',
  z.looseObject({id: uuid()}),
)
export type BookingRecord = z.infer<typeof BookingRecordSchema>

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

// Built once: readBooking runs for every booking of a sync (tens of thousands), and building a zod
// schema costs more than using one.
const DATE = isoDate()
const DATE_TIME = isoDateTime()
const COUNT = count()
const AMOUNT = z.number()

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
    check_in: ofShape(DATE, record.check_in),
    check_out: ofShape(DATE, record.check_out),
    adults: ofShape(COUNT, occupancy.adults),
    children: ofShape(COUNT, occupancy.children),
    infants: ofShape(COUNT, occupancy.infants),
    channel_code: textOf(channel.code),
    channel_name: textOf(channel.name),
    channel_reference: textOf(record.channel_reference),
    guest_name: textOf(guest.name ?? guest.full_name),
    guest_email: textOf(guest.email ?? guest.email_address),
    guest_phone: textOf(guest.phone ?? guest.phone_number),
    currency: textOf(price.currency),
    total: ofShape(AMOUNT, price.total),
    paid: ofShape(AMOUNT, price.paid),
    created_at: ofShape(DATE_TIME, record.created_at),
    updated_at: ofShape(DATE_TIME, record.updated_at),
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

function ofShape<T>(schema: z.ZodType<T>, value: unknown): T | null {
  const parsed = schema.safeParse(value)
  return parsed.success ? parsed.data : null
}

/** docs/contract-gaps.md row 11. */
export const BookingsPageSchema = component(
  'BookingsPage',
  'A page of bookings ordered by `updated_at` then `id`. Keep `next_updated_since` of the last page and pass it as `updated_since` next time.',
  z.looseObject({
    data: z.array(BookingSchema),
    next_cursor: z.string().nullable(),
    next_updated_since: isoDateTime(),
  }),
)
export type BookingsPage = z.infer<typeof BookingsPageSchema>

/** What pms requires of a page: the contract's envelope (`data`, `next_cursor`, `next_updated_since`), each booking by its id. */
export const BookingRecordsPageSchema = component(
  'BookingRecordsPage',
  'What pms requires of a page of GET /bookings: the envelope the contract names, each booking a BookingRecord.',
  z.looseObject({
    data: z.array(BookingRecordSchema),
    next_cursor: z.string().nullable(),
    next_updated_since: isoDateTime(),
  }),
)
export type BookingRecordsPage = z.infer<typeof BookingRecordsPageSchema>

export const LOCK_TYPES = ['key_box', 'smart_lock'] as const
export const LOCK_CODE_STATUSES = ['active', 'pending'] as const

/**
 * docs/contract-gaps.md row 5: the shape the sandbox serves. The contract names `static_code`,
 * `lock_code`, `valid_from` and `valid_until` and nothing else ("Exact entry field names beyond
 * ...: not shown"), and none of them is present on every entry, so every field is optional here.
 */
export const LockCodeSchema = component(
  'LockCode',
  'The code of one Lock for a booking: a key box gives `static_code` (validity null), a smart lock the newest unrevoked `lock_code`, maybe still `pending`. The contract names only `static_code`, `lock_code`, `valid_from` and `valid_until`; pms reads the others when present.',
  z.looseObject({
    lock_id: z.string().optional(),
    lock_name: nullableString().optional(),
    lock_type: openEnum(LOCK_TYPES)
      .describe(`Known values: ${LOCK_TYPES.join(', ')}.`)
      .optional(),
    static_code: nullableString().optional(),
    lock_code: nullableString().optional(),
    status: openEnum(LOCK_CODE_STATUSES)
      .nullable()
      .describe('`active` or `pending` (the lock has not confirmed the code yet); null for a key box.')
      .optional(),
    valid_from: isoDateTime().nullable().optional(),
    valid_until: isoDateTime().nullable().optional(),
  }),
)
export type LockCode = z.infer<typeof LockCodeSchema>

/** docs/contract-gaps.md row 12. */
export const LockCodesAnswerSchema = component(
  'LockCodesAnswer',
  'Answer of GET /bookings/{booking_id}/lock-codes: one entry per Lock with a code for the booking; empty for a cancelled booking. Not paged.',
  z.looseObject({
    data: z.array(LockCodeSchema),
  }),
)
export type LockCodesAnswer = z.infer<typeof LockCodesAnswerSchema>

/** What pms requires of a lock-codes answer: a list of entries, each an object kept whole. */
export const LockCodesRecordSchema = component(
  'LockCodesRecord',
  'What pms requires of a lock-codes answer: a list of entries, each kept whole and read as LockCode where it has that shape.',
  z.looseObject({data: z.array(z.looseObject({}))}),
)
export type LockCodeRecord = z.infer<typeof LockCodesRecordSchema>['data'][number]

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
