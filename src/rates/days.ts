/**
 * Nights as integers (days since 1970-01-01) so that a million rows cost no Date objects.
 * Every date of the API is a calendar date `YYYY-MM-DD` read in the Property's time zone.
 */

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

const formatters = new Map<string, Intl.DateTimeFormat>()

/** Today's day number in an IANA time zone; an unknown zone reads as UTC rather than failing the whole file. */
export function todayIn(timeZone: string, now: number): number {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-CA', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit'})
    } catch {
      formatter = new Intl.DateTimeFormat('en-CA', {timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit'})
    }
    formatters.set(timeZone, formatter)
  }
  const parts = formatter.formatToParts(new Date(now))
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value)
  return dayFromCivil(get('year'), get('month'), get('day'))
}

/** Short form of a run of nights: `2026-12-01..07`, `2026-12-30..2027-01-02`, or one date. */
export function formatRun(from: number, to: number): string {
  const a = formatDay(from)
  if (to === from) return a
  const b = formatDay(to)
  if (a.slice(0, 8) === b.slice(0, 8)) return `${a}..${b.slice(8)}`
  return `${a}..${b}`
}
