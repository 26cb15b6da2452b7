/**
 * The five writable fields, how a CSV cell spells them, and how each is kept as a number so that a
 * night's values fit in a Float64Array: rate in cents, min_stay as is, booleans as 0 or 1.
 */
import {MIN_STAY_MAX, MIN_STAY_MIN, RATE_MAX, RATE_MIN, RESTRICTION_FIELDS, type RestrictionField} from '../contract/limits.js'

export const FIELDS = RESTRICTION_FIELDS
export type Field = RestrictionField
export const FIELD_COUNT = FIELDS.length
export const RATE_FIELD = 0
export const MIN_STAY_FIELD = 1

const RATE_MIN_CENTS = Math.round(RATE_MIN * 100)
const RATE_MAX_CENTS = Math.round(RATE_MAX * 100)

/** A parse failure: the words after `column X:` in an error line. */
export interface CellProblem {
  problem: string
}

/** Rate in cents. `decimalComma` accepts `120,50` as written by spreadsheets in locales that use `;` between cells. */
export function parseRateCents(text: string, decimalComma: boolean): number | CellProblem {
  let cents = 0
  let decimals = -1
  const length = text.length
  if (length === 0 || length > 20) return {problem: `rate "${text}" is not a number (write it like 120.50)`}
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 48 && code <= 57) {
      cents = cents * 10 + (code - 48)
      if (decimals >= 0) decimals++
    } else if ((code === 46 || (code === 44 && decimalComma)) && decimals < 0 && i > 0 && i < length - 1) {
      decimals = 0
    } else {
      // 1.180,00 or 1,180.00: a cell formatted with thousands separators.
      if (/^\d{1,3}([.,' ]\d{3})+([.,]\d{1,2})?$/.test(text)) {
        const plain = text.replace(/[.,' ](?=\d{3}(\D|$))/g, '')
        return {problem: `rate "${text}" has a thousands separator: write it without, like ${plain}`}
      }
      return {problem: `rate "${text}" is not a number (write it like 120.50)`}
    }
  }
  if (decimals > 2) return {problem: `rate ${text} has more than two decimals`}
  if (decimals <= 0) cents *= 100
  else if (decimals === 1) cents *= 10
  if (cents < RATE_MIN_CENTS) return {problem: `rate ${text} is below the minimum ${RATE_MIN.toFixed(2)}`}
  if (cents > RATE_MAX_CENTS) return {problem: `rate ${text} is above the maximum ${RATE_MAX.toFixed(2)}`}
  return cents
}

export function parseMinStay(text: string): number | CellProblem {
  const length = text.length
  let value = 0
  if (length === 0 || length > 6) return {problem: `min_stay "${text}" is not a whole number of nights`}
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code < 48 || code > 57) return {problem: `min_stay "${text}" is not a whole number of nights`}
    value = value * 10 + (code - 48)
  }
  if (value < MIN_STAY_MIN || value > MIN_STAY_MAX) {
    return {problem: `min_stay ${text} is outside ${MIN_STAY_MIN}..${MIN_STAY_MAX}`}
  }
  return value
}

/** TRUE and FALSE as spreadsheets in German, French, Spanish, Italian, Dutch and Portuguese save them. */
const SPREADSHEET_BOOLEANS: Readonly<Record<string, number>> = {
  wahr: 1,
  falsch: 0,
  vrai: 1,
  faux: 0,
  verdadero: 1,
  falso: 0,
  vero: 1,
  waar: 1,
  onwaar: 0,
  verdadeiro: 1,
}

/** true/false/yes/no/1/0 in any case, and the TRUE/FALSE of spreadsheets in other languages: 1 or 0. */
export function parseBoolean(text: string, field: Field): number | CellProblem {
  switch (text) {
    case 'true':
    case '1':
    case 'TRUE':
    case 'yes':
      return 1
    case 'false':
    case '0':
    case 'FALSE':
    case 'no':
      return 0
  }
  const lower = text.toLowerCase()
  switch (lower) {
    case 'true':
    case 'yes':
      return 1
    case 'false':
    case 'no':
      return 0
  }
  // A spreadsheet saves boolean cells in its own language: an exported true comes back as WAHR.
  const local = SPREADSHEET_BOOLEANS[lower]
  if (local !== undefined) return local
  return {problem: `${field} "${text}" is not a boolean (use true/false, yes/no or 1/0)`}
}

/** The API value of a stored number. */
export function toApiValue(field: number, stored: number): number | boolean {
  if (field === RATE_FIELD) return stored / 100
  if (field === MIN_STAY_FIELD) return stored
  return stored === 1
}

/** How a value is written in CSV cells and diffs: rates with two decimals. */
export function formatValue(field: Field | string, value: unknown): string {
  if (value === null || value === undefined) return '(unset)'
  if (field === 'rate' && typeof value === 'number') return value.toFixed(2)
  return String(value)
}

/** Canonical column names and the spellings accepted for each (after lower-casing and turning spaces and dashes into `_`). */
export const COLUMN_ALIASES = {
  property_id: ['property_id', 'propertyid', 'listing_id', 'listingid'],
  property: ['property', 'property_name', 'name', 'listing', 'listing_name'],
  date: ['date', 'night'],
  from: ['from', 'start', 'start_date', 'from_date', 'first_night'],
  to: ['to', 'end', 'end_date', 'to_date', 'last_night'],
  rate: ['rate', 'price', 'base_rate', 'nightly_rate'],
  min_stay: ['min_stay', 'minimum_stay', 'min_nights', 'minimum_nights', 'minstay'],
  closed_to_arrival: ['closed_to_arrival', 'cta'],
  closed_to_departure: ['closed_to_departure', 'ctd'],
  availability: ['availability', 'available', 'open'],
} as const
export type Column = keyof typeof COLUMN_ALIASES

/**
 * Columns that other pms output carries as information only (`pms restrictions get --csv` writes
 * `unwritable`, the fields the service refuses on a night and why): read past, never written.
 */
export const READ_ONLY_COLUMNS: ReadonlySet<string> = new Set(['unwritable'])

const aliasIndex = new Map<string, Column>()
for (const [column, aliases] of Object.entries(COLUMN_ALIASES) as [Column, readonly string[]][]) {
  for (const alias of aliases) aliasIndex.set(alias, column)
}

export function normalizeHeader(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
}

export function columnOf(header: string): Column | undefined {
  return aliasIndex.get(normalizeHeader(header))
}

const REASONS: Record<string, string> = {
  manual_override: 'frozen by the host (Manual Override); the value is ignored until the host lifts it',
  managed_by_another_pricing_tool: 'the Property is priced by another pricing tool; only availability is writable',
  blocked_by_linked_property: 'closed because a linked Property is booked or closed',
}

/** Why a field cannot be written, in words. */
export function reasonInWords(reason: string): string {
  return REASONS[reason] ?? reason
}
