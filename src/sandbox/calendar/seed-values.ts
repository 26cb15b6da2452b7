import type {RestrictionValue} from './calendar.js'

/**
 * Seeded calendar values are computed on read from a hash of (seed, Property position, night)
 * rather than stored: 120 Properties x 731 nights would otherwise be ~90k records to build and save.
 */

/** Nights after the seeding date that carry seeded values; later nights read as unset (null). */
export const SEEDED_HORIZON_NIGHTS = 400

/** 32-bit mix of integers (a splitmix-style finaliser): same inputs, same output, on every platform. */
export function hash(...parts: number[]): number {
  let h = 0x9e3779b9
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
  }
  return h >>> 0
}

const round2 = (value: number) => Math.round(value * 100) / 100

/**
 * The seeded value of one field of one night. Every tenth Property (position 9, 19, ...) was never
 * priced (all null), and positions 8, 18, ... have only rate and availability, so that readers meet
 * unset values.
 */
export function seededValue(seed: number, position: number, anchorDay: number, day: number, field: number): RestrictionValue {
  if (day < anchorDay || day > anchorDay + SEEDED_HORIZON_NIGHTS) return null
  const kind = position % 10
  if (kind === 9) return null
  const nightHash = hash(seed, position, day)
  switch (field) {
    case 0: {
      const base = 50 + (hash(seed, position) % 251)
      // day 0 (1970-01-01) was a Thursday: 1 and 2 are Friday and Saturday nights
      const weekday = ((day % 7) + 7) % 7
      const weekend = weekday === 1 || weekday === 2 ? 1.25 : 1
      return round2(base * weekend * (1 + ((nightHash % 11) - 5) / 100))
    }
    case 1: {
      if (kind === 8) return null
      const weekday = ((day % 7) + 7) % 7
      return weekday === 1 || weekday === 2 ? 2 : 1
    }
    case 2:
      return kind === 8 ? null : nightHash % 29 === 0
    case 3:
      return kind === 8 ? null : nightHash % 31 === 0
    default:
      return nightHash % 17 !== 0
  }
}
