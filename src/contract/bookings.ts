import {z} from 'zod'
import {SalesChannelRefSchema} from './common.js'
import {component, count, isoDate, isoDateTime, nullableString, openEnum, uuid} from './registry.js'

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

/** docs/contract-gaps.md row 3. */
export const BookingSchema = component(
  'Booking',
  'A booking of a Property. Cancelled bookings stay listed with their status; a booking may lack stay dates (check-out is the morning after the last night).',
  z.looseObject({
    id: uuid(),
    property_id: uuid(),
    status: openEnum(BOOKING_STATUSES).describe(`Known values: ${BOOKING_STATUSES.join(', ')}. Version 1 may add values.`),
    check_in: isoDate().nullable(),
    check_out: isoDate().nullable(),
    occupancy: BookingOccupancySchema,
    sales_channel: SalesChannelRefSchema,
    channel_reference: nullableString().describe('The booking reference on its Sales Channel.'),
    guest: BookingGuestSchema,
    price: BookingPriceSchema.optional(),
    created_at: isoDateTime(),
    updated_at: isoDateTime(),
  }),
)
export type Booking = z.infer<typeof BookingSchema>

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

export const LOCK_TYPES = ['key_box', 'smart_lock'] as const
export const LOCK_CODE_STATUSES = ['active', 'pending'] as const

/** docs/contract-gaps.md row 5. */
export const LockCodeSchema = component(
  'LockCode',
  'The code of one Lock for a booking: a key box gives `static_code` (validity null), a smart lock the newest unrevoked `lock_code`, maybe still `pending`.',
  z.looseObject({
    lock_id: z.string(),
    lock_name: nullableString(),
    lock_type: openEnum(LOCK_TYPES).describe(`Known values: ${LOCK_TYPES.join(', ')}.`),
    static_code: nullableString(),
    lock_code: nullableString(),
    status: openEnum(LOCK_CODE_STATUSES)
      .nullable()
      .describe('`active` or `pending` (the lock has not confirmed the code yet); null for a key box.'),
    valid_from: isoDateTime().nullable(),
    valid_until: isoDateTime().nullable(),
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
