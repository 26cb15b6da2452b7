/**
 * Calendar dates of the contract. Every date of the API is a `YYYY-MM-DD` night read in the
 * Property's own time zone, and writable nights run from today to today + WRITABLE_WINDOW_DAYS
 * there. The client (rates planner, CSV checks) and the sandbox (batch validation, calendar) both
 * keep that rule, so they share these functions.
 *
 * Nights are integers (days since 1970-01-01): comparisons, runs of consecutive nights and map keys
 * stay integer arithmetic, a million rows cost no Date objects, and only the edges speak `YYYY-MM-DD`.
 */
import {WRITABLE_WINDOW_DAYS} from './limits.js'
import {zoneOffsetAt} from './zone-offsets.js'

const DAY_MS = 86_400_000

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

/** Day number of a civil date (proleptic Gregorian), after H. Hinnant's days_from_civil. */
export function dayFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (month + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

function digit(text: string, index: number): number {
  const code = text.charCodeAt(index) - 48
  return code >= 0 && code <= 9 ? code : -1000
}

export type DayParse = number | 'format' | 'calendar'

/** Parses `YYYY-MM-DD`: the day number, 'format' when not of that form, 'calendar' when no such date exists. */
export function parseDay(text: string): DayParse {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return 'format'
  const year = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3)
  const month = digit(text, 5) * 10 + digit(text, 6)
  const day = digit(text, 8) * 10 + digit(text, 9)
  if (year < 0 || month < 0 || day < 0) return 'format'
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return 'calendar'
  return dayFromCivil(year, month, day)
}

/** The day number of a date already checked against the contract's schemas; a RangeError otherwise. */
export function dayOf(text: string): number {
  const day = parseDay(text)
  if (typeof day !== 'number') throw new RangeError(`not a date YYYY-MM-DD: ${JSON.stringify(text)}`)
  return day
}

const formatCache = new Map<number, string>()

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  let text = formatCache.get(day)
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10)
    if (formatCache.size < 10_000) formatCache.set(day, text)
  }
  return text
}

/** The UTC date of an instant, as a day number (for what is not read in a Property's time zone). */
export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS)
}

/**
 * Today's day number in an IANA time zone: the UTC date of the instant moved by the zone's offset;
 * an UnknownTimeZoneError (zone-offsets.ts) for a zone Intl does not know.
 */
export function todayIn(timeZone: string, nowMs: number): number {
  return Math.floor((nowMs + zoneOffsetAt(timeZone, nowMs)) / DAY_MS)
}

/** The writable nights of a Property at `nowMs`: today to today + WRITABLE_WINDOW_DAYS in its time zone, both inclusive. */
export function writableNights(timeZone: string, nowMs: number): {first: number; last: number} {
  const first = todayIn(timeZone, nowMs)
  return {first, last: first + WRITABLE_WINDOW_DAYS}
}
