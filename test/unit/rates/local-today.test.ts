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
    "is today in the zone Intl resolves as this machine's (%s), on both sides of its midnight",
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
})
