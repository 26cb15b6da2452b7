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

/**
 * The shapes readBooking (booking-fields.ts) asks of a booking's fields, compiled into plain readers
 * (compiled-readers.ts) so that reading a booking loads no zod.
 */
export const BOOKING_FIELD_SCHEMAS = {
  BookingDay: isoDate(),
  BookingInstant: isoDateTime(),
  BookingCount: count(),
  BookingAmount: z.number(),
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
