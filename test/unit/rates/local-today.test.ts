import {afterEach, describe, expect, it} from 'vitest'
import {todayIn} from '../../../src/contract/days.js'
import {localToday} from '../../../src/rates/calendar.js'

const saved = process.env.TZ
afterEach(() => {
  if (saved === undefined) delete process.env.TZ
  else process.env.TZ = saved
})

describe('localToday', () => {
  // Node reads TZ again when it is set: each zone is this machine's zone in turn.
  it.each(['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Los_Angeles', 'Asia/Kolkata', 'Europe/Lisbon'])(
    'is today in this machine\'s zone (%s), as Intl reads it, on both sides of its midnight',
    (zone) => {
      process.env.TZ = zone
      // ICU may name a zone by an older alias (Asia/Calcutta).
      const resolved = Intl.DateTimeFormat().resolvedOptions().timeZone
      expect(todayIn(resolved, Date.parse('2026-11-28T23:59:59Z'))).toBe(todayIn(zone, Date.parse('2026-11-28T23:59:59Z')))
      for (const instant of ['2026-11-28T09:59:59Z', '2026-11-28T10:00:00Z', '2026-11-28T23:59:59Z', '2026-11-29T00:00:00Z', '2027-03-28T01:30:00Z', '2026-12-31T23:30:00Z']) {
        const nowMs = Date.parse(instant)
        expect(localToday(nowMs), `${zone} at ${instant}`).toBe(todayIn(resolved, nowMs))
      }
    },
  )

  it("reads POSIX and unknown zones as Date and date(1) do: GMT+3 is behind UTC, an empty or unknown TZ is UTC", () => {
    const nowMs = Date.parse('2026-11-28T01:30:00Z')
    process.env.TZ = 'GMT+3'
    expect(localToday(nowMs)).toBe(todayIn('UTC', nowMs) - 1)
    for (const zone of ['', 'Foo/Bar']) {
      process.env.TZ = zone
      expect(localToday(nowMs), JSON.stringify(zone)).toBe(todayIn('UTC', nowMs))
    }
  })
})
