/** Reading the calendar: GET /restrictions split into calls of at most 100 Properties and 366 nights. */
import {MAX_DAYS_PER_RESTRICTIONS_CALL, MAX_PROPERTIES_PER_CALL, WRITABLE_WINDOW_DAYS} from '../contract/limits.js'
import type {RestrictionRecord} from '../contract/index.js'
import {UsageError} from '../errors.js'
import {dayFromCivil, formatDay, parseDay, utcDay} from '../contract/days.js'
import {FIELDS, formatValue} from './fields.js'
import {reasonInWords} from './fields.js'
import type {Names} from './service.js'
import {byCodeUnits} from '../text/order.js'

export interface CalendarClient {
  restrictions: {get(query: {propertyIds: string[]; from: string; to: string}): Promise<RestrictionRecord[]>}
}

export interface NightRange {
  from: number
  to: number
}

/** `--from` and `--to` as day numbers, or a usage error naming the flag. */
/**
 * A night of a date flag: YYYY-MM-DD, or relative to `today` (`today`, `tomorrow`, `+14d`, `-3d`,
 * `+2w`). The command passes today on this machine's clock in its time zone (localToday): the
 * day the person typing means; a Property ahead of it may already be on the next day, which the
 * writable-window check then names.
 */
function relativeDay(text: string, today: number | undefined): number | undefined {
  if (today === undefined) return undefined
  const word = text.trim().toLowerCase()
  if (word === 'today') return today
  if (word === 'tomorrow') return today + 1
  const offset = /^([+-])(\d{1,4})([dw])$/.exec(word)
  if (!offset) return undefined
  const n = Number(offset[2]) * (offset[3] === 'w' ? 7 : 1)
  return offset[1] === '-' ? today - n : today + n
}

/**
 * Today's day number on this machine: its clock and its time zone, from Date's local fields, as
 * `date` and the instant flags read them (TZ=GMT+3 is three hours behind UTC, POSIX's way; an
 * empty or unknown TZ is UTC). The first Intl date format of a process costs about 15 ms of CPU,
 * which a command given `--from today` need not pay.
 */
export function localToday(nowMs: number): number {
  const now = new Date(nowMs)
  return dayFromCivil(now.getFullYear(), now.getMonth() + 1, now.getDate())
}

/** One night of a date flag as a day number, or a usage error naming the flag. */
export function parseNight(text: string, flag: string, today?: number): number {
  const relative = relativeDay(text, today)
  if (relative !== undefined) return relative
  const parsed = parseDay(text)
  if (typeof parsed !== 'number') {
    // As the CSV reader says: a well-formed day that no month has (2026-02-30) is told apart from a bad form.
    const what =
      parsed === 'calendar' ? 'is not a calendar date (no such day in that month)' : `is not a date in the form YYYY-MM-DD${today === undefined ? '' : ', today, tomorrow or +Nd'}`
    throw new UsageError(`${flag} ${text} ${what}`, {suggestion: `pass ${flag} like 2026-12-01${today === undefined ? '' : ', today or +14d'}`})
  }
  return parsed
}

export function parseRange(from: string, to: string, today?: number): NightRange {
  const range = {from: parseNight(from, '--from', today), to: parseNight(to, '--to', today)}
  if (range.from > range.to) throw new UsageError(`--to ${to} is before --from ${from}`, {suggestion: 'pass a --to on or after --from (both inclusive)'})
  return range
}

/** The calls that cover `ids` x range within the limits of one GET /restrictions call. */
export function splitCalendarCalls(ids: readonly string[], range: NightRange): {propertyIds: string[]; from: string; to: string}[] {
  const calls: {propertyIds: string[]; from: string; to: string}[] = []
  for (let i = 0; i < ids.length; i += MAX_PROPERTIES_PER_CALL) {
    const propertyIds = ids.slice(i, i + MAX_PROPERTIES_PER_CALL)
    for (let from = range.from; from <= range.to; from += MAX_DAYS_PER_RESTRICTIONS_CALL) {
      const to = Math.min(range.to, from + MAX_DAYS_PER_RESTRICTIONS_CALL - 1)
      calls.push({propertyIds, from: formatDay(from), to: formatDay(to)})
    }
  }
  return calls
}

