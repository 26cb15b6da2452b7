/**
 * Contract, restrictions rule 2: "Dates run from today to today + 730 days, both read in the time
 * zone of each Property." The client and the sandbox both read that today with todayIn.
 *
 * "Today" in a zone is read from spans of the zone's offset that Intl found once: it must be the
 * day Intl gives at every instant, across changes of offset, in every zone the runtime knows, and
 * a span kept in a store must serve a later process only when that process's time zone data is
 * the same.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
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

// Spans are found and kept around the present only: the clock is moved with the instants asked.
beforeEach(() => {
  vi.useFakeTimers({toFake: ['Date']})
})
afterEach(() => {
  vi.useRealTimers()
  keepZoneSpansIn(undefined)
})

/** todayIn at `ms`, the clock then reading `ms`. */
function todayAt(zone: string, ms: number): number {
  vi.setSystemTime(ms)
  return todayIn(zone, ms)
}

describe('today in a zone, from spans of its offset', () => {
  it('is the day Intl gives in every zone the runtime knows, walking 400 days forward', () => {
    keepZoneSpansIn(undefined)
    const start = Date.parse('2026-01-01T00:00:00Z')
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      // 19 hours and 7 minutes: every hour of the day comes round, and spans are used and left.
      for (let ms = start; ms < start + 400 * 24 * HOUR; ms += 19 * HOUR + 7 * 60_000) {
        if (todayAt(zone, ms) !== intlToday(zone, ms)) expect.fail(`${zone} at ${new Date(ms).toISOString()}: ${todayAt(zone, ms)} where Intl gives ${intlToday(zone, ms)}`)
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
        vi.setSystemTime(ms)
        const step = zoneOffsetAt(zone, ms) === zoneOffsetAt(zone, ms + HOUR) ? HOUR : 60_000
        for (let at = ms; at < ms + HOUR; at += step) {
          if (todayAt(zone, at) !== intlToday(zone, at)) expect.fail(`${zone} at ${new Date(at).toISOString()}`)
        }
      }
    },
  )

  it('answers instants far from the present (a booking, a message) as Intl does, in any order, without replacing the span of the present', () => {
    const now = Date.parse('2026-11-29T12:00:00Z')
    vi.setSystemTime(now)
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    // A span no Intl would give (Lisbon at +5 h) shows whether the present's span is still the one read.
    zoneSpanFile(dir).save(new Map([['Europe/Lisbon', {offsetMs: 5 * HOUR, from: now - HOUR, until: now + 24 * HOUR}]]))
    keepZoneSpansIn(zoneSpanFile(dir))
    for (const iso of ['1970-01-01T00:00:00Z', '2031-03-30T00:59:59Z', '2031-03-30T01:00:00Z', '1911-12-31T23:59:59Z', '2025-10-26T00:30:00Z']) {
      const ms = Date.parse(iso)
      expect(Math.floor((ms + zoneOffsetAt('Europe/Lisbon', ms)) / (24 * HOUR)), iso).toBe(intlToday('Europe/Lisbon', ms))
    }
    expect(zoneOffsetAt('Europe/Lisbon', now)).toBe(5 * HOUR)
  })

  it('an instant just before the present span (an older time of the last day) is one question to Intl, and the span stays', () => {
    const now = Date.parse('2026-11-29T12:00:00Z')
    vi.setSystemTime(now)
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    zoneSpanFile(dir).save(new Map([['Europe/Lisbon', {offsetMs: 5 * HOUR, from: now, until: now + 24 * HOUR}]]))
    keepZoneSpansIn(zoneSpanFile(dir))
    for (let hoursBack = 1; hoursBack <= 20; hoursBack++) expect(zoneOffsetAt('Europe/Lisbon', now - hoursBack * HOUR)).toBe(0)
    expect(zoneOffsetAt('Europe/Lisbon', now)).toBe(5 * HOUR)
  })

  it('an unknown zone is an UnknownTimeZoneError, and is never kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    keepZoneSpansIn(zoneSpanFile(dir))
    expect(() => todayIn('Mars/Olympus_Mons', Date.now())).toThrow(UnknownTimeZoneError)
    expect(() => todayIn('Mars/Olympus_Mons', Date.now())).toThrow(UnknownTimeZoneError)
  })
})

describe('the spans kept in the cache folder', () => {
  const now = Date.parse('2026-11-29T12:00:00Z')
  beforeEach(() => vi.setSystemTime(now))
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

  /**
   * A process with the store in `cacheDir` that runs `before`, asks Tokyo's offset now, then exits
   * with process.exit, as a command does.
   */
  function runAndExit(cacheDir: string, before: string[] = []) {
    const dist = (file: string) => fileURLToPath(new URL(`../../../dist/src/${file}`, import.meta.url))
    const script = [
      `const {keepZoneSpansIn, zoneOffsetAt} = await import(${JSON.stringify(dist('contract/zone-offsets.js'))})`,
      `const {zoneSpanFile} = await import(${JSON.stringify(dist('cli/zone-span-file.js'))})`,
      'keepZoneSpansIn(zoneSpanFile(process.argv[1]))',
      ...before,
      "zoneOffsetAt('Asia/Tokyo', Date.now())",
      'process.exit(0)',
    ].join('\n')
    return spawnSync(process.execPath, ['--input-type=module', '-e', script, cacheDir], {encoding: 'utf8'})
  }

  it('are written as a process exits: the spans it found, over what another process kept', () => {
    vi.useRealTimers()
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    zoneSpanFile(dir).save(new Map([['Europe/Lisbon', {offsetMs: 0, from: Date.now(), until: Date.now() + HOUR}]]))
    const run = runAndExit(dir)
    expect(run.status, run.stderr).toBe(0)
    const kept = zoneSpanFile(dir).load()
    expect([...kept.keys()].sort()).toEqual(['Asia/Tokyo', 'Europe/Lisbon'])
    expect(kept.get('Asia/Tokyo')?.offsetMs).toBe(9 * HOUR)
  })

  it('a span only read is not written back over a newer one another process kept meanwhile', () => {
    vi.useRealTimers()
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    const start = Date.now()
    zoneSpanFile(dir).save(new Map([['Europe/Lisbon', {offsetMs: 0, from: start - HOUR, until: start + HOUR}]]))
    // The process reads the file (Lisbon); another then keeps a longer span of Lisbon; the process finds Tokyo's and ends.
    const longer = JSON.stringify([['Europe/Lisbon', {offsetMs: 0, from: start - HOUR, until: start + 48 * HOUR}]])
    const run = runAndExit(dir, ["zoneOffsetAt('Europe/Lisbon', Date.now())", `zoneSpanFile(process.argv[1]).save(new Map(${longer}))`])
    expect(run.status, run.stderr).toBe(0)
    expect(zoneSpanFile(dir).load().get('Europe/Lisbon')?.until).toBe(start + 48 * HOUR)
    expect(zoneSpanFile(dir).load().has('Asia/Tokyo')).toBe(true)
  })

  it('a cache folder that cannot be written fails nothing: the process exits as it would', () => {
    vi.useRealTimers()
    const dir = mkdtempSync(join(tmpdir(), 'pms-zones-'))
    writeFileSync(join(dir, 'file'), '')
    const run = runAndExit(join(dir, 'file', 'cache'))
    expect([run.status, run.stderr]).toEqual([0, ''])
  })
})
