/**
 * "Today" in a zone is read from spans of the zone's offset that Intl found once: it must be the
 * day Intl gives at every instant, across changes of offset, in every zone the runtime knows, and
 * a span kept in a store must serve a later process only when that process's time zone data is
 * the same.
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {zoneSpanFile} from '../../../src/cli/zone-span-file.js'
import {dayFromCivil, todayIn} from '../../../src/contract/days.js'
import {keepZoneSpansIn, UnknownTimeZoneError, zoneOffsetAt, type ZoneSpan} from '../../../src/contract/zone-offsets.js'

const HOUR = 3_600_000

/** Today as Intl formats it, one formatter per zone: what todayIn answered before spans. */
const oracles = new Map<string, Intl.DateTimeFormat>()
function intlToday(timeZone: string, ms: number): number {
  let format = oracles.get(timeZone)
  if (!format) oracles.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit'})))
  const parts = format.formatToParts(ms)
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value)
  return dayFromCivil(get('year'), get('month'), get('day'))
}

afterEach(() => keepZoneSpansIn(undefined))

describe('today in a zone, from spans of its offset', () => {
  it('is the day Intl gives in every zone the runtime knows, walking 400 days forward', () => {
    keepZoneSpansIn(undefined)
    const start = Date.parse('2026-01-01T00:00:00Z')
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      // 19 hours and 7 minutes: every hour of the day comes round, and spans are used and left.
      for (let ms = start; ms < start + 400 * 24 * HOUR; ms += 19 * HOUR + 7 * 60_000) {
        if (todayIn(zone, ms) !== intlToday(zone, ms)) expect.fail(`${zone} at ${new Date(ms).toISOString()}: ${todayIn(zone, ms)} where Intl gives ${intlToday(zone, ms)}`)
      }
    }
  })

  it.each(['Europe/Lisbon', 'America/Los_Angeles', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns', 'Asia/Kathmandu', 'America/Santiago', 'Africa/Casablanca'])(
    'is the day Intl gives minute by minute through the changes of offset of %s',
    (zone) => {
      keepZoneSpansIn(undefined)
      const start = Date.parse('2026-03-01T00:00:00Z')
      // Each hour, and each minute of the hours where the day changes at a change of offset.
      for (let ms = start; ms < start + 400 * 24 * HOUR; ms += HOUR) {
        const step = zoneOffsetAt(zone, ms) === zoneOffsetAt(zone, ms + HOUR) ? HOUR : 60_000
        for (let at = ms; at < ms + HOUR; at += step) {
          if (todayIn(zone, at) !== intlToday(zone, at)) expect.fail(`${zone} at ${new Date(at).toISOString()}`)
        }
      }
    },
  )

  it('an unknown zone is an UnknownTimeZoneError, and is never kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    keepZoneSpansIn(zoneSpanFile(dir))
    expect(() => todayIn('Mars/Olympus_Mons', Date.now())).toThrow(UnknownTimeZoneError)
    expect(() => todayIn('Mars/Olympus_Mons', Date.now())).toThrow(UnknownTimeZoneError)
  })
})

describe('the spans kept in the cache folder', () => {
  const now = Date.parse('2026-11-29T12:00:00Z')
  const spanFile = (dir: string) => join(dir, 'zone-offsets.json')
  const versions = {tz: process.versions.tz, icu: process.versions.icu}

  it('are written as a run ends and serve the next: a span in the file is answered without Intl', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    const store = zoneSpanFile(dir)
    const learned = new Map<string, ZoneSpan>([['Europe/Lisbon', {offsetMs: 0, from: now, until: now + 24 * HOUR}]])
    store.save(learned)
    expect(zoneSpanFile(dir).load()).toEqual(learned)
    // A span no Intl would give (Lisbon at +5 h) proves the answer came from the file.
    store.save(new Map([['Europe/Lisbon', {offsetMs: 5 * HOUR, from: now, until: now + 24 * HOUR}]]))
    keepZoneSpansIn(zoneSpanFile(dir))
    expect(zoneOffsetAt('Europe/Lisbon', now + HOUR)).toBe(5 * HOUR)
    // Outside the span, Intl is asked again.
    expect(zoneOffsetAt('Europe/Lisbon', now + 25 * HOUR)).toBe(0)
  })

  it('keep the zones another process wrote meanwhile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    zoneSpanFile(dir).save(new Map([['Asia/Tokyo', {offsetMs: 9 * HOUR, from: now, until: now + HOUR}]]))
    zoneSpanFile(dir).save(new Map([['Europe/Lisbon', {offsetMs: 0, from: now, until: now + HOUR}]]))
    expect([...zoneSpanFile(dir).load().keys()].sort()).toEqual(['Asia/Tokyo', 'Europe/Lisbon'])
  })

  it.each([
    ['another time zone data', {format: 1, ...versions, tz: '1999a'}],
    ['another ICU', {format: 1, ...versions, icu: '1.0'}],
    ['another format', {format: 2, ...versions}],
  ])('are ignored when written by %s', (_, header) => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    writeFileSync(spanFile(dir), JSON.stringify({...header, zones: {'Europe/Lisbon': {offsetMs: 5 * HOUR, from: now, until: now + HOUR}}}))
    expect(zoneSpanFile(dir).load().size).toBe(0)
    keepZoneSpansIn(zoneSpanFile(dir))
    expect(zoneOffsetAt('Europe/Lisbon', now)).toBe(0)
  })

  it('a file that is not JSON, or spans of no possible shape, are a cache that knows nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    writeFileSync(spanFile(dir), '{"format": 1,')
    expect(zoneSpanFile(dir).load().size).toBe(0)
    const odd = [
      {offsetMs: 30 * HOUR, from: now, until: now + HOUR},
      {offsetMs: 0, from: now + HOUR, until: now},
      {offsetMs: 0, from: now, until: now + 400 * 24 * HOUR},
      {offsetMs: 0.5, from: now, until: now + HOUR},
      {offsetMs: '0', from: now, until: now + HOUR},
    ]
    writeFileSync(spanFile(dir), JSON.stringify({format: 1, ...versions, zones: Object.fromEntries(odd.map((span, i) => [`Zone/${i}`, span]))}))
    expect(zoneSpanFile(dir).load().size).toBe(0)
  })

  it('a folder that cannot be written fails nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    writeFileSync(join(dir, 'file'), '')
    // A cache folder below a file: mkdir fails; the process saves at exit inside a try.
    keepZoneSpansIn(zoneSpanFile(join(dir, 'file', 'cache')))
    expect(todayIn('Asia/Tokyo', now)).toBe(intlToday('Asia/Tokyo', now))
    expect(() => readFileSync(join(dir, 'file', 'cache', 'zone-offsets.json'))).toThrow()
  })
})
