import {describe, expect, it} from 'vitest'
import {localTime} from '../../../src/cli/views/local-time.js'

/** The wall time Intl gives, as localTime printed it when it asked Intl itself. */
function intlLocalTime(iso: string, timeZone: string): string {
  const format = new Intl.DateTimeFormat('en-CA', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23'})
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]))
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

describe('localTime', () => {
  it('is the wall time Intl gives, to the minute, in zones of every kind and across changes of offset', () => {
    const zones = ['UTC', 'Europe/Lisbon', 'America/Los_Angeles', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns', 'Pacific/Kiritimati']
    for (const zone of zones) {
      for (let ms = Date.parse('2026-03-01T00:00:00Z'); ms < Date.parse('2027-03-01T00:00:00Z'); ms += 3 * 3_600_000 + 17 * 60_000 + 59_999) {
        const iso = new Date(ms).toISOString()
        expect(localTime(iso, zone), `${zone} at ${iso}`).toBe(intlLocalTime(iso, zone))
      }
    }
  })

  it('says UTC where the zone is unknown, and leaves what is no instant as it came', () => {
    expect(localTime('2026-11-22T14:05:59Z', 'Mars/Olympus_Mons')).toBe('2026-11-22 14:05 UTC')
    expect(localTime('soon', 'Europe/Lisbon')).toBe('soon')
  })
})
