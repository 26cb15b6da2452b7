import {describe, expect, it} from 'vitest'
import {
  dayFromCivil,
  dayOf,
  formatDay,
  parseDay,
  todayIn,
  utcDay,
  writableNights,
} from '../../../src/contract/days.js'
import {UnknownTimeZoneError} from '../../../src/contract/zone-offsets.js'
import {WRITABLE_WINDOW_DAYS} from '../../../src/contract/limits.js'
import {PropertyTimeZoneError} from '../../../src/rates/errors.js'
import {NightStore} from '../../../src/rates/store.js'

// 2026-11-22 10:30 UTC: already the 23rd at UTC+14 (Kiritimati), the 22nd at UTC-10 (Honolulu).
const NOW = Date.parse('2026-11-22T10:30:00Z')

describe('contract days', () => {
  it('reads and writes YYYY-MM-DD as day numbers since 1970-01-01', () => {
    expect(parseDay('1970-01-01')).toBe(0)
    expect(parseDay('2026-12-24')).toBe(dayFromCivil(2026, 12, 24))
    expect(formatDay(dayFromCivil(2028, 2, 29))).toBe('2028-02-29')
    expect(parseDay('2026-02-30')).toBe('calendar')
    expect(parseDay('24.12.2026')).toBe('format')
    expect(dayOf('2026-12-24')).toBe(dayFromCivil(2026, 12, 24))
    expect(() => dayOf('2026-02-30')).toThrow(RangeError)
    expect(utcDay(NOW)).toBe(dayFromCivil(2026, 11, 22))
  })

  it('"today" is read in each Property\'s time zone: Kiritimati is a day ahead of Honolulu', () => {
    const late = Date.parse('2026-11-22T11:00:00Z')
    expect(formatDay(todayIn('Pacific/Kiritimati', late))).toBe('2026-11-23')
    expect(formatDay(todayIn('Pacific/Honolulu', late))).toBe('2026-11-22')
    expect(formatDay(todayIn('UTC', late))).toBe('2026-11-22')
    expect(formatDay(todayIn('Pacific/Honolulu', Date.parse('2026-11-22T09:59:59Z')))).toBe('2026-11-21')
  })

  it('writable nights run from today to today + 730 in the Property\'s time zone, both inclusive', () => {
    const {first, last} = writableNights('Pacific/Kiritimati', NOW)
    expect(formatDay(first)).toBe('2026-11-23')
    expect(last - first).toBe(WRITABLE_WINDOW_DAYS)
  })

  it('an unknown time zone is a typed error naming the zone, never read as UTC', () => {
    let thrown: unknown
    try {
      todayIn('Mars/Olympus_Mons', NOW)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(UnknownTimeZoneError)
    expect((thrown as UnknownTimeZoneError).timeZone).toBe('Mars/Olympus_Mons')
    // asked again (formatters are cached per zone), it still fails
    expect(() => todayIn('Mars/Olympus_Mons', NOW)).toThrow(UnknownTimeZoneError)
  })

  it('a Property of the connection in an unknown zone stops the plan with an error naming the Property and zone (exit 1)', () => {
    const properties = [
      {id: 'a', name: 'A', timezone: 'Europe/Paris'},
      {id: 'b', name: 'B', timezone: 'Mars/Olympus_Mons'},
    ]
    let thrown: unknown
    try {
      new NightStore(properties, NOW)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(PropertyTimeZoneError)
    const error = thrown as PropertyTimeZoneError
    expect(error.code).toBe('unknown_time_zone')
    expect(error.exitCode).toBe(1)
    expect(error.details).toEqual({property_id: 'b', timezone: 'Mars/Olympus_Mons'})
    expect(error.message).toContain('Mars/Olympus_Mons')
  })
})
