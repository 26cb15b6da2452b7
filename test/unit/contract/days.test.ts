import {afterEach, describe, expect, it} from 'vitest'
import {
  dayFromCivil,
  dayOf,
  formatDay,
  parseDay,
  todayByProcessZone,
  todayIn,
  UnknownTimeZoneError,
  utcDay,
  writableNights,
} from '../../../src/contract/days.js'
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

describe('today in a zone without Intl', () => {
  const saved = process.env.TZ
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ
    else process.env.TZ = saved
  })
  const intlToday = (timeZone: string, nowMs: number) => {
    const parts = new Intl.DateTimeFormat('en-CA', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit'}).formatToParts(new Date(nowMs))
    const get = (type: string) => Number(parts.find((part) => part.type === type)?.value)
    return dayFromCivil(get('year'), get('month'), get('day'))
  }
  // Around the midnights of UTC-12 to UTC+14 and the summer-time changes of both hemispheres.
  const INSTANTS = ['2026-11-22T10:30:00Z', '2026-11-22T11:00:00Z', '2026-03-29T00:30:00Z', '2026-04-05T13:30:00Z', '2026-12-31T23:59:59Z', '2027-01-01T12:00:00Z'].map(Date.parse)

  it('reads every Area/Location zone ICU lists from Date with the zone set, as Intl reads it, and leaves this machine\'s zone as it was', () => {
    // A machine at UTC+13:45: a zone that did not take would read as this one, a day off at these instants.
    process.env.TZ = 'Pacific/Chatham'
    const ownOffset = new Date(INSTANTS[0]!).getTimezoneOffset()
    const zones = Intl.supportedValuesOf('timeZone').filter((zone) => zone.includes('/') && !/\d/.test(zone))
    expect(zones.length).toBeGreaterThan(300)
    for (const zone of zones) {
      for (const nowMs of INSTANTS) expect(todayByProcessZone(zone, nowMs), `${zone} at ${new Date(nowMs).toISOString()}`).toBe(intlToday(zone, nowMs))
    }
    expect(process.env.TZ).toBe('Pacific/Chatham')
    expect(new Date(INSTANTS[0]!).getTimezoneOffset()).toBe(ownOffset)
    delete process.env.TZ
    todayByProcessZone('Asia/Tokyo', INSTANTS[0]!)
    expect('TZ' in process.env).toBe(false)
  })

  it('keeps each zone\'s day with the instants it runs over, through summer-time changes and a midnight that does not exist', () => {
    process.env.TZ = 'Pacific/Chatham'
    const zones = ['America/New_York', 'America/Santiago', 'Asia/Tokyo', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Europe/London']
    const formats = new Map(zones.map((zone) => [zone, new Intl.DateTimeFormat('en-CA', {timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit'})]))
    // New York's and London's spring and autumn, Santiago's clocks going from midnight to 1:00 and
    // back to 23:00, Lord Howe's half hour; every 15 minutes, in order, so that most answers come from the kept day.
    const spans = ['2026-03-07T00:00:00Z', '2026-03-28T00:00:00Z', '2026-04-03T00:00:00Z', '2026-09-04T00:00:00Z', '2026-10-03T00:00:00Z', '2026-10-31T00:00:00Z']
    for (const zone of zones) {
      for (const start of spans.map(Date.parse)) {
        for (let nowMs = start; nowMs < start + 3 * 86_400_000; nowMs += 900_000) {
          for (const at of [nowMs - 1, nowMs]) {
            const parts = formats.get(zone)!.formatToParts(new Date(at))
            const get = (type: string) => Number(parts.find((part) => part.type === type)?.value)
            expect(todayByProcessZone(zone, at), `${zone} at ${new Date(at).toISOString()}`).toBe(dayFromCivil(get('year'), get('month'), get('day')))
          }
        }
      }
    }
  })

  it('leaves to Intl the names it cannot trust: aliases ICU does not list, short names, POSIX rules and unknown names', () => {
    for (const zone of ['Asia/Kolkata', 'UTC', 'EST', 'Etc/GMT+5', 'EST5EDT', 'Mars/Olympus_Mons']) expect(todayByProcessZone(zone, INSTANTS[0]!), zone).toBeUndefined()
    // Kolkata is Asia/Calcutta to ICU: still today there, through Intl.
    expect(formatDay(todayIn('Asia/Kolkata', Date.parse('2026-11-22T18:30:00Z')))).toBe('2026-11-23')
    expect(formatDay(todayIn('Etc/GMT+5', Date.parse('2026-11-22T04:59:59Z')))).toBe('2026-11-21')
  })
})

