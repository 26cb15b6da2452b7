import {z} from 'zod'
import {RESTRICTION_FIELDS, UNWRITABLE_REASONS} from './error-codes.js'
import {MIN_STAY_MAX, MIN_STAY_MIN, RATE_MAX, RATE_MIN} from './limits.js'
import {component, isoDate, openEnum, uuid} from './registry.js'

/** True when the number has at most two decimals as written in JSON ("rounded to the cent"). */
export function hasAtMostTwoDecimals(value: number): boolean {
  return Number.isFinite(value) && Number(value.toFixed(2)) === value
}

/**
 * The writable fields of a night. Strict: an unknown (for example misspelt) field is refused rather
 * than silently dropped, because a dropped field would leave the night untouched without a word.
 */
export const RestrictionValuesSchema = component(
  'RestrictionValues',
  'Writable fields of a night; at least one field; a field left out is not touched.',
  z
    .strictObject({
      rate: z
        .number()
        .min(RATE_MIN)
        .max(RATE_MAX)
        .refine(hasAtMostTwoDecimals, {message: 'rate has at most two decimals (rounded to the cent)'})
        .optional()
        .describe('Base nightly rate in the Property currency, at most two decimals (rounded to the cent); Pricing Modifiers still apply per Sales Channel.'),
      min_stay: z.int().min(MIN_STAY_MIN).max(MIN_STAY_MAX).optional().describe('Minimum stay in nights.'),
      closed_to_arrival: z.boolean().optional(),
      closed_to_departure: z.boolean().optional(),
      availability: z
        .boolean()
        .optional()
        .describe('true opens, false closes the night for sale; a booked night stays closed on Sales Channels whatever the value.'),
    })
    .refine((values) => Object.values(values).some((value) => value !== undefined), {
      message: 'values needs at least one field',
    })
    .meta({minProperties: 1}),
)
export type RestrictionValues = z.infer<typeof RestrictionValuesSchema>

export const UnwritableFieldSchema = component(
  'UnwritableField',
  'A field a batch will refuse on this date, with the reason.',
  z.looseObject({
    field: openEnum(RESTRICTION_FIELDS),
    reason: openEnum(UNWRITABLE_REASONS),
  }),
)
export type UnwritableField = z.infer<typeof UnwritableFieldSchema>

/** docs/contract-gaps.md row 1. */
export const RestrictionRecordSchema = component(
  'RestrictionRecord',
  'The current values of one Property and night (a value never set is null) and the fields a batch would refuse.',
  z.looseObject({
    property_id: uuid(),
    date: isoDate(),
    // Absent (a service that leaves unset values out) reads as unset; a value of another shape is an
    // error, never read as unset. The list of refusals is named by the contract.
    rate: z.number().nullable().default(null),
    min_stay: z.int().nullable().default(null),
    closed_to_arrival: z.boolean().nullable().default(null),
    closed_to_departure: z.boolean().nullable().default(null),
    availability: z.boolean().nullable().default(null),
    unwritable_fields: z.array(UnwritableFieldSchema),
  }),
)
export type RestrictionRecord = z.infer<typeof RestrictionRecordSchema>

/** docs/contract-gaps.md row 9: ordered by Property (request order) then date, not paged. */
export const RestrictionsAnswerSchema = component(
  'RestrictionsAnswer',
  'Answer of GET /restrictions: one record per Property and night, ordered by Property (in the order requested) then date.',
  z.looseObject({
    data: z.array(RestrictionRecordSchema),
  }),
)
export type RestrictionsAnswer = z.infer<typeof RestrictionsAnswerSchema>
