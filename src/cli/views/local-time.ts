import {UnknownTimeZoneError, zoneOffsetAt} from '../../contract/zone-offsets.js'

/**
 * "2026-11-22 14:05" in the given IANA time zone: the instant moved by the zone's offset, as Intl
 * gives it (zone-offsets.ts); UTC, said so, when the zone is unknown to this Node.js.
 */
export function localTime(iso: string, timeZone: string): string {
  const ms = new Date(iso).getTime()
  if (Number.isNaN(ms)) return iso
  let offset: number
  try {
    offset = zoneOffsetAt(timeZone, ms)
  } catch (error) {
    if (!(error instanceof UnknownTimeZoneError)) throw error
    return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`
  }
  return new Date(ms + offset).toISOString().replace('T', ' ').slice(0, 16)
}