/** Every record of `ids` over the range, ordered by Property (as given) then date. */
export async function readCalendar(
  client: CalendarClient,
  ids: readonly string[],
  range: NightRange,
  onCall: (done: number, total: number) => void = () => {},
): Promise<RestrictionRecord[]> {
  const calls = splitCalendarCalls(ids, range)
  const records: RestrictionRecord[] = []
  for (const [i, call] of calls.entries()) {
    records.push(...(await client.restrictions.get(call)))
    onCall(i + 1, calls.length)
  }
  const rank = new Map(ids.map((id, i) => [id, i]))
  return records.sort((a, b) => (rank.get(a.property_id) ?? 0) - (rank.get(b.property_id) ?? 0) || byCodeUnits(a.date, b.date))
}

export interface CalendarRow {
  property_id: string
  property: string
  date: string
  rate: string
  min_stay: string
  closed_to_arrival: string
  closed_to_departure: string
  availability: string
  unwritable: string
}

/** Fields grouped by reason: `rate, min_stay: <reason in words>`. */
export function unwritableText(fields: readonly {field: string; reason: string}[]): string {
  const byReason = new Map<string, string[]>()
  for (const u of fields) byReason.set(u.reason, [...(byReason.get(u.reason) ?? []), u.field])
  return [...byReason].map(([reason, names]) => `${names.join(', ')}: ${reasonInWords(reason)}`).join('; ')
}

export const CALENDAR_COLUMNS = ['property_id', 'property', 'date', ...FIELDS, 'unwritable'] as const

/** One row per Property and night; unset values are empty; unwritable fields with their reason in words. */
export function calendarRows(records: readonly RestrictionRecord[], names: Names): CalendarRow[] {
  const show = (field: string, value: unknown) => (value === null || value === undefined ? '' : formatValue(field, value))
  return records.map((r) => ({
    property_id: r.property_id,
    property: names.get(r.property_id) ?? '',
    date: r.date,
    rate: show('rate', r.rate),
    min_stay: show('min_stay', r.min_stay),
    closed_to_arrival: show('closed_to_arrival', r.closed_to_arrival),
    closed_to_departure: show('closed_to_departure', r.closed_to_departure),
    availability: show('availability', r.availability),
    unwritable: unwritableText(r.unwritable_fields),
  }))
}

/**
 * The Properties to read: every listed one, or those named by --property, each of which must be in
 * the listing (the service would refuse the whole call with property_out_of_scope).
 */
export function selectProperties(properties: readonly {id: string}[], wanted?: readonly string[]): string[] {
  if (!wanted || wanted.length === 0) return properties.map((p) => p.id)
  const known = new Set(properties.map((p) => p.id))
  const byLower = new Map(properties.map((p) => [p.id.toLowerCase(), p.id]))
  const ids = [...new Set(wanted.map((id) => byLower.get(id.toLowerCase()) ?? id))]
  const unknown = ids.filter((id) => !known.has(id))
  if (unknown.length > 0) {
    throw new UsageError(`--property ${unknown.join(', ')}: not a Property of this App Connection (not listed by GET /properties)`, {
      suggestion: 'pass ids from pms properties list, or ask the owner to add the Property to the Property Access',
    })
  }
  return ids
}

/** A note when an export covers nights that cannot be imported back (before today, after today + 730). */
export function exportRangeNote(range: NightRange, now: number): string | undefined {
  // UTC today, give or take the day the time zones of the Properties add on either side.
  const today = utcDay(now)
  if (range.from >= today + 1 && range.to <= today + WRITABLE_WINDOW_DAYS - 1) return undefined
  return (
    `Note: nights before today or after today + ${WRITABLE_WINDOW_DAYS} (in each Property's time zone) are exported but cannot be imported back; ` +
    `for a file to edit and import, export from ${formatDay(today + 1)} to at most ${formatDay(today + WRITABLE_WINDOW_DAYS - 1)}.\n`
  )
}
